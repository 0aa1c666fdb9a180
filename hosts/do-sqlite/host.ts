/**
 * The `do-sqlite` adapter seen from Node (the CLI): Durable Object SQLite lives inside workerd, so
 * this side bundles the conformance worker (`workerEntry.ts`) with esbuild, starts it in Miniflare
 * with a SQLite-backed Durable Object namespace, and hands whole property runs to the object
 * (`StorageAdapter.host`). The runner delegates to `host` whenever it is present; `open()` from Node
 * is an error that says so. Miniflare stops when the scope that made the adapter closes.
 */
import { build } from "esbuild"
import { Miniflare, convertV4MiniflareOptions } from "miniflare"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import type { Scope } from "effect"
import type { ExecutionTrace } from "../../harness/Property.ts"
import type { PropertyRun } from "../../harness/RunResult.ts"
import type { AdapterDefinition, AdapterFingerprint, HostedRunRequest, HostedScenarioRequest, PropertyHost, StorageAdapter } from "../../adapters/contract.ts"
import { AdapterError } from "../../adapters/contract.ts"
import { DO_SQLITE_ADAPTER_NAME, doSqliteCapabilities } from "../../adapters/do-sqlite/adapter.ts"
import { decodeHostedError } from "./hostedErrors.ts"
import { CONFORMANCE_BINDING } from "./workerRouting.ts"

/** Compatibility date of the hosted worker: not newer than the bundled workerd supports (same as test/workerd/wrangler.jsonc). */
export const DO_SQLITE_COMPATIBILITY_DATE = "2026-11-01"

/** Origin of requests dispatched to the hosted worker (Miniflare routes every URL to it). */
const HOST_ORIGIN = "http://do-sqlite.conformance"

/** How long the host was busy getting ready, in wall-clock milliseconds. */
export interface DoSqliteHostTimings {
  /** esbuild bundling of the worker. */
  readonly bundleMs: number
  /** Miniflare construction until `ready` (workerd process started and listening). */
  readonly startMs: number
}

/** A running workerd with the conformance object, valid until its scope closes. */
export interface DoSqliteHost extends PropertyHost {
  /** The fingerprint reported by the object (workerd version included). */
  readonly fingerprint: Effect.Effect<AdapterFingerprint, AdapterError>
  /** Same as `runProperty`: one property run inside the object. */
  readonly runPropertyRemote: (request: HostedRunRequest) => Effect.Effect<PropertyRun, AdapterError>
  /** One scenario on a fresh database inside the object (replay). */
  readonly executeScenario: (request: HostedScenarioRequest) => Effect.Effect<ExecutionTrace, AdapterError>
  readonly timings: DoSqliteHostTimings
}

const hostError = (message: string, hint: string, cause?: unknown) =>
  new AdapterError({ adapter: DO_SQLITE_ADAPTER_NAME, message, hint, cause })

const requireHere = createRequire(import.meta.url)

/** The installed workerd version (the package Miniflare runs), or undefined when it cannot be read. */
export const installedWorkerdVersion = (): string | undefined => {
  try {
    const manifest: unknown = requireHere("workerd/package.json")
    const version = (manifest as { readonly version?: unknown }).version
    return typeof version === "string" ? version : undefined
  } catch {
    return undefined
  }
}

/** The shipped worker entry: the conformance object over the suite's registry. */
export const DEFAULT_WORKER_ENTRY_PATH = fileURLToPath(new URL("./workerEntry.ts", import.meta.url))

/** Where `registerHostedSuites` lives, for the generated entry that bundles extra suites. */
const HOSTED_SUITES_PATH = fileURLToPath(new URL("./hostedSuites.ts", import.meta.url))

/**
 * A generated entry module: re-exports `entryPath` and registers the suites of `extraSuitesModule`
 * in the conformance object (`suitesOfModule` in `hostedSuites.ts`).
 */
const entryWithExtraSuites = (entryPath: string, extraSuitesModule: string): string =>
  [
    `export * from ${JSON.stringify(entryPath)}`,
    `export { default } from ${JSON.stringify(entryPath)}`,
    `import { registerHostedSuites, suitesOfModule } from ${JSON.stringify(HOSTED_SUITES_PATH)}`,
    `import * as extraModule from ${JSON.stringify(extraSuitesModule)}`,
    `registerHostedSuites(suitesOfModule(extraModule, ${JSON.stringify(extraSuitesModule)}))`
  ].join("\n")

/**
 * Bundles a worker entry (default `workerEntry.ts`) and everything it imports (suite, runner, effect,
 * fast-check) into one ES module. An entry exports `ConformanceObject` and, as default, `conformanceFetchHandler`.
 * With `extraSuitesModule` (a path to a module exporting `suites: SubjectSuite[]`), those suites are
 * bundled in too, so the object runs properties bound to their implementations.
 */
export const bundleConformanceWorker = (
  entryPath: string = DEFAULT_WORKER_ENTRY_PATH,
  extraSuitesModule?: string
): Effect.Effect<string, AdapterError> => Effect.tryPromise({
  try: async () => {
    const result = await build({
      ...(extraSuitesModule === undefined
        ? { entryPoints: [entryPath] }
        : { stdin: { contents: entryWithExtraSuites(entryPath, extraSuitesModule), resolveDir: process.cwd(), sourcefile: "conformance-entry.ts", loader: "ts" as const } }),
      bundle: true,
      write: false,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      conditions: ["workerd", "worker", "import", "default"],
      mainFields: ["module", "main"],
      external: ["cloudflare:*", "node:*"],
      logLevel: "silent"
    })
    const output = result.outputFiles[0]
    if (output === undefined) throw new Error("esbuild produced no output")
    return output.text
  },
  catch: (cause) =>
    hostError(
      `could not bundle the do-sqlite conformance worker: ${cause instanceof Error ? cause.message : String(cause)}`,
      `fix the reported import error; the worker bundles ${entryPath}${extraSuitesModule === undefined ? "" : ` and ${extraSuitesModule}`} and what they import`,
      cause
    )
})

const measured = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<readonly [A, number], E, R> =>
  Effect.suspend(() => {
    const startedMs = performance.now()
    return Effect.map(effect, (value) => [value, Math.round(performance.now() - startedMs)] as const)
  })

const readJson = async (response: { readonly status: number; json(): Promise<unknown> }): Promise<unknown> => {
  const body = await response.json()
  if (response.status !== 200) {
    const message = typeof body === "object" && body !== null && "message" in body ? String(body.message) : JSON.stringify(body)
    throw new HostedFailure(message)
  }
  return body
}

/** A hint for failures the object did not explain itself (workerd reset or broke the object). */
const fallbackHint = (message: string): string =>
  message.includes("Durable Object was reset")
    ? "workerd reset the object (e.g. a deferred foreign key left violated outside a transaction); the run's result is lost, the next run gets a fresh object"
    : message.includes("internal error")
    ? "workerd broke the object (see workerd's log for the reference); the next run gets a fresh object"
    : "rerun with --verbose for the stack"

/** A failure the object reported (its message carries a hint), as opposed to a transport failure. */
class HostedFailure extends Error {}

/** Options of `startDoSqliteHost`. */
export interface DoSqliteHostOptions {
  /** Worker entry to bundle (default `DEFAULT_WORKER_ENTRY_PATH`); tests pass one with their own properties. */
  readonly workerEntryPath?: string
  /**
   * Absolute path of a module exporting `suites: SubjectSuite[]` bound to other implementations
   * (third-party or known-bad), or default-exporting an alarms implementation or binding (what
   * `--implementation` takes); bundled into the worker so runs may name those implementations.
   */
  readonly extraSuitesModule?: string
}

/** Starts workerd through Miniflare with the conformance worker; stops it when the scope closes. */
export const startDoSqliteHost = (options: DoSqliteHostOptions = {}): Effect.Effect<DoSqliteHost, AdapterError, Scope.Scope> => Effect.gen(function*() {
  const [script, bundleMs] = yield* measured(bundleConformanceWorker(options.workerEntryPath, options.extraSuitesModule))
  const workerdVersion = installedWorkerdVersion()
  const [miniflare, startMs] = yield* measured(Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const instance = new Miniflare(convertV4MiniflareOptions({
          modules: [{ type: "ESModule", path: "conformance-worker.mjs", contents: script }],
          compatibilityDate: DO_SQLITE_COMPATIBILITY_DATE,
          compatibilityFlags: ["nodejs_compat"],
          durableObjects: { [CONFORMANCE_BINDING]: { className: "ConformanceObject", useSQLite: true } },
          bindings: workerdVersion === undefined ? {} : { WORKERD_VERSION: workerdVersion }
        }))
        try {
          await instance.ready
        } catch (error) {
          await instance.dispose().catch(() => undefined)
          throw error
        }
        return instance
      },
      catch: (cause) =>
        hostError(
          `could not start workerd through Miniflare: ${cause instanceof Error ? cause.message : String(cause)}`,
          "check that the workerd binary was installed (npm ci runs its install script) and that loopback ports are free",
          cause
        )
    }),
    (instance) => Effect.promise(() => instance.dispose().catch(() => undefined))
  ))

  const call = <A>(what: string, path: string, init: { method: string; body?: string }): Effect.Effect<A, AdapterError> =>
    Effect.tryPromise({
      try: async () => {
        const response = await miniflare.dispatchFetch(`${HOST_ORIGIN}${path}`, {
          method: init.method,
          headers: { "content-type": "application/json" },
          ...(init.body === undefined ? {} : { body: init.body })
        })
        return await readJson(response) as A
      },
      catch: (cause) => {
        if (cause instanceof HostedFailure) {
          const { message, hint } = decodeHostedError(cause.message, fallbackHint(cause.message))
          return hostError(`${what}: ${message}`, hint, cause)
        }
        return hostError(
          `${what}: workerd did not answer: ${cause instanceof Error ? cause.message : String(cause)}`,
          "workerd may have crashed; rerun with --verbose",
          cause
        )
      }
    })

  const runProperty = (request: HostedRunRequest) =>
    call<PropertyRun>(`running ${request.propertyId} in workerd`, "/run", { method: "POST", body: JSON.stringify(request) })

  const executeScenario = (request: HostedScenarioRequest) =>
    call<ExecutionTrace>(`executing a scenario of ${request.propertyId} in workerd`, "/execute", { method: "POST", body: JSON.stringify(request) })

  return {
    fingerprint: call<AdapterFingerprint>("reading the do-sqlite fingerprint", "/fingerprint", { method: "GET" }),
    runProperty,
    runPropertyRemote: runProperty,
    executeScenario,
    timings: { bundleMs, startMs }
  }
})

/** Builds the Node-side `StorageAdapter`: capabilities and fingerprint from workerd, runs through `host`. */
export const makeHostedDoSqliteAdapter = (options: DoSqliteHostOptions = {}): Effect.Effect<StorageAdapter, AdapterError, Scope.Scope> => Effect.map(
  startDoSqliteHost(options),
  (host): StorageAdapter => ({
    name: DO_SQLITE_ADAPTER_NAME,
    dialect: "sqlite",
    capabilities: doSqliteCapabilities,
    fingerprint: host.fingerprint,
    open: () =>
      Effect.fail(hostError(
        "do-sqlite databases live inside workerd; run properties through the host",
        "use adapter.host.runProperty({ propertyId, seed, runs }) (the runner does this when `host` is present)"
      )),
    host
  })
)

/**
 * A `do-sqlite` adapter definition; `extraSuitesModule` bundles more suites into the worker (e.g.
 * the known-bad alarms implementations), `workerEntryPath` replaces the worker entry.
 */
export const makeDoSqliteAdapterDefinition = (options: DoSqliteHostOptions = {}): AdapterDefinition => ({
  name: DO_SQLITE_ADAPTER_NAME,
  description: "Cloudflare Durable Object SQLite in real workerd (Miniflare); native platform alarm",
  make: makeHostedDoSqliteAdapter(options)
})

/** The built-in `do-sqlite` adapter definition, for the CLI and `cli/adapterRegistry.ts`. */
export const doSqliteAdapter: AdapterDefinition = makeDoSqliteAdapterDefinition()
