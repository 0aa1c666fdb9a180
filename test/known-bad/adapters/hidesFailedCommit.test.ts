/**
 * Known-bad clients that hide a failed COMMIT fail ADP-012, on both dialects; the real adapters pass
 * the same property under the same seed.
 */
import { PGlite } from "@electric-sql/pglite"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { makePgliteAdapterFromSession, makePgliteSession } from "../../../adapters/pglite/index.ts"
import { makeSqliteAdapter } from "../../../adapters/sqlite/index.ts"
import { runProperty } from "../../../harness/Runner.ts"
import { counterexampleFor, failedRequirementIds } from "../../../harness/RunResult.ts"
import { failedCommitProperty } from "../../../properties/adapter/index.ts"
import { ADP } from "../../../spec/adapter.ts"
import { describeRun } from "../../adapters/runContract.ts"
import { hidesFailedCommit } from "./hidesFailedCommit.ts"

const run = (adapter: StorageAdapter) =>
  Effect.runPromise(runProperty({ property: failedCommitProperty, adapter, seed: 11, runs: 60 }))

describe("a client that hides a failed COMMIT fails ADP-012", () => {
  it("over sqlite (no rollback after a failed deferred-foreign-key COMMIT)", async () => {
    const bad = await run(hidesFailedCommit(makeSqliteAdapter()))
    expect(bad.verdict, describeRun(bad)).toBe("fail")
    expect(failedRequirementIds(bad)).toContain(ADP.failedCommit)
    const good = await run(makeSqliteAdapter())
    expect(good.verdict, describeRun(good)).toBe("pass")
  })

  describe("over pglite", () => {
    let pg: PGlite
    beforeAll(async () => {
      pg = await PGlite.create()
    })
    afterAll(async () => {
      await pg.close()
    })
    it("a plain COMMIT whose ROLLBACK answer is ignored", async () => {
      const real = makePgliteAdapterFromSession(makePgliteSession(pg))
      const bad = await run(hidesFailedCommit(real))
      expect(bad.verdict, describeRun(bad)).toBe("fail")
      expect(failedRequirementIds(bad)).toContain(ADP.failedCommit)
      expect(counterexampleFor(bad, ADP.failedCommit)?.scenario).toMatchObject({ kind: "caughtStatementError" })
    })
  })
})
