/**
 * The effect/sql `Connection` over one driver session (`PgConnection` of `@effect/sql-pg`), as
 * `PgClient.make` builds it: prepared statements, raw results, value rows and streams.
 */
import type * as PgConnection from "@effect/sql-pg/PgConnection"
import { Effect, Stream } from "effect"
import type { Connection } from "effect/sql/SqlConnection"

type Transform = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

/**
 * Wraps a driver session as an effect/sql connection.
 *
 * @example const connection = sqlConnection(yield* pgPool.get)
 */
export const sqlConnection = (session: PgConnection.PgConnection): Connection => {
  const run = (sql: string, params: ReadonlyArray<unknown>, prepare = true) =>
    Effect.map(session.query(sql, params, prepare), (result) => result.rows)
  const transformed = (rows: Effect.Effect<ReadonlyArray<any>, any>, transform: Transform) =>
    transform === undefined ? rows : Effect.map(rows, transform)
  return {
    execute: (sql, params, transform) => transformed(run(sql, params), transform),
    executeRaw: (sql, params) => session.query(sql, params),
    executeStream: (sql, params, transform) => {
      const stream = session.stream(sql, params)
      return transform === undefined ? stream : Stream.mapArray(stream, (rows) => transform(rows) as any)
    },
    executeValues: (sql, params) => session.queryValues(sql, params),
    executeValuesUnprepared: (sql, params) => session.queryValues(sql, params, false),
    executeUnprepared: (sql, params, transform) => transformed(run(sql, params, false), transform)
  }
}
