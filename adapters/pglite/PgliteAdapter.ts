/**
 * The built-in `pglite` storage adapter: Postgres in-process through @electric-sql/pglite.
 *
 * Creating a PGlite instance costs 2.5-4 s on two cores, so `make` creates one instance per adapter
 * (closed with the adapter's scope) and each `open()` creates a fresh schema `dc_run_<n>` in it, points
 * the run's client at it, and drops it with CASCADE when the run's scope closes: a fresh isolated
 * database for ~2 ms. PGlite is one session, so there are no independent connections: runs share it
 * through a semaphore and never interleave inside a transaction.
 */
import { PGlite } from "@electric-sql/pglite"
import { Effect } from "effect"
import type { Scope } from "effect"
import type { SqlClient } from "effect/sql"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import type {
  AdapterCapabilities,
  AdapterDefinition,
  AdapterFingerprint,
  IsolatedDatabase,
  StorageAdapter
} from "../contract.ts"
import { AdapterError } from "../contract.ts"
import { createPlatformAlarmTable, emulatedPlatformAlarm } from "../emulatedPlatformAlarm.ts"
import { makePgliteClient, makePgliteSession, type PgliteSession, quoteIdentifier } from "./PgliteClient.ts"

/** Name used on the command line and in reports. */
export const PGLITE_ADAPTER_NAME = "pglite"

/**
 * What one PGlite instance can do: Postgres SQL including `FOR UPDATE SKIP LOCKED` and savepoints, but
 * a single session (no independent connections, so no concurrent snapshots to speak of).
 */
export const pgliteCapabilities: AdapterCapabilities = {
  independentConnections: false,
  rowLocks: true,
  snapshotReads: false,
  savepoints: true,
  platformAlarm: "emulated"
}

/** Prefix of the per-run schema names. */
export const RUN_SCHEMA_PREFIX = "dc_run_"

const adapterError = (message: string, hint: string, cause?: unknown) =>
  new AdapterError({ adapter: PGLITE_ADAPTER_NAME, message, hint, cause })

const describe = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** The installed PGlite version (its package.json is not exported, so find it next to the entry point). */
const pgliteVersion = (): string => {
  const require = createRequire(import.meta.url)
  let directory = path.dirname(require.resolve("@electric-sql/pglite"))
  for (let depth = 0; depth < 4; depth++) {
    const candidate = path.join(directory, "package.json")
    if (fs.existsSync(candidate)) {
      const manifest = JSON.parse(fs.readFileSync(candidate, "utf8")) as { name?: string; version?: string }
      if (manifest.name === "@electric-sql/pglite" && manifest.version !== undefined) return manifest.version
    }
    directory = path.dirname(directory)
  }
  return "unknown"
}

/** Runs DDL on the session, holding its semaphore (never inside someone's transaction). */
const sessionExec = (session: PgliteSession, sql: string, what: string, hint: string) =>
  session.semaphore.withPermit(
    Effect.tryPromise({
      try: () => session.pg.exec(sql),
      catch: (cause) => adapterError(`PGlite could not ${what}: ${describe(cause)}`, hint, cause)
    })
  )

/** An adapter over an existing session (the instance is owned by the caller). */
export const makePgliteAdapterFromSession = (session: PgliteSession): StorageAdapter => {
  let runCount = 0
  const fingerprint: Effect.Effect<AdapterFingerprint, AdapterError> = session.semaphore.withPermit(
    Effect.tryPromise({
      try: () => session.pg.query<{ server_version: string }>("SHOW server_version"),
      catch: (cause) =>
        adapterError(
          `could not read the server version from PGlite: ${describe(cause)}`,
          "the PGlite instance may be closed; fingerprint the adapter inside the scope that made it"
        )
    })
  ).pipe(
    Effect.map((result): AdapterFingerprint => ({
      name: PGLITE_ADAPTER_NAME,
      adapterVersion: pgliteVersion(),
      engine: "postgres (pglite)",
      engineVersion: result.rows[0]?.server_version ?? "unknown",
      dialect: "postgres",
      capabilities: pgliteCapabilities
    }))
  )

  const open = (): Effect.Effect<IsolatedDatabase, AdapterError, Scope.Scope> =>
    Effect.gen(function*() {
      if (session.pg.closed) {
        return yield* adapterError(
          "the PGlite instance is closed",
          "open databases only inside the scope that made the adapter (AdapterDefinition.make)"
        )
      }
      runCount += 1
      const schema = `${RUN_SCHEMA_PREFIX}${runCount}`
      const quoted = quoteIdentifier(schema)
      yield* Effect.acquireRelease(
        sessionExec(
          session,
          `DROP SCHEMA IF EXISTS ${quoted} CASCADE; CREATE SCHEMA ${quoted}`,
          `create schema ${schema}`,
          "PGlite may be out of memory or closed; restart the run"
        ),
        () =>
          session.pg.closed
            ? Effect.void
            : sessionExec(
              session,
              // Leave the session pointing at the default schema so a dropped one is never current.
              `SET search_path TO public; DROP SCHEMA IF EXISTS ${quoted} CASCADE`,
              `drop schema ${schema}`,
              "a run left the session in a failed transaction; this is a bug in the adapter"
            ).pipe(
              Effect.tap(() => Effect.sync(() => {
                session.currentSchema = "public"
              })),
              Effect.ignore
            )
      )
      const sql: SqlClient.SqlClient = yield* makePgliteClient(session, schema)
      yield* createPlatformAlarmTable(sql).pipe(
        Effect.mapError((cause) =>
          adapterError(
            `could not create the platform alarm table in schema ${schema}: ${cause.message}`,
            "PGlite may be out of memory or closed; restart the run",
            cause
          )
        )
      )
      return { sql, connections: [sql], platformAlarm: emulatedPlatformAlarm(sql) }
    })

  return { name: PGLITE_ADAPTER_NAME, dialect: "postgres", capabilities: pgliteCapabilities, fingerprint, open }
}

/** Creates a PGlite instance for the scope (closed when it closes) and an adapter over it. */
export const makePgliteAdapter: Effect.Effect<StorageAdapter, AdapterError, Scope.Scope> = Effect.acquireRelease(
  Effect.tryPromise({
    try: () => PGlite.create(),
    catch: (cause) =>
      adapterError(
        `could not start PGlite: ${describe(cause)}`,
        "check that @electric-sql/pglite is installed and that the process has ~200 MB of free memory"
      )
  }),
  (pg) => Effect.promise(() => pg.closed ? Promise.resolve() : pg.close())
).pipe(Effect.map((pg) => makePgliteAdapterFromSession(makePgliteSession(pg))))

/** The built-in `pglite` adapter definition. */
export const pgliteAdapter: AdapterDefinition = {
  name: PGLITE_ADAPTER_NAME,
  description:
    "Postgres in-process through PGlite, one instance per adapter and a fresh schema per run (platform alarm emulated in a table)",
  make: makePgliteAdapter
}
