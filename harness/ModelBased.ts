/**
 * The model-versus-implementation loop every subject's property runs.
 *
 * A subject supplies how one command is executed on both sides and compared (`step`): its
 * command-to-call mapping, what it observes, and which rules govern each observable (`Check`). The
 * loop owns what is the same for every subject: the command bound, the trace and coverage
 * bookkeeping, the first mismatch, attribution of the mismatch to a requirement (`Attribution.ts`),
 * and one structured `Divergence` rendered in one place. Calls go through the storage boundary
 * (`StorageBoundary.ts`), and `resultJson` gives every subject the same result shapes, crashes
 * included.
 */
import { Cause, Effect, Exit } from "effect"
import type { Attributor } from "./Attribution.ts"
import type { HarnessError } from "./errors.ts"
import type { Divergence, ExecutionTrace, Json, StepRecord } from "./Property.ts"
import type { BoundedOutcome } from "./StorageBoundary.ts"
import { canonical } from "./CodeUnitOrder.ts"

/** One observed value compared with the model's prediction, with the rules and reason deciding it. */
export interface Check {
  readonly observable: string
  readonly expected: Json
  readonly actual: Json
  readonly rules: ReadonlyArray<string>
  readonly why: string
  /** Other values the rules allowed here, by a choice they leave open (`Alternatives.ts`): none was observed either. */
  readonly alsoExpected?: ReadonlyArray<Json>
}

/** What one executed command produced: its trace record, its checks (finest first) and its coverage. */
export interface ExecutedStep {
  /** The step as reports show it (the loop adds the index). */
  readonly record: Omit<StepRecord, "index">
  /** Compared in order; the first mismatch is the witness. */
  readonly checks: ReadonlyArray<Check>
  /** Requirement IDs whose situation the step reached. */
  readonly covered: ReadonlyArray<string>
  /** The model's named situations the step reached (for the situation coverage table). */
  readonly situations?: ReadonlyArray<string>
  /** The step in words for the witness sentence, e.g. `processDueAlarms at 00:00:01 (crash after ...)`. */
  readonly described: string
}

/** A subject's side of the loop. */
export interface ModelBasedSubject<Command> {
  /** Commands beyond this bound are not run (generators stay far below it). */
  readonly maxCommands: number
  /** The subject's whole catalog; the loop narrows it to `requirements`. */
  readonly attributor: Attributor
  /** The property's own requirement IDs (`ExecutionEnvironment.requirements`): the only ones a divergence names. */
  readonly requirements: ReadonlyArray<string>
  /** An opening step before the commands (e.g. opening storage of an older layout), if any. */
  readonly open?: Effect.Effect<ExecutedStep | null, HarnessError>
  /** Executes `command` on the implementation and the model and compares every observable. */
  readonly step: (command: Command, index: number) => Effect.Effect<ExecutedStep, HarnessError>
}

/** JSON with object keys sorted, so equal values compare equal as text (`CodeUnitOrder.ts`). */
export { canonical }

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function"
}

/** Whether `JSON.stringify` drops `value` as an object member (it is not serialized at all). */
const droppedMember = (value: unknown): boolean => value === undefined || typeof value === "function" || typeof value === "symbol"

/** Bound on the nesting `jsonEqual` walks before it compares the rest as canonical text. */
const MAX_EQUAL_DEPTH = 64

/**
 * `canonical(a) === canonical(b)`, without building the texts: plain objects and arrays are walked
 * (members `JSON.stringify` drops are ignored, key order does not matter), and every other value is
 * compared as canonical text, so the answer is the same as comparing canonical texts.
 */
export const jsonEqual = (a: unknown, b: unknown, depth = 0): boolean => {
  if (a === b && (typeof a !== "object" || a === null)) return typeof a !== "bigint" || canonical(a) === canonical(b)
  if (depth < MAX_EQUAL_DEPTH && Array.isArray(a) && Array.isArray(b) && Object.getPrototypeOf(a) === Array.prototype && Object.getPrototypeOf(b) === Array.prototype && typeof (a as { toJSON?: unknown }).toJSON !== "function" && typeof (b as { toJSON?: unknown }).toJSON !== "function") {
    if (a.length !== b.length) return false
    for (let index = 0; index < a.length; index++) if (!jsonEqual(a[index], b[index], depth + 1)) return false
    return true
  }
  if (depth < MAX_EQUAL_DEPTH && isPlainObject(a) && isPlainObject(b)) {
    const keysOf = (value: Record<string, unknown>) => Object.keys(value).filter((key) => !droppedMember(value[key]))
    const keys = keysOf(a)
    if (keys.length !== keysOf(b).length) return false
    for (const key of keys) if (!Object.hasOwn(b, key) || droppedMember(b[key]) || !jsonEqual(a[key], b[key], depth + 1)) return false
    return true
  }
  return canonical(a) === canonical(b)
}

/** Short text of a JSON value for a sentence (at most 160 characters). */
export const brief = (value: Json | undefined): string => {
  const text = canonical(value ?? null)
  return text.length > 160 ? `${text.slice(0, 157)}...` : text
}

/** The first check whose actual value differs from the expected one. */
export const firstMismatch = (checks: ReadonlyArray<Check>): Check | undefined =>
  checks.find((check) => !jsonEqual(check.expected, check.actual))

/**
 * The witness of a mismatch: the violated requirement (and any equally likely ones) and one plain
 * sentence saying what was expected, what happened, and why.
 */
export const divergenceOf = (mismatch: Check, attributor: Attributor, stepIndex: number, described: string): Divergence => {
  const attribution = attributor.attribute(mismatch.rules)
  return {
    requirementId: attribution.requirementId,
    ...(attribution.alsoRequirementIds.length === 0 ? {} : { alsoRequirementIds: attribution.alsoRequirementIds }),
    stepIndex,
    observable: mismatch.observable,
    rules: mismatch.rules,
    explanation: `after ${described}, the implementation's ${mismatch.observable} was ${brief(mismatch.actual)} but the model expected ${
      brief(mismatch.expected)
    }${alsoExpectedWords(mismatch.alsoExpected)}, because ${mismatch.why} (${mismatch.rules.join(", ")})`,
    expected: mismatch.expected,
    ...(mismatch.alsoExpected === undefined ? {} : { alsoExpected: mismatch.alsoExpected }),
    actual: mismatch.actual
  }
}

/** ` (or X, or Y, by another choice the rules allow)`, or nothing when the rules allowed one value. */
const alsoExpectedWords = (alsoExpected: ReadonlyArray<Json> | undefined): string =>
  alsoExpected === undefined || alsoExpected.length === 0 ? "" : ` (or ${alsoExpected.map(brief).join(", or ")}, by another choice the rules allow)`

/**
 * A call's outcome in the shapes every model predicts: `{_tag: "Success", value}`,
 * `{_tag: "Failure", error}` (the error as `errorJson` names it) or `{_tag: "Crashed", transaction, phase}`.
 */
export const resultJson = <A extends Json, E>(outcome: BoundedOutcome<A, E>, errorJson: (error: unknown) => Json): Json =>
  outcome._tag === "Crashed"
    ? { _tag: "Crashed", transaction: outcome.crash.transaction, phase: outcome.crash.phase }
    : exitJson(outcome.exit, (value) => value, errorJson)

/**
 * An exit in the model's result shape: `{_tag: "Success", value}`, or `{_tag: "Failure", error}` where
 * the error is the cause's first failure or, with none, its first defect (`Cause.squash`).
 */
export const exitJson = <A, E>(exit: Exit.Exit<A, E>, valueJson: (value: A) => Json, errorJson: (error: unknown) => Json): Json =>
  Exit.isSuccess(exit) ? { _tag: "Success", value: valueJson(exit.value) } : failureJson(exit.cause, errorJson)

/** The model's result shape of a failed call. */
export type FailureJson = { readonly _tag: "Failure"; readonly error: Json }

/** A failed call in the model's result shape: `{_tag: "Failure", error}`, the error picked as `exitJson` picks it. */
export const failureJson = (cause: Cause.Cause<unknown>, errorJson: (error: unknown) => Json): FailureJson => ({ _tag: "Failure", error: errorJson(Cause.squash(cause)) })

/**
 * Runs the opening step and then each command (at most `maxCommands`), stopping at the first
 * disagreement; returns the trace with its witness and the requirements the run reached.
 */
export const runModelBased = <Command>(
  subject: ModelBasedSubject<Command>,
  commands: ReadonlyArray<Command>
): Effect.Effect<ExecutionTrace, HarnessError> =>
  Effect.gen(function*() {
    const attributor = subject.attributor.within(subject.requirements)
    const steps: Array<StepRecord> = []
    const covered = new Set<string>()
    const situations = new Set<string>()
    const record = (executed: ExecutedStep): Divergence | null => {
      const index = steps.length
      steps.push({ index, ...executed.record })
      for (const id of executed.covered) covered.add(id)
      for (const situation of executed.situations ?? []) situations.add(situation)
      const mismatch = firstMismatch(executed.checks)
      return mismatch === undefined ? null : divergenceOf(mismatch, attributor, index, executed.described)
    }
    let divergence: Divergence | null = null
    const opening = subject.open === undefined ? null : yield* subject.open
    if (opening !== null) divergence = record(opening)
    const bounded = commands.slice(0, subject.maxCommands)
    for (let position = 0; divergence === null && position < bounded.length; position++) {
      divergence = record(yield* subject.step(bounded[position]!, steps.length))
    }
    return { steps, divergence, covered: [...covered].sort(), ...(situations.size === 0 ? {} : { situations: [...situations].sort() }) }
  })
