/**
 * Builds known-bad adapters by wrapping a real one: the wrapper makes a new `SqlClient` over the real
 * client's connection (`reserve`), so it can change transaction control SQL or rewrite the rows the
 * engine returns, while everything else is the real engine.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, Statement } from "effect/sql"
import type { Connection } from "effect/sql/SqlConnection"
import type { SqlError } from "effect/sql/SqlError"
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { createPlatformAlarmTable, emulatedPlatformAlarm } from "../../../adapters/emulatedPlatformAlarm.ts"

type Rows = ReadonlyArray<any>

/** How a known-bad adapter deviates from the real one. */
export interface Misbehaviour {
  /** SQL run in place of ROLLBACK for a failed top-level transaction (e.g. "COMMIT"). */
  readonly rollback?: string
  /** Rewrites the object rows returned for a statement. */
  readonly mapRows?: (sql: string, rows: Rows) => Rows
  /** Rewrites the errors statements fail with. */
  readonly mapError?: (error: SqlError) => SqlError
  /** SQL run in place of SAVEPOINT / ROLLBACK TO SAVEPOINT / RELEASE SAVEPOINT for nested transactions. */
  readonly savepointSql?: string
  /** Leaves a SQLite transaction open after a failed COMMIT (the real client rolls it back). */
  readonly skipCommitFailureCleanup?: boolean
}

const wrapConnection = (connection: Connection, misbehaviour: Misbehaviour): Connection => {
  const mapRows = misbehaviour.mapRows ?? ((_sql: string, rows: Rows) => rows)
  const mapError = misbehaviour.mapError ?? ((error: SqlError) => error)
  if (misbehaviour.mapRows === undefined && misbehaviour.mapError === undefined) return connection
  return {
    ...connection,
    execute: (sql, params, transformRows) =>
      connection.execute(sql, params, transformRows).pipe(Effect.map((rows) => mapRows(sql, rows)), Effect.mapError(mapError)),
    executeUnprepared: (sql, params, transformRows) =>
      connection.executeUnprepared(sql, params, transformRows).pipe(Effect.map((rows) => mapRows(sql, rows)), Effect.mapError(mapError))
  }
}

/** A copy of `base` named `name` whose clients misbehave as described. */
export const wrapAdapter = (base: StorageAdapter, name: string, misbehaviour: Misbehaviour): StorageAdapter => ({
  ...base,
  name,
  open: (options) =>
    Effect.gen(function*() {
      const real = yield* base.open(options)
      const acquirer = Effect.map(real.sql.reserve, (connection) => wrapConnection(connection, misbehaviour))
      const sql = yield* SqlClient.make({
        acquirer,
        transactionAcquirer: acquirer,
        compiler: base.dialect === "postgres" ? PgClient.makeCompiler() : Statement.makeCompilerSqlite(),
        driver: `${name} (wrapping ${base.name})`,
        releaseSavepoint: (savepoint) => `RELEASE SAVEPOINT ${savepoint}`,
        // SQLite keeps a transaction open when COMMIT fails (a deferred foreign key): end it, as the
        // real client does. Without this the wrapper would also break ADP-012, not only its target.
        ...(base.dialect === "sqlite" && misbehaviour.skipCommitFailureCleanup !== true
          ? { onCommitFailure: (connection: Connection) => Effect.asVoid(connection.executeUnprepared("ROLLBACK", [], undefined)) }
          : {}),
        spanAttributes: [],
        ...(misbehaviour.rollback === undefined ? {} : { rollback: misbehaviour.rollback }),
        ...(misbehaviour.savepointSql === undefined ? {} : {
          savepoint: () => misbehaviour.savepointSql!,
          rollbackSavepoint: () => misbehaviour.savepointSql!,
          releaseSavepoint: () => misbehaviour.savepointSql!
        })
      }).pipe(Effect.provideServiceEffect(Reactivity.Reactivity, Reactivity.make))
      yield* createPlatformAlarmTable(sql).pipe(Effect.orDie)
      return { sql, connections: [sql], platformAlarm: emulatedPlatformAlarm(sql) }
    })
})
