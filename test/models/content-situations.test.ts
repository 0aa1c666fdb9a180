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
