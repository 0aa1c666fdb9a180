/**
 * Adapters loaded from a module (`--adapter ./theirs.ts`) run in a child process the CLI can kill.
 *
 * In-process deadlines (`harness/Deadline.ts`) end any hang that waits, even an uninterruptible one,
 * but not code that never yields (a synchronous busy loop), and a vendor's stray handle (a
 * `setInterval` left running) lives as long as its process. So the vendor's module is imported, made,
 * run and closed in a child (`cli/isolationChild.ts`); here it is a `StorageAdapter` whose `host` runs
 * each property there. Every request is watched: `make` and close get the adapter lifecycle limit, a
 * property run must show a sign of life (a phase or progress event) within the run timeout plus
 * `KILL_GRACE_MS`, and a child that misses its deadline is killed (SIGKILL) and reported as a hang in
 * the phase it was in. After a kill the adapter's remaining properties end at once with the same cause.
 *
 * The built-in adapters run in-process (their code only waits on their engines, which the in-process
 * deadlines bound), except those `run` isolates so two adapters checked side by side use two cores
 * (`builtInsToIsolate`): those children are stopped with SIGTERM, so an embedded Postgres server they
 * started is stopped with them.
 */
import { type ChildProcess, fork } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Effect, Scope } from "effect"
import { type AdapterDefinition, AdapterError, type HostedRunRequest, type StorageAdapter } from "../adapters/contract.ts"
import { type AdapterHang, type AdapterPhase, adapterLifecycleTimeoutMs, afterHangMessage, DEFAULT_RUN_TIMEOUT_MS, describeHang, hangError, hangHint } from "../harness/Deadline.ts"
import type { PropertyRun } from "../harness/RunResult.ts"
import { looksLikeModulePath } from "./adapterRegistry.ts"
import { type ImplementationBinding, resolveAdaptersFor } from "./implementation.ts"
import { type ChildAnswer, type ChildEvent, type FromChild, isChildEvent, type ToChild, type WireError } from "./isolationProtocol.ts"
import { UsageError } from "./options.ts"

/**
 * Wall-clock limit for starting the child and importing the adapter module: 60 s. Measured on 2 cores
 * (timing `loadIsolatedAdapter` three times): a child with tsx importing the runner, every property and a sqlite
 * adapter module answers in 2.3 s (load average 2), about 5 s with a load average near 5.
 */
export const LOAD_TIMEOUT_MS = 60_000

/** Time the child gets past the run timeout to report a hang itself before it is killed. */
export const KILL_GRACE_MS = 2_000

/** Most bytes of the child's stderr kept, to explain an unexpected exit. */
const STDERR_TAIL_BYTES = 4_096

/** Where and how the child runs. */
export interface IsolationOptions {
  /** Directory module paths are relative to (the CLI's working directory). */
  readonly cwd: string
  /** Environment of the child (the CLI's). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Absolute path of the `--implementation` module, loaded in the child too. */
  readonly implementation?: string
  readonly runTimeoutMs?: number
  /**
   * The signal that kills the child: SIGKILL (default) for a vendor's module, since a busy loop ignores
   * every other; SIGTERM for a built-in adapter `run` isolated for parallelism, whose code never spins and
   * whose SIGTERM handler stops what it started (an embedded Postgres server would outlive a SIGKILL).
   */
  readonly killSignal?: KillSignal
}

/** How an isolated adapter's child is stopped (see `IsolationOptions.killSignal`). */
export type KillSignal = "SIGKILL" | "SIGTERM"

/** The answer of a request, or why there is none. */
type Outcome = ChildAnswer | { readonly type: "idle" } | { readonly type: "exited"; readonly code: number | null; readonly signal: string | null }

const CHILD_ENTRY = fileURLToPath(new URL("./isolationChild.ts", import.meta.url))
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href

/** Children still alive, with their kill signal: killed when the CLI's process exits whatever the path to it. */
const liveChildren = new Map<ChildProcess, KillSignal>()
let exitHookInstalled = false

const killAllOnExit = (): void => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once("exit", () => {
    for (const [child, signal] of liveChildren) child.kill(signal)
  })
}

/** One child process and the request it is answering. */
class AdapterProcess {
  readonly child: ChildProcess
  /** True while a request has no answer (the child is working, or stuck). */
  inFlight = false
  exited = false
  stderrTail = ""
  readonly killSignal: KillSignal

  constructor(options: IsolationOptions) {
    killAllOnExit()
    const env = Object.fromEntries(Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined))
    this.child = fork(CHILD_ENTRY, [], { cwd: options.cwd, env, execArgv: ["--import", TSX_LOADER], stdio: ["ignore", "ignore", "pipe", "ipc"], serialization: "json" })
    this.killSignal = options.killSignal ?? "SIGKILL"
    liveChildren.set(this.child, this.killSignal)
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES)
    })
    this.child.once("exit", () => {
      this.exited = true
      liveChildren.delete(this.child)
    })
    // Neither the child nor its channel keeps the CLI alive: a deadline timer does while it waits.
    this.child.unref()
    this.child.channel?.unref()
  }

  /** Kills the child at once with its kill signal (SIGKILL unless it runs a built-in adapter). */
  kill(): void {
    if (!this.exited) this.child.kill(this.killSignal)
  }

  /** The last line the child wrote on stderr, for an unexpected exit. */
  lastStderrLine(): string {
    return this.stderrTail.trim().split("\n").pop()?.trim() ?? ""
  }

  /**
   * Sends `message` and waits for its answer; every event restarts the `idleMs` watchdog. `idle` when
   * the child said nothing for `idleMs`, `exited` when it died first. Interrupting the wait leaves the
   * request in flight (`inFlight`), so whoever closes the adapter knows to kill the child.
   */
  request(message: ToChild, idleMs: number, onEvent?: (event: ChildEvent) => void): Effect.Effect<Outcome> {
    return Effect.callback<Outcome>((resume) => {
      if (this.exited) return resume(Effect.succeed({ type: "exited", code: this.child.exitCode, signal: this.child.signalCode }))
      let timer: ReturnType<typeof setTimeout> | undefined
      const cleanup = () => {
        clearTimeout(timer)
        this.child.off("message", onMessage)
        this.child.off("exit", onExit)
      }
      const finish = (outcome: Outcome) => {
        cleanup()
        if (outcome.type !== "idle") this.inFlight = false
        resume(Effect.succeed(outcome))
      }
      const arm = () => {
        clearTimeout(timer)
        timer = setTimeout(() => finish({ type: "idle" }), idleMs)
      }
      const onMessage = (reply: FromChild) => {
        if (!isChildEvent(reply)) return finish(reply)
        arm()
        onEvent?.(reply)
      }
      const onExit = (code: number | null, signal: string | null) => finish({ type: "exited", code, signal })
      this.child.on("message", onMessage)
      this.child.once("exit", onExit)
      this.inFlight = true
      arm()
      this.child.send(message, (error) => error === null ? undefined : finish({ type: "exited", code: this.child.exitCode, signal: this.child.signalCode }))
      return Effect.sync(cleanup)
    })
  }
}

const exitedMessage = (process: AdapterProcess, outcome: Extract<Outcome, { type: "exited" }>, what: string): string => {
  const how = outcome.signal === null ? `with code ${outcome.code}` : `on signal ${outcome.signal}`
  const last = process.lastStderrLine()
  return `the adapter's process exited ${how} ${what}${last === "" ? "" : `; its last words: ${last}`}`
}

const decodeFailure = (adapter: string, error: WireError): AdapterError | UsageError | Error => {
  if (error.tag === "UsageError") return new UsageError({ message: error.message, hint: error.hint ?? "" })
  if (error.tag !== "Defect") return new AdapterError({ adapter, message: error.message, hint: error.hint ?? "" })
  const thrown = new Error(error.message)
  thrown.name = error.name ?? "Error"
  return thrown
}

/** Starts a child and has it import the module; one line (`AdapterError` or `UsageError`) when it cannot. */
const spawnAndLoad = (specifier: string, options: IsolationOptions) =>
  Effect.gen(function*() {
    const child = new AdapterProcess(options)
    const load: ToChild = { type: "load", specifier, cwd: options.cwd, ...(options.implementation === undefined ? {} : { implementation: options.implementation }) }
    const outcome = yield* child.request(load, LOAD_TIMEOUT_MS).pipe(Effect.onInterrupt(() => Effect.sync(() => child.kill())))
    if (outcome.type === "loaded") return { process: child, name: outcome.name, description: outcome.description }
    child.kill()
    if (outcome.type === "failed") {
      const error = decodeFailure(specifier, outcome.error)
      return yield* Effect.fail(error instanceof Error && !(error instanceof AdapterError) && !(error instanceof UsageError)
        ? new AdapterError({ adapter: specifier, message: `adapter module ${specifier} failed to load: ${error.name}: ${error.message}`, hint: "fix the error in the module" })
        : error)
    }
    const message = outcome.type === "idle"
      ? `adapter module ${specifier} did not finish loading within ${LOAD_TIMEOUT_MS} ms`
      : outcome.type === "exited"
      ? exitedMessage(child, outcome, `while loading ${specifier}`)
      : `the adapter process answered "${outcome.type}" to loading ${specifier}`
    return yield* new AdapterError({ adapter: specifier, message, hint: "look for work at the top level of the module that never ends, or a process.exit there" })
  })

/** The child of one isolated adapter: replaced when it was killed or died. */
interface Slot {
  current: AdapterProcess
  /** Set when the child was killed for a hang; cleared by the next `make`. */
  hung?: AdapterHang | undefined
}

/** Closes the made adapter in the child within `lifecycleMs`; a child that is stuck or misses it is killed. */
const closeInChild = (slot: Slot, name: string, lifecycleMs: number) =>
  Effect.gen(function*() {
    const child = slot.current
    if (child.exited) return
    // A request still in flight (a make or a property run abandoned after its deadline): nothing to wait for.
    if (child.inFlight) return child.kill()
    const outcome = yield* child.request({ type: "close" }, lifecycleMs)
    if (outcome.type === "closed") return
    child.kill()
    if (outcome.type === "idle") return yield* Effect.die(hangError({ adapter: name, phase: "close", timeoutMs: lifecycleMs }))
    if (outcome.type === "failed") return yield* Effect.die(decodeFailure(name, outcome.error))
    if (outcome.type === "exited") return yield* Effect.die(new AdapterError({ adapter: name, message: exitedMessage(child, outcome, "while closing"), hint: "the adapter's finalizers must not exit the process" }))
  })

/** Kills the child for a hang in `phase` of a property run and remembers it for the adapter's remaining properties. */
const killForHang = (slot: Slot, hang: AdapterHang): AdapterError => {
  slot.current.kill()
  slot.hung = hang
  return new AdapterError({ adapter: hang.adapter, message: `${describeHang(hang)}; its process was stopped`, hint: hangHint(hang.phase) })
}

/** The `host` of an isolated adapter: each property runs in the child under the watchdog. */
const childHost = (slot: Slot, name: string) => ({
  runProperty: (request: HostedRunRequest): Effect.Effect<PropertyRun, AdapterError> =>
    Effect.gen(function*() {
      if (slot.hung !== undefined) return yield* new AdapterError({ adapter: name, message: afterHangMessage(slot.hung), hint: hangHint(slot.hung.phase) })
      const runTimeoutMs = request.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS
      const { onProgress: _, ...wire } = request
      let phase: AdapterPhase = "scenario"
      const outcome = yield* slot.current.request({ type: "run", request: { ...wire, implementation: request.implementation ?? "reference" } }, runTimeoutMs + KILL_GRACE_MS, (event) => {
        if (event.type === "phase") phase = event.phase
        else request.onProgress?.(event.progress)
      })
      switch (outcome.type) {
        case "ran":
          return outcome.run
        case "idle":
          return yield* killForHang(slot, { adapter: name, phase, timeoutMs: runTimeoutMs, propertyId: request.propertyId })
        case "exited":
          return yield* new AdapterError({ adapter: name, message: exitedMessage(slot.current, outcome, `while running ${request.propertyId}`), hint: "the adapter must not exit the process (or crash it); its last words say why" })
        default: {
          const error = outcome.type === "failed" ? decodeFailure(name, outcome.error) : new Error(`unexpected answer ${outcome.type}`)
          return yield* new AdapterError({ adapter: name, message: error.message, hint: error instanceof AdapterError ? error.hint : "rerun with --verbose" })
        }
      }
    })
})

/** `make` of an isolated adapter: a fresh child when the last one is gone, then make it there within the lifecycle limit. */
const makeInChild = (slot: Slot, specifier: string, name: string, options: IsolationOptions): AdapterDefinition["make"] =>
  Effect.gen(function*() {
    const lifecycleMs = adapterLifecycleTimeoutMs(options.runTimeoutMs)
    if (slot.current.exited) slot.current = (yield* spawnAndLoad(specifier, options)).process
    slot.hung = undefined
    yield* Effect.addFinalizer(() => closeInChild(slot, name, lifecycleMs))
    const outcome = yield* slot.current.request({ type: "make" }, lifecycleMs)
    switch (outcome.type) {
      case "made": {
        const adapter: StorageAdapter = {
          name: outcome.name,
          dialect: outcome.dialect,
          capabilities: outcome.capabilities,
          fingerprint: Effect.succeed(outcome.fingerprint),
          open: () => Effect.fail(new AdapterError({ adapter: name, message: "this adapter runs in its own process; its databases are opened there", hint: "run properties through adapter.host" })),
          host: childHost(slot, name)
        }
        return adapter
      }
      case "idle":
        slot.current.kill()
        return yield* Effect.die(hangError({ adapter: name, phase: "make", timeoutMs: lifecycleMs }))
      case "failed": {
        const error = decodeFailure(name, outcome.error)
        return yield* (error instanceof AdapterError ? Effect.fail(error) : Effect.die(error))
      }
      case "exited":
        return yield* new AdapterError({ adapter: name, message: exitedMessage(slot.current, outcome, "while making the adapter"), hint: "make must not exit the process" })
      default:
        slot.current.kill()
        return yield* new AdapterError({ adapter: name, message: `the adapter process answered "${outcome.type}" to make`, hint: "this is a bug of durable-conformance; report it" })
    }
  }).pipe(Effect.mapError((error) => (error instanceof UsageError ? new AdapterError({ adapter: name, message: error.message, hint: error.hint }) : error)))

/**
 * Loads the adapter module `specifier` in a child process and returns its definition: `make` makes
 * it there, and its properties run there. The child is killed when the calling scope closes (and,
 * whatever happens, when the CLI's process exits). Loading problems are one-line errors, as for an
 * in-process module.
 */
export const loadIsolatedAdapter = (specifier: string, options: IsolationOptions): Effect.Effect<AdapterDefinition, AdapterError | UsageError, Scope.Scope> =>
  Effect.gen(function*() {
    const loaded = yield* Effect.acquireRelease(spawnAndLoad(specifier, options), (loaded) => Effect.sync(() => loaded.process.kill()))
    const slot: Slot = { current: loaded.process }
    yield* Effect.addFinalizer(() => Effect.sync(() => slot.current.kill()))
    return { name: loaded.name, description: loaded.description, make: makeInChild(slot, specifier, loaded.name, options) }
  })

/**
 * Resolves `--adapter` values, in the order given: module paths each in a child process of its own
 * (`loadIsolatedAdapter`); built-in names in-process (`resolveAdaptersFor`), except those in
 * `isolateBuiltIns`, which get a child too (so two adapters checked side by side use two cores). The
 * children are killed when the calling scope closes.
 */
export const resolveIsolatedAdapters = (
  specifiers: ReadonlyArray<string>,
  binding: ImplementationBinding | undefined,
  options: Omit<IsolationOptions, "implementation">,
  isolateBuiltIns: ReadonlySet<string> = new Set()
): Effect.Effect<ReadonlyArray<AdapterDefinition>, AdapterError | UsageError, Scope.Scope> =>
  Effect.forEach(specifiers, (specifier) =>
    looksLikeModulePath(specifier)
      ? loadIsolatedAdapter(specifier, binding === undefined ? options : { ...options, implementation: binding.modulePath })
      : isolateBuiltIns.has(specifier)
      ? loadIsolatedAdapter(specifier, { ...options, killSignal: "SIGTERM", ...(binding === undefined ? {} : { implementation: binding.modulePath }) })
      : Effect.map(resolveAdaptersFor([specifier], binding), (definitions) => definitions[0]!))
