/**
 * `harness/PostgresWireTap.ts` records how each statement reached the server, and upstream's
 * `PgClient.make` sends them the way the pool's smoke probe expects (POL-013): every statement and
 * transaction control as a named prepared statement, the unprepared entry points and streams through
 * the unnamed statement, transaction controls and the statements inside with the session's status. If
 * an effect upgrade changes how `PgClient.make` sends statements, this test fails first and says the
 * probe's expectation (`properties/pool/surfaceSmoke.ts`) is stale.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { describe, expect, it } from "vitest"
import { tappedPoolConfig } from "../../properties/pool/connection.ts"
import { usePostgresAdapter } from "../support/nodeAdapters.ts"

const postgres = usePostgresAdapter()

/** Each statement upstream's client sent for a few entry points, as `protocol status text`. */
const sentByUpstream = () =>
  Effect.runPromise(Effect.scoped(Effect.orDie(Effect.gen(function*() {
    const database = yield* postgres().open()
    const tapped = tappedPoolConfig(database.sql, 2)
    if (tapped === undefined) throw new Error("the postgres adapter recorded no connection config")
    const client = yield* PgClient.make(tapped.config)
    const text = (entry: string) => `SELECT '${entry}' AS entry`
    yield* client.unsafe(text("execute"))
    yield* client.unsafe(text("execute"))
    yield* client.unsafe(text("values")).values
    yield* client.unsafe(text("valuesUnprepared")).valuesUnprepared
    yield* client.unsafe(text("unprepared")).unprepared
    yield* Stream.runCollect(client.unsafe(text("stream")).stream)
    yield* client.withTransaction(Effect.andThen(client.unsafe(text("inside")), client.withTransaction(client.unsafe(text("nested")))))
    return tapped.tap.statements().map((statement) => `${statement.protocol} ${statement.transactionStatus} ${statement.text}`)
  })).pipe(Effect.provide(Reactivity.layer))))

describe("PostgresWireTap", () => {
  it("records named and unnamed statements as upstream's PgClient.make sends them", async () => {
    const sent = await sentByUpstream()
    expect(sent).toEqual([
      "named I SELECT 'execute' AS entry",
      "named I SELECT 'execute' AS entry",
      "named I SELECT 'values' AS entry",
      "unnamed I SELECT 'valuesUnprepared' AS entry",
      "unnamed I SELECT 'unprepared' AS entry",
      "unnamed I SELECT 'stream' AS entry",
      "named I BEGIN",
      "named T SELECT 'inside' AS entry",
      "named T SAVEPOINT effect_sql_1",
      "named T SELECT 'nested' AS entry",
      "named T RELEASE SAVEPOINT effect_sql_1",
      "named T COMMIT"
    ])
  })
})
