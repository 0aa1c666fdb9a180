/**
 * How to open more sessions to a database the `postgres` adapter opened: its server URL (a secret)
 * and the startup parameters that point a session at the isolated schema. Subjects that are pools of
 * real server sessions (`pool`) build their own driver pool from this; every other subject uses the
 * clients the adapter hands out. Registered per primary client by `open()`, so nothing in the
 * `StorageAdapter` contract changes; a client this adapter did not open has none.
 * Importable anywhere (no Node built-ins).
 */
import type { Redacted } from "effect"
import type { SqlClient } from "effect/sql"

/** Connection settings of one isolated database. */
export interface PostgresConnectionConfig {
  /** The server URL (user, password, host, port, database); redacted in logs. */
  readonly url: Redacted.Redacted<string>
  /** Session defaults every connection must send (e.g. `search_path` of the isolated schema). */
  readonly startupParameters: Readonly<Record<string, string>>
}

const configs = new WeakMap<SqlClient.SqlClient, PostgresConnectionConfig>()

/** Records how to reach the database `sql` belongs to (called by the adapter's `open`). */
export const registerPostgresConnection = (sql: SqlClient.SqlClient, config: PostgresConnectionConfig): void => {
  configs.set(sql, config)
}

/**
 * How to open more sessions to the database of `sql`, when the `postgres` adapter opened it.
 *
 * @example const config = postgresConnectionOf(environment.database.sql) // undefined on sqlite
 */
export const postgresConnectionOf = (sql: SqlClient.SqlClient): PostgresConnectionConfig | undefined => configs.get(sql)
