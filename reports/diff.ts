/**
 * State differences for reports: the model's and the implementation's observable state after a step,
 * compared structurally. Objects (and arrays, by index) present on both sides are compared key by key;
 * a key present on one side only, or a leaf value that differs, is one row. Paths read like
 * JavaScript: `alarms["email/a1"].runAt`, `rows[0]`.
 *
 * Values are compared normalized: key order never matters, and an outcome the model states as a word
 * (`"failure"`, `"success"`) equals the implementation's recorded exit of that kind (`{ error, message }`,
 * `{ defect }`, `{ ok }`, `{ _tag: "Failure" }`): such a row differs in representation only and is not
 * a difference.
 */

import { jsonEqual } from "../harness/ModelBased.ts"

/** One path and its value on each side (`undefined`: absent on that side). */
export interface StateDiffRow {
  readonly path: string
  readonly model: unknown
  readonly implementation: unknown
  readonly differs: boolean
  /** True when the two sides are written differently but mean the same (`"failure"` and `{ error: … }`). */
  readonly representationOnly?: true
}

/** The comparison of two states. */
export interface StateDiff {
  readonly rows: ReadonlyArray<StateDiffRow>
  /** How many rows differ (counted over all rows, including those cut by `maxRows`). */
  readonly differing: number
  /** Rows left out because of `maxRows` (always equal ones: differences are kept first). */
  readonly omitted: number
}

/** Deepest nesting compared key by key; deeper values are compared and shown as one JSON value. */
const MAX_DEPTH = 12
/** Rows collected before giving up on walking (a runaway state should not stall a report). */
const MAX_WALK_ROWS = 20_000

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

const childPath = (parent: string, key: string): string =>
  IDENTIFIER.test(key) ? (parent === "" ? key : `${parent}.${key}`) : `${parent}[${JSON.stringify(key)}]`

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)


const OUTCOME_WORDS: ReadonlySet<unknown> = new Set(["success", "failure"])

/** The kind of an outcome as properties record it: `"success"`, `"failure"`, or undefined for anything else. */
export const outcomeKind = (value: unknown): "success" | "failure" | undefined => {
  if (value === "success" || value === "failure") return value
  if (!isRecord(value)) return undefined
  if (value["_tag"] === "Success" || value["_tag"] === "Failure") return value["_tag"] === "Success" ? "success" : "failure"
  const keys = Object.keys(value)
  if (keys.length === 1 && keys[0] === "ok") return "success"
  if (keys.length === 1 && keys[0] === "defect") return "failure"
  if (keys.includes("error") && keys.every((key) => key === "error" || key === "message")) return "failure"
  return undefined
}

/** True when one side states an outcome as a word and the other records an exit of that same kind. */
const sameOutcome = (a: unknown, b: unknown): boolean =>
  (OUTCOME_WORDS.has(a) || OUTCOME_WORDS.has(b)) && outcomeKind(a) !== undefined && outcomeKind(a) === outcomeKind(b)

/**
 * Normalized equality of two values: equal up to key order, or the same outcome written two ways.
 *
 * @example
 * sameValue("failure", { error: "SqlError", message: "boom" }) // true
 * sameValue("failure", { ok: null })                           // false
 */
export const sameValue = (a: unknown, b: unknown): boolean => jsonEqual(a, b) || sameOutcome(a, b)

const walk = (model: unknown, implementation: unknown, path: string, depth: number, out: Array<StateDiffRow>): void => {
  if (out.length >= MAX_WALK_ROWS) return
  const shown = path === "" ? "(value)" : path
  const bothRecords = isRecord(model) && isRecord(implementation)
  const bothArrays = Array.isArray(model) && Array.isArray(implementation)
  if (depth < MAX_DEPTH && (bothRecords || bothArrays)) {
    const keys = bothArrays
      ? Array.from({ length: Math.max(model.length, implementation.length) }, (_, index) => String(index))
      : [...new Set([...Object.keys(model as object), ...Object.keys(implementation as object)])].sort()
    if (keys.length === 0) {
      out.push({ path: shown, model, implementation, differs: false })
      return
    }
    for (const key of keys) {
      const m = (model as Record<string, unknown>)[key]
      const i = (implementation as Record<string, unknown>)[key]
      const hasM = Object.hasOwn(model as object, key)
      const hasI = Object.hasOwn(implementation as object, key)
      const child = bothArrays ? `${path}[${key}]` : childPath(path, key)
      if (hasM && hasI) walk(m, i, child, depth + 1, out)
      else out.push({ path: child, model: hasM ? m : undefined, implementation: hasI ? i : undefined, differs: true })
    }
    return
  }
  if (jsonEqual(model, implementation)) out.push({ path: shown, model, implementation, differs: false })
  else if (sameOutcome(model, implementation)) out.push({ path: shown, model, implementation, differs: false, representationOnly: true })
  else out.push({ path: shown, model, implementation, differs: true })
}

/**
 * Compares model and implementation state. When there are more than `maxRows` rows, differing rows
 * are kept first so a difference is never hidden.
 *
 * @example
 * diffStates({ a: 1, b: 2 }, { a: 1, b: 3 }).differing // 1
 * diffStates({ m: {} }, { m: { x: 1 } }).rows[0]       // { path: "m.x", model: undefined, implementation: 1, differs: true }
 */
export const diffStates = (model: unknown, implementation: unknown, maxRows = 200): StateDiff => {
  if (model === undefined && implementation === undefined) return { rows: [], differing: 0, omitted: 0 }
  const all: Array<StateDiffRow> = []
  walk(model, implementation, "", 0, all)
  const differing = all.filter((row) => row.differs).length
  if (all.length <= maxRows) return { rows: all, differing, omitted: 0 }
  const keep = new Set<StateDiffRow>(all.filter((row) => row.differs).slice(0, maxRows))
  for (const row of all) {
    if (keep.size >= maxRows) break
    keep.add(row)
  }
  const rows = all.filter((row) => keep.has(row))
  return { rows, differing, omitted: all.length - rows.length }
}
