/**
 * The relational record checks (`properties/clocks/recordChecks.ts`): meta and digests are compared
 * without assuming our engine's lineage text or digest algorithm, yet a constant digest, a digest of
 * the key insertion order, a digest-less present metadata, an empty or missing lineage and a wrong
 * effect-boundary meta all fail. Pure: records are built from the model's journal.
 */
import { describe, expect, it } from "vitest"
import { jsonEqual } from "../../harness/ModelBased.ts"
import type { Json } from "../../harness/Property.ts"
import { clocksModel, type FaultedCommand, type ModelState } from "../../models/clocks/index.ts"
import { recordChecks } from "../../properties/clocks/recordChecks.ts"
import type { StoredRecord } from "../../subjects/clocks/journal.ts"
import { canonicalJson, digestOf } from "../../subjects/clocks/records.ts"

const COMMANDS: ReadonlyArray<FaultedCommand> = [
  { op: "deferredDone", exec: "e1", deferred: "sig", value: { a: 1, b: [1, 2] }, metadata: { corr: "c1" } },
  { op: "deferredDone", exec: "e2", deferred: "sig", value: { b: [1, 2], a: 1 } },
  { op: "deferredDone", exec: "e2", deferred: "t1:fired", value: 2, metadata: { corr: "c2" } },
  { op: "effect", exec: "e1", attempt: 1, fails: false }
]

const modelAfter = (commands: ReadonlyArray<FaultedCommand>): ModelState =>
  commands.reduce((state, command) => clocksModel.step(state, { command, atMs: state.nowMs }).state, clocksModel.init(1_000))

interface Engine {
  readonly digest: (value: Json) => Json
  readonly lineage: (runId: string) => Json
  readonly effectMeta?: (meta: Json) => Json
}

const RIGHT: Engine = { digest: (value) => digestOf(value as never), lineage: (runId) => `root:${runId}` }

/** The records an engine with `engine`'s digest and lineage would have stored for the model's journal. */
const recordsOf = (state: ModelState, engine: Engine): ReadonlyArray<StoredRecord> =>
  Object.entries(state.journal).map(([id, record], index) => {
    const [runId, sourceId, seq] = [id.slice(0, id.indexOf("|")), id.slice(id.indexOf("|") + 1, id.lastIndexOf("|")), id.slice(id.lastIndexOf("|") + 1)]
    const named = record.named as { readonly exit: Json; readonly metadata: Json } | null
    const payload = named === null
      ? record.payload
      : { ...(record.payload as object), exitDigest: engine.digest(named.exit), metadataDigest: named.metadata === null ? null : engine.digest(named.metadata) }
    const meta = record.meta === null ? { lineageId: engine.lineage(runId!) } : (engine.effectMeta ?? ((m: Json) => m))(record.meta)
    return { runId: runId!, sourceId: sourceId!, sourceSeq: Number(seq), eventType: record.eventType, payload: canonicalJson(payload as never), meta: canonicalJson(meta as never), admitted: index + 1 }
  })

const failing = (engine: Engine): ReadonlyArray<string> => {
  const state = modelAfter(COMMANDS)
  return recordChecks(recordsOf(state, engine), state).filter((check) => !jsonEqual(check.expected, check.actual)).map((check) => check.observable)
}

describe("clocks record checks", () => {
  it("pass for a right engine, whatever its lineage text or digest algorithm", () => {
    expect(failing(RIGHT)).toEqual([])
    expect(failing({ digest: (value) => `sha-${canonicalJson(value as never).length}-${canonicalJson(value as never)}`, lineage: (runId) => `lineage/${runId}` })).toEqual([])
  })

  it("fail on a digest that ignores the value, depends on key order, or is missing for present metadata", () => {
    expect(failing({ ...RIGHT, digest: () => "811c9dc5" })).toEqual(["completion record digests"])
    expect(failing({ ...RIGHT, digest: (value) => JSON.stringify(value) })).toEqual(["completion record digests"])
    expect(failing({ ...RIGHT, digest: (value) => (typeof value === "object" && value !== null && "corr" in value ? null : digestOf(value as never)) })).toEqual(["completion record digests"])
  })

  it("fail on a missing, empty or shared lineage, or a wrong effect-boundary meta", () => {
    expect(failing({ ...RIGHT, lineage: () => "" })).toEqual(["record meta"])
    expect(failing({ ...RIGHT, lineage: () => "root" })).toEqual(["record meta"])
    expect(failing({ ...RIGHT, lineage: () => undefined as never })).toEqual(["record meta"])
    expect(failing({ ...RIGHT, effectMeta: (meta) => ({ lineageId: (meta as { lineageId: Json }).lineageId }) })).toEqual(["record meta"])
  })
})
