/**
 * The harness's read of the alarm tables (`properties/alarms/storedState.ts`) in each state storage can
 * be in: no table yet, upstream's older layout (a) without the attempts table, and both tables with an
 * orphan attempts row; and each row's payload and repeat, which a status does not show. The join is tried first and the table probe runs only when it fails, so each of
 * these must read the same as a reader that asks which tables exist first.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { writeLegacyLayout } from "../../properties/alarms/legacyLayout.ts"
import { readStoredAlarms } from "../../properties/alarms/storedState.ts"
import { storageIdOf } from "../../models/alarms/index.ts"

const RUN_AT_MS = Date.UTC(2026, 0, 1)
const row = { tag: "a", id: "1", runAtMs: RUN_AT_MS, repeatEveryMs: null, payloadText: "1" }

/** Runs `body` on a fresh in-memory sqlite database. */
const onFreshSqlite = <A>(body: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(makeSqliteAdapter().open({ connections: 1 }), (database) => body(database.sql))))

describe("readStoredAlarms", () => {
  it("reads every alarm as absent before any table exists", async () => {
    const stored = await onFreshSqlite((sql) => readStoredAlarms(sql, "sqlite"))
    expect(Object.values(stored.statuses).every((status) => status === null)).toBe(true)
    expect(stored.orphanAttempts).toEqual([])
  })

  it("reads older layout (a) without an attempts table as a fresh budget", async () => {
    const stored = await onFreshSqlite((sql) =>
      Effect.andThen(writeLegacyLayout(sql, "sqlite", { kind: "beforeAttempts", rows: [row] }), readStoredAlarms(sql, "sqlite")))
    expect(stored.statuses["a/1"]).toEqual({ attempts: 0, parked: false, runAtMs: RUN_AT_MS, retryAtMs: null })
    expect(Object.entries(stored.statuses).filter(([key]) => key !== "a/1").every(([, status]) => status === null)).toBe(true)
    expect(stored.contents["a/1"]).toEqual({ payload: 1, repeatEveryMs: null })
  })

  it("reads each row's payload as the JSON value its text holds, and its repeat; text that is not JSON is shown as it is", async () => {
    const stored = await onFreshSqlite((sql) =>
      Effect.andThen(writeLegacyLayout(sql, "sqlite", {
        kind: "beforeAttempts",
        rows: [
          { ...row, payloadText: "{\"b\": [1, 2], \"a\": null}", repeatEveryMs: 3_600_000 },
          { ...row, id: "2", payloadText: "not json" }
        ]
      }), readStoredAlarms(sql, "sqlite")))
    expect(stored.contents["a/1"]).toEqual({ payload: { b: [1, 2], a: null }, repeatEveryMs: 3_600_000 })
    expect(stored.contents["a/2"]).toEqual({ payload: { unparsed: "not json" }, repeatEveryMs: null })
    expect(stored.contents["a/3"]).toBeNull()
  })

  it("reads an attempts row and reports one whose scheduled row is gone", async () => {
    const stored = await onFreshSqlite((sql) =>
      Effect.gen(function*() {
        yield* writeLegacyLayout(sql, "sqlite", {
          kind: "attemptsWithoutWake",
          rows: [row],
          attempts: [
            { tag: "a", id: "1", revision: "r1", attempts: 2, parked: true, retryAtMs: RUN_AT_MS + 5_000, progress: -1 },
            { tag: "a", id: "2", revision: "r2", attempts: 1, parked: false, retryAtMs: null, progress: -1 }
          ]
        })
        return yield* readStoredAlarms(sql, "sqlite")
      }))
    expect(stored.statuses["a/1"]).toEqual({ attempts: 2, parked: true, runAtMs: RUN_AT_MS, retryAtMs: RUN_AT_MS + 5_000 })
    expect(stored.statuses["a/2"]).toBeNull()
    expect(stored.orphanAttempts).toEqual([storageIdOf({ tag: "a", id: "2" })])
  })
})
