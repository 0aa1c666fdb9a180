/**
 * The content model's fault situations (`models/content/situations.ts`) count a storage fault only as
 * it struck, as clocks and cron count theirs: a fault whose transaction's body failed on its own first
 * (a refused upload's commit never came) is no `fault*` situation, whatever phase was drawn.
 */
import { describe, expect, it } from "vitest"
import { contentModel, type ContentOperation, contentSituations, DEFAULT_MODEL_CONFIG, type ReachedFault } from "../../models/content/index.ts"

const HASH = "a".repeat(64)
const LIMIT_BYTES = DEFAULT_MODEL_CONFIG.maxContentBytes

/** The situations of `op` from the initial state. */
const situationsOf = (op: ContentOperation): ReadonlyArray<string> => {
  const before = contentModel.init(DEFAULT_MODEL_CONFIG)
  return contentSituations(before, op, contentModel.step(before, op))
}

const stream = (size: number, bodyFails: boolean, phase: ReachedFault["phase"]): ContentOperation => ({
  kind: "uploadStream", tenant: "t1", hash: HASH, size, limit: LIMIT_BYTES, bodyFails, atMs: 0, fault: { transaction: 1, phase }
})

const faultSituations = (situations: ReadonlyArray<string>): ReadonlyArray<string> => situations.filter((situation) => situation.startsWith("fault"))

describe("content situations: faults count only as they struck", () => {
  it("a fault that reached a refused upload's transaction but never struck its commit is no fault situation", () => {
    for (const phase of ["afterCommit", "lostReply", "commitRefused"] as const) {
      expect(faultSituations(situationsOf(stream(LIMIT_BYTES + 1, false, phase)))).toEqual([])
      expect(faultSituations(situationsOf(stream(3, true, phase)))).toEqual([])
    }
  })

  it("a crash inside a refused upload's transaction and a failed statement before its own failure struck", () => {
    expect(faultSituations(situationsOf(stream(LIMIT_BYTES + 1, false, "inside")))).toEqual(["faultInsideTransaction"])
    expect(faultSituations(situationsOf(stream(3, true, "statementFails")))).toEqual(["faultStatementFailed"])
  })

  it("every phase that struck a committing upload counts once, by how it struck", () => {
    const struck = (["inside", "afterCommit", "lostReply", "commitRefused", "statementFails"] as const).map((phase) => faultSituations(situationsOf(stream(3, false, phase))))
    expect(struck).toEqual([["faultInsideTransaction"], ["faultAfterCommit"], ["faultLostReply"], ["faultCommitRefused"], ["faultStatementFailed"]])
  })
})

describe("content situations: a tenant's own reference, and a re-check that splits one delete", () => {
  const init = contentModel.init(DEFAULT_MODEL_CONFIG)
  const place = { actor: "a", blob: "b", name: "n" }
  const withRef = { ...init, refs: { [`t1/a/b/n`]: { tenant: "t1", ...place, hash: HASH, size: 1 } } }
  const detach = (tenant: string): ContentOperation => ({ kind: "detach", tenant, ...place })

  it("a detach of a place held only in another tenant is missing, and says so", () => {
    expect(contentSituations(withRef, detach("t2"), contentModel.step(withRef, detach("t2")))).toEqual(["detachMissing", "detachHeldOnlyByOtherTenant"])
    expect(contentSituations(withRef, detach("t1"), contentModel.step(withRef, detach("t1")))).toEqual(["detachExisting"])
    expect(contentSituations(init, detach("t2"), contentModel.step(init, detach("t2")))).toEqual(["detachMissing"])
  })

  it("a raise between the scan and the delete splits the delete only when another candidate goes", () => {
    const config = DEFAULT_MODEL_CONFIG
    const other = "b".repeat(64)
    const agedMs = config.grantLifetimeMs + config.graceMs + config.turnMs + config.skewMs + 1_000
    const contents = (hashes: ReadonlyArray<string>) => Object.fromEntries(hashes.map((hash) => [`t1/${hash}`, { tenant: "t1", hash, size: 1, grantedUntilMs: config.grantLifetimeMs }]))
    const aged = (hashes: ReadonlyArray<string>) => ({ ...init, contents: contents(hashes), sweptAtMs: { t1: 0 } })
    const sweep: ContentOperation = { kind: "sweep", force: true, atMs: agedMs, competitor: { operation: { kind: "grant", tenant: "t1", hash: HASH, size: 1, atMs: agedMs }, betweenScanAndDelete: true } }
    const split = (hashes: ReadonlyArray<string>) => contentSituations(aged(hashes), sweep, contentModel.step(aged(hashes), sweep)).includes("sweepRecheckSplitsBatch")
    expect(split([HASH, other])).toBe(true)
    expect(split([HASH])).toBe(false)
  })
})
