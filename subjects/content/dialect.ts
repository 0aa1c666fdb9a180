/**
 * Every SQL dialect difference of the content subject, in one place.
 *
 * Portable SQL goes through the `effect/sql` template tag everywhere else; only what differs lives
 * here: column types, the two-argument maximum, how an upsert tells a new row from an existing one
 * (Postgres `xmax = 0`; SQLite, a single writer, reads first), the tenant claim of a sweep pass
 * (`FOR UPDATE SKIP LOCKED` on Postgres), the delete of content with its chunks (one statement on
 * Postgres; two statements of one transaction on a single-writer engine) and the read-only
 * `REPEATABLE READ` snapshot a stream holds on Postgres.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Dialect } from "../../adapters/contract.ts"

/** What differs between dialects for the content tables. */
export interface ContentDialect {
  readonly dialect: Dialect
  readonly integerType: "INTEGER" | "BIGINT"
  readonly bytesType: "BLOB" | "BYTEA"
  /** SQL expression for the larger of two integer expressions. */
  readonly greatest: (left: string, right: string) => string
  /** The n-th (1-based) positional placeholder of `sql.unsafe`. */
  readonly placeholder: (position: number) => string
  /** Suffix of the sweep's tenant claim subquery: row locks skipping tenants another pass holds. */
  readonly claimLock: string
  /** Whether one statement can delete content rows and their chunks together (a data-modifying CTE). */
  readonly deleteInOneStatement: boolean
  /** Whether reads may hold a snapshot transaction on a reserved connection (independent connections). */
  readonly snapshotStreams: boolean
}

const sqlite: ContentDialect = {
  dialect: "sqlite",
  integerType: "INTEGER",
  bytesType: "BLOB",
  greatest: (left, right) => `MAX(${left}, ${right})`,
  placeholder: () => "?",
  claimLock: "",
  deleteInOneStatement: false,
  snapshotStreams: false
}

const postgres: ContentDialect = {
  dialect: "postgres",
  integerType: "BIGINT",
  bytesType: "BYTEA",
  greatest: (left, right) => `GREATEST(${left}, ${right})`,
  placeholder: (position) => `$${position}`,
  claimLock: "FOR UPDATE SKIP LOCKED",
  deleteInOneStatement: true,
  snapshotStreams: true
}

/** The dialect description for `dialect`; `singleConnection` turns off held snapshots (PGlite). */
export const contentDialect = (dialect: Dialect, singleConnection: boolean): ContentDialect =>
  dialect === "sqlite" ? sqlite : { ...postgres, snapshotStreams: !singleConnection }

/** Opens a read-only REPEATABLE READ snapshot on a reserved connection (Postgres); ends with the scope. */
export const openSnapshot = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const connection = yield* sql.reserve
    const onSnapshot = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, sql.transactionService, [connection, 0])
    yield* Effect.acquireRelease(
      onSnapshot(sql.unsafe("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")),
      () => onSnapshot(sql.unsafe("ROLLBACK")).pipe(Effect.ignore)
    )
    return onSnapshot
  })

/**
 * Reads an integer column value: drivers return numbers, bigints or strings (Postgres BIGINT).
 * Throws on a non-integer, which would mean a corrupted row.
 */
export const readInteger = (value: unknown): number => {
  const n = typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : Number(String(value))
  if (!Number.isSafeInteger(n)) throw new RangeError(`expected a safe integer column value, got ${String(value)}`)
  return n
}

/** Reads a bytes column value (Uint8Array, Buffer or ArrayBuffer, by driver) as a fresh Uint8Array. */
export const readBytes = (value: unknown): Uint8Array => {
  if (value instanceof Uint8Array) return Uint8Array.from(value)
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0))
  throw new TypeError(`expected a bytes column value, got ${typeof value}`)
}

/** Runs an effect on an open snapshot's connection. */
export type OnSnapshot = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
