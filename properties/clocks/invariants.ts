/**
 * The idempotence guarantee of `clocks.md` as model-free invariants over the observed durable state
 * (IG1-IG4), checked after every step of the liveness property: completedAt is set once and never
 * changes, a completion keeps the first writer's value, at most one record per logical identity, and
 * the rows equal the fold of the journal. Pure, except `InvariantMemory`, which remembers what was
 * first observed (the harness forgets a completion when it rewinds it).
 */
import { type Check, jsonEqual } from "../../harness/ModelBased.ts"
import type { Json } from "../../harness/Property.ts"
import type { ObservedRows } from "./observe.ts"
import { compareEntryKeys } from "../../harness/CodeUnitOrder.ts"

/** What the invariants remember between steps. */
export interface InvariantMemory {
  /** First observed completedAt per clock `exec/clock`. */
  readonly completedAt: Map<string, number>
  /** First observed completion value per deferred `exec/name`. */
  readonly completions: Map<string, Json>
}

/** A fresh memory. */
export const emptyMemory = (): InvariantMemory => ({ completedAt: new Map(), completions: new Map() })

type Row = Readonly<Record<string, Json>>

const clockKey = (row: Row) => `${String(row["executionId"])}/${String(row["clockName"])}`
const deferredKey = (row: Row) => `${String(row["executionId"])}/${String(row["deferredName"])}`
const completionValue = (row: Row): Json => ({ exit: row["exit"] ?? null, metadata: row["metadata"] ?? null, completedAtMs: row["completedAtMs"] ?? null })

/** IG3: logical identities holding more than one record. */
const duplicateIdentities = (observed: ObservedRows): ReadonlyArray<Json> => {
  const counts = new Map<string, number>()
  for (const record of observed.records) {
    const payload = JSON.parse(record.payload) as Record<string, Json>
    const effect = payload["effect"] as Record<string, Json> | undefined
    const subject = effect !== undefined
      ? `${String(effect["id"])}:${String(effect["status"])}`
      : `${String(payload["executionId"])}/${String(payload["clockName"] ?? payload["deferredName"])}`
    const logical = `${record.eventType} ${subject}`
    counts.set(logical, (counts.get(logical) ?? 0) + 1)
  }
  return [...counts].filter(([, count]) => count > 1).map(([logical, count]) => ({ identity: logical, records: count }))
}

/** IG4: the rows the journal's records fold to, in the observed rows' shape and order. */
const foldOfJournal = (observed: ObservedRows) => {
  const clocks = new Map<string, Record<string, Json>>()
  const deferreds = new Map<string, Record<string, Json>>()
  for (const record of observed.records) {
    const p = JSON.parse(record.payload) as Record<string, Json>
    const clock = `${String(p["executionId"])}/${String(p["clockName"])}`
    const deferred = `${String(p["executionId"])}/${String(p["deferredName"])}`
    if (record.eventType === "engine.clock-scheduled") {
      clocks.set(clock, { executionId: p["executionId"]!, clockName: p["clockName"]!, deferredName: p["deferredName"]!, dueAtMs: p["dueAtMs"]!, completedAtMs: clocks.get(clock)?.["completedAtMs"] ?? null })
    } else if (record.eventType === "engine.clock-completed") {
      clocks.set(clock, { ...(clocks.get(clock) ?? { executionId: p["executionId"]!, clockName: p["clockName"]! }), completedAtMs: p["completedAtMs"]! })
    } else if (record.eventType === "engine.deferred-completed") {
      deferreds.set(deferred, { executionId: p["executionId"]!, deferredName: p["deferredName"]!, completedAtMs: p["completedAtMs"]!, consumedAtMs: deferreds.get(deferred)?.["consumedAtMs"] ?? null })
    } else if (record.eventType === "engine.deferred-consumed") {
      deferreds.set(deferred, { ...(deferreds.get(deferred) ?? { executionId: p["executionId"]!, deferredName: p["deferredName"]! }), consumedAtMs: p["consumedAtMs"]! })
    }
  }
  const sorted = (map: Map<string, Record<string, Json>>) => [...map].sort(compareEntryKeys).map(([, row]) => row as Json)
  return { clocks: sorted(clocks), deferreds: sorted(deferreds) }
}

/** The invariant checks of one step; then remembers what it saw first. */
export const invariantChecks = (observed: ObservedRows, memory: InvariantMemory): ReadonlyArray<Check> => {
  const clocks = observed.clocks as ReadonlyArray<Row>
  const deferreds = observed.deferreds as ReadonlyArray<Row>
  const rememberedClocks = clocks.filter((row) => memory.completedAt.has(clockKey(row)))
  const rememberedCompletions = deferreds.filter((row) => memory.completions.has(deferredKey(row)))
  const fold = foldOfJournal(observed)
  const checks: ReadonlyArray<Check> = [
    {
      observable: "completedAt of fired clocks",
      expected: Object.fromEntries(rememberedClocks.map((row) => [clockKey(row), memory.completedAt.get(clockKey(row))!])),
      actual: Object.fromEntries(rememberedClocks.map((row) => [clockKey(row), row["completedAtMs"] ?? null])),
      rules: ["IG1"],
      why: "completedAt is set once, by the first winning CAS, and never changes"
    },
    {
      observable: "completion values",
      expected: Object.fromEntries(rememberedCompletions.map((row) => [deferredKey(row), memory.completions.get(deferredKey(row))!])),
      actual: Object.fromEntries(rememberedCompletions.map((row) => [deferredKey(row), completionValue(row)])),
      rules: ["IG2"],
      why: "a completion keeps the first writer's exit, metadata and completedAt"
    },
    { observable: "records per logical identity", expected: [], actual: duplicateIdentities(observed), rules: ["IG3"], why: "one clock-scheduled, clock-completed, deferred-completed and deferred-consumed record each" },
    {
      observable: "clock rows vs the fold of the journal",
      expected: fold.clocks,
      actual: clocks.map((row) => ({ executionId: row["executionId"]!, clockName: row["clockName"]!, deferredName: row["deferredName"]!, dueAtMs: row["dueAtMs"]!, completedAtMs: row["completedAtMs"] ?? null })),
      rules: ["IG4", "B9"],
      why: "replaying the journal rebuilds the clock rows"
    },
    {
      observable: "completion rows vs the fold of the journal",
      expected: fold.deferreds,
      actual: deferreds.map((row) => ({ executionId: row["executionId"]!, deferredName: row["deferredName"]!, completedAtMs: row["completedAtMs"]!, consumedAtMs: row["consumedAtMs"] ?? null })),
      rules: ["IG4"],
      why: "replaying the journal rebuilds the completion rows"
    }
  ]
  for (const row of clocks) if (row["completedAtMs"] !== null && !memory.completedAt.has(clockKey(row))) memory.completedAt.set(clockKey(row), row["completedAtMs"] as number)
  for (const row of deferreds) if (!memory.completions.has(deferredKey(row))) memory.completions.set(deferredKey(row), completionValue(row))
  return checks.map((check) => ({ ...check, expected: check.expected as Json, actual: check.actual as Json }))
}

/** Whether two JSON values are equal as canonical text. */
export const sameJson = (a: Json, b: Json): boolean => jsonEqual(a, b)
