/**
 * The pool's connection config for the database a property was given: the same server, user and
 * isolated schema as the adapter's clients (`adapters/postgres/connectionConfig.ts`), every session
 * passing through the run's wire tap, so statements are observed on the wire, not asked of the pool.
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import { postgresConnectionOf } from "../../adapters/postgres/connectionConfig.ts"
import { makePostgresWireTap, type PostgresWireTap } from "../../harness/PostgresWireTap.ts"

/** A pool config and the tap its sessions pass through. */
export interface TappedPoolConfig {
  readonly config: PgClient.PgPoolConfig
  readonly tap: PostgresWireTap
}

/** Postgres' default port, when the URL names none. */
const DEFAULT_PORT = 5432

/**
 * The config of a pool of `maxConnections` sessions to the database of `sql`, tapped; undefined when
 * the adapter did not record how to reach it (not the `postgres` adapter).
 */
export const tappedPoolConfig = (sql: SqlClient.SqlClient, maxConnections: number): TappedPoolConfig | undefined => {
  const connection = postgresConnectionOf(sql)
  if (connection === undefined) return undefined
  const url = new URL(Redacted.value(connection.url))
  const tap = makePostgresWireTap({ host: url.hostname === "" ? "127.0.0.1" : url.hostname, port: url.port === "" ? DEFAULT_PORT : Number(url.port) })
  const config: PgClient.PgPoolConfig = {
    url: connection.url,
    ssl: false,
    stream: tap.connect,
    applicationName: "durable-conformance-pool",
    startupParameters: connection.startupParameters,
    maxConnections,
    minConnections: 0
  }
  return { config, tap }
}
