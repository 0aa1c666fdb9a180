/**
 * What a Durable Object eviction does on do-sqlite, observed with workerd's `ctx.abort()` (which resets
 * the object as an eviction does): the call that aborts rejects, the next call gets a new instance with
 * none of the old in-memory state, and committed SQLite rows and the platform alarm survive. This is
 * why the alarms properties model eviction as "drop the scheduler instance, rebuild it from storage":
 * aborting mid-run would also kill the property run, which executes inside the same object. Also: a
 * transaction committed in the same turn as the eviction is lost (workerd had not flushed the object's
 * implicit transaction), so on do-sqlite "crash right after commit" can mean "the commit never happened".
 */
import { env, runInDurableObject } from "cloudflare:test"
import { describe, expect, it } from "vitest"

const namespace = (env as unknown as { readonly CONFORMANCE: DurableObjectNamespace }).CONFORMANCE

interface EvictableRpc {
  instanceToken(): Promise<string>
  evictForTest(reason: string): Promise<void>
  commitThenEvictForTest(statements: ReadonlyArray<string>, reason: string): Promise<void>
}

describe("Durable Object eviction (ctx.abort) on do-sqlite", () => {
  it("keeps committed rows and the platform alarm, drops the instance and its in-memory state", async () => {
    const stub = namespace.get(namespace.idFromName("eviction"))
    const rpc = stub as unknown as EvictableRpc
    await runInDurableObject(stub, async (_instance, state) => {
      state.storage.sql.exec("CREATE TABLE IF NOT EXISTS survivors (n INTEGER NOT NULL)")
      state.storage.sql.exec("DELETE FROM survivors")
      state.storage.sql.exec("INSERT INTO survivors (n) VALUES (1)")
      await state.storage.setAlarm(9_000_000_000_000)
    })
    const tokenBefore = await rpc.instanceToken()
    const aborted = await rpc.evictForTest("evicted by the test").then(() => "resolved", (error: unknown) => `rejected: ${String(error)}`)
    expect(aborted).toMatch(/^rejected: .*evicted by the test/)
    // A stub that saw its object break stays broken: callers take a fresh stub, as after a real eviction.
    const freshStub = namespace.get(namespace.idFromName("eviction"))
    const tokenAfter = await (freshStub as unknown as EvictableRpc).instanceToken()
    expect(tokenAfter).not.toBe(tokenBefore)
    const after = await runInDurableObject(freshStub, async (_instance, state) => ({
      rows: state.storage.sql.exec("SELECT n FROM survivors").toArray(),
      alarm: await state.storage.getAlarm()
    }))
    expect(after).toEqual({ rows: [{ n: 1 }], alarm: 9_000_000_000_000 })
    await runInDurableObject(freshStub, async (_instance, state) => {
      state.storage.sql.exec("DROP TABLE survivors")
      await state.storage.deleteAlarm()
    })
  })

  it("loses a transaction committed in the same turn as the eviction (workerd had not flushed it yet)", async () => {
    const name = "eviction-same-turn"
    const stub = namespace.get(namespace.idFromName(name))
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("CREATE TABLE IF NOT EXISTS survivors (n INTEGER NOT NULL)")
      state.storage.sql.exec("DELETE FROM survivors")
      state.storage.sql.exec("INSERT INTO survivors (n) VALUES (1)")
    })
    const outcome = await (stub as unknown as EvictableRpc)
      .commitThenEvictForTest(["INSERT INTO survivors (n) VALUES (2)"], "evicted right after commit")
      .then(() => "resolved", (error: unknown) => String(error))
    expect(outcome).toMatch(/evicted right after commit/)
    const fresh = namespace.get(namespace.idFromName(name))
    const rows = await runInDurableObject(fresh, (_instance, state) => state.storage.sql.exec("SELECT n FROM survivors ORDER BY n").toArray())
    console.info(`rows after an eviction in the committing turn: ${JSON.stringify(rows)}`)
    expect(rows).toEqual([{ n: 1 }])
    await runInDurableObject(fresh, (_instance, state) => {
      state.storage.sql.exec("DROP TABLE survivors")
    })
  })
})
