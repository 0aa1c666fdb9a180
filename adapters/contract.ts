/**
 * The public storage adapter contract.
 *
 * A storage adapter binds one storage engine (a SQLite flavour, a Postgres service, a Durable Object
 * host) to the harness: it opens a fresh, isolated database per run as an `effect/sql` `SqlClient`,
 * declares what the engine can do (capabilities), and exposes the single platform alarm slot a
 * Durable Object has (natively on Durable Objects, emulated in a table everywhere else).
 *
 * Vendors implement this interface (see README "Adding an adapter") and certify it with
 * `durable-conformance certify --adapter ./their-adapter.ts`.
 */
import type { Effect, Scope } from "effect"
import { Data } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { ExecutionTrace, Json } from "../harness/Property.ts"
import type { PropertyRun } from "../harness/RunResult.ts"
import type { RunProgress } from "../harness/Runner.ts"

/** The SQL dialect an adapter speaks; subjects keep their dialect differences in one small place keyed by this. */
export type Dialect = "sqlite" | "postgres"

/** How the adapter provides the single Durable Object platform alarm slot. */
export type PlatformAlarmMode = "native" | "emulated"

/**
 * What the engine can do. Requirements that need a capability the adapter lacks are reported
 * not-applicable (naming the capability), never silently skipped.
 */
export interface AdapterCapabilities {
  /** Several connections to the same database whose transactions run truly concurrently. */
  readonly independentConnections: boolean
  /** `SELECT ... FOR UPDATE SKIP LOCKED` row locks. */
  readonly rowLocks: boolean
  /** Each transaction reads from a consistent snapshot while others commit. */
  readonly snapshotReads: boolean
  /** Nested `withTransaction` calls become savepoints (false: nesting is a clear error). */
  readonly savepoints: boolean
  /** The platform alarm slot: the engine's own (`native`) or a table written in the same transaction. */
  readonly platformAlarm: PlatformAlarmMode
}

/** Names of the boolean capabilities, as used in requirement `needs` lists. */
export type CapabilityName = "independentConnections" | "rowLocks" | "snapshotReads" | "savepoints" | "nativePlatformAlarm"

/** Identifies exactly what was certified: adapter and engine, with versions. */
export interface AdapterFingerprint {
  readonly name: string
  readonly adapterVersion: string
  readonly engine: string
  readonly engineVersion: string
  readonly dialect: Dialect
  readonly capabilities: AdapterCapabilities
}

/**
 * The single platform alarm slot of a Durable Object, in epoch milliseconds.
 * Writes made inside a transaction are rolled back with it (true of Durable Objects, and of the
 * emulated table).
 */
export interface PlatformAlarm {
  /** The scheduled alarm time, or null when none is set. */
  readonly get: Effect.Effect<number | null, SqlError>
  /** Sets the alarm time (epoch ms, a safe integer). */
  readonly set: (epochMs: number) => Effect.Effect<void, SqlError>
  /** Removes the alarm. */
  readonly delete: Effect.Effect<void, SqlError>
}

/** Options for opening one isolated database. */
export interface OpenDatabaseOptions {
  /**
   * How many independent connections to open (>= 1). Adapters without independent connections
   * return one connection whatever is asked.
   */
  readonly connections?: number
}

/** One fresh, empty, isolated database, valid until the scope that opened it closes. */
export interface IsolatedDatabase {
  /** The primary client (connection 0). */
  readonly sql: SqlClient.SqlClient
  /**
   * Independent connections to the same database; `connections[0]` is `sql`. Length is the requested
   * count when the adapter has `independentConnections`, else 1.
   */
  readonly connections: ReadonlyArray<SqlClient.SqlClient>
  /** The platform alarm slot of this database. */
  readonly platformAlarm: PlatformAlarm
}

/** A storage binding. Built-ins: `sqlite`, `pglite`, `postgres`, `do-sqlite`. */
export interface StorageAdapter {
  /** Short stable name used on the command line and in reports, e.g. `sqlite`. */
  readonly name: string
  readonly dialect: Dialect
  readonly capabilities: AdapterCapabilities
  /** Reads versions from the live engine. */
  readonly fingerprint: Effect.Effect<AdapterFingerprint, AdapterError>
  /** Opens a fresh isolated database; it is dropped or discarded when the scope closes. */
  readonly open: (options?: OpenDatabaseOptions) => Effect.Effect<IsolatedDatabase, AdapterError, Scope.Scope>
  /**
   * Present when databases live in another runtime (Durable Object SQLite lives inside workerd): the
   * runner then delegates whole property runs to the host instead of opening databases itself.
   */
  readonly host?: PropertyHost
}

/** A request to run one registered property where the adapter's databases live. */
export interface HostedRunRequest {
  readonly propertyId: string
  /** Implementation the property is bound to (`reference` for the shipped one). */
  readonly implementation?: string
  readonly seed: number
  readonly runs: number
  /** Wall-clock budget of the whole property run (verdict `unknown` when it runs out). */
  readonly timeLimitMs?: number
  /** Wall-clock limit of one scenario. */
  readonly runTimeoutMs?: number
  /** Detection measurements only: stop once this many distinct requirements failed (see `runProperty`). */
  readonly stopAfterFailures?: number
  /** Run every scenario twice and fail the run at the first difference (`harness/Determinism.ts`). */
  readonly checkDeterminism?: boolean
  /** Execute only this shard's scenarios (`harness/Shard.ts`: `index` from 1 to `count`). */
  readonly shard?: { readonly index: number; readonly count: number }
  /** Progress of the run, for hosts that can report it while the run goes (not sent over the wire). */
  readonly onProgress?: (progress: RunProgress) => void
}

/** A request to execute one scenario of a registered property (replay) where the databases live. */
export interface HostedScenarioRequest {
  readonly propertyId: string
  readonly implementation: string
  readonly scenario: Json
}

/** Runs registered properties inside the runtime that owns the adapter's databases. */
export interface PropertyHost {
  readonly runProperty: (request: HostedRunRequest) => Effect.Effect<PropertyRun, AdapterError>
  /** Executes one scenario (for replay); optional, replay of hosted adapters needs it. */
  readonly executeScenario?: (request: HostedScenarioRequest) => Effect.Effect<ExecutionTrace, AdapterError>
}

/**
 * How an adapter comes to life: a scoped effect (a server may be started and must stop when the
 * scope closes). A vendor module's default export is one of these or a `StorageAdapter`.
 */
export interface AdapterDefinition {
  readonly name: string
  /** One-line human description for `durable-conformance list`. */
  readonly description: string
  readonly make: Effect.Effect<StorageAdapter, AdapterError, Scope.Scope>
}

/** An adapter could not be built, opened or reached. `hint` says what to do about it. */
export class AdapterError extends Data.TaggedError("AdapterError")<{
  readonly adapter: string
  readonly message: string
  readonly hint: string
  readonly cause?: unknown
}> {}

/** True when the adapter has the named capability. */
export const hasCapability = (capabilities: AdapterCapabilities, name: CapabilityName): boolean =>
  name === "nativePlatformAlarm" ? capabilities.platformAlarm === "native" : capabilities[name]
