/**
 * The child process of an isolated adapter (`cli/isolation.ts`): it imports the vendor's adapter
 * module (and the `--implementation` module, if any), makes the adapter, runs the properties the CLI
 * asks for with the shared runner, and closes the adapter, answering each request over IPC. It never
 * prints on stdout; the CLI kills it when it stops answering.
 *
 * Inside, the runner's own deadlines end a waiting hang (an interruptible or uninterruptible
 * `Effect.never`) as a normal `error` run; after such a hang the child ends the adapter's remaining
 * properties at once (`notRunAfterHang`). What only the CLI can end is code that never yields.
 */
import { Cause, Effect, Exit, Scope } from "effect"
import type { AdapterDefinition, StorageAdapter } from "../adapters/contract.ts"
import { notRunAfterHang } from "../harness/Conformance.ts"
import type { AdapterHang } from "../harness/Deadline.ts"
import type { SubjectSuite } from "../harness/Suite.ts"
import { missingCapabilities, runProperty } from "../harness/Runner.ts"
import { suites } from "../properties/registry.ts"
import { loadAdapterModule, loadBuiltInAdapter, looksLikeModulePath } from "./adapterRegistry.ts"
import { bindSuites, loadImplementationModule } from "./implementation.ts"
import { type ChildAnswer, encodeError, type FromChild, type ToChild, type WireRunRequest } from "./isolationProtocol.ts"

/** What the child holds between requests. */
interface ChildState {
  definition?: AdapterDefinition
  suites: ReadonlyArray<SubjectSuite>
  scope?: Scope.Closeable
  adapter?: StorageAdapter
  hung?: AdapterHang
}

const state: ChildState = { suites }

const send = (message: FromChild): void => {
  try {
    process.send?.(message)
  } catch (error) {
    // Not serializable as JSON (a BigInt in a result): answer with the reason rather than not at all.
    process.send?.({ type: "failed", error: encodeError(error) } satisfies FromChild)
  }
}

const failed = (error: unknown): ChildAnswer => ({ type: "failed", error: encodeError(error) })

const notReady = (what: string): ChildAnswer =>
  failed({ _tag: "AdapterError", message: `the adapter process got "${what}" before the adapter was ready`, hint: "this is a bug of durable-conformance; rerun with --verbose and report it" })

const load = (message: Extract<ToChild, { type: "load" }>) =>
  Effect.gen(function*() {
    // A module path is a vendor's adapter; a name is a built-in `run` isolated to use another core.
    const definition = looksLikeModulePath(message.specifier)
      ? yield* loadAdapterModule(message.specifier, message.cwd)
      : yield* loadBuiltInAdapter(message.specifier)
    const binding = message.implementation === undefined ? undefined : yield* loadImplementationModule(message.implementation, message.cwd)
    state.definition = definition
    state.suites = binding === undefined ? suites : bindSuites(suites, binding)
    return { type: "loaded", name: definition.name, description: definition.description } satisfies ChildAnswer
  })

const make = (definition: AdapterDefinition) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const made = yield* Effect.exit(Scope.provide(scope)(Effect.flatMap(definition.make, (adapter) => Effect.map(adapter.fingerprint, (fingerprint) => ({ adapter, fingerprint })))))
    if (Exit.isFailure(made)) {
      yield* Scope.close(scope, made)
      return failed(Cause.squash(made.cause))
    }
    const { adapter, fingerprint } = made.value
    Object.assign(state, { scope, adapter, hung: undefined })
    const answer: ChildAnswer = { type: "made", name: adapter.name, dialect: adapter.dialect, capabilities: adapter.capabilities, fingerprint }
    return answer
  })

const run = (adapter: StorageAdapter, request: WireRunRequest) =>
  Effect.gen(function*() {
    const property = state.suites.flatMap((suite) => suite.properties)
      .find((candidate) => candidate.id === request.propertyId && (candidate.implementation ?? "reference") === request.implementation)
    if (property === undefined) return notReady(`run ${request.propertyId}`)
    if (state.hung !== undefined && missingCapabilities(property, adapter).length === 0) {
      return { type: "ran", run: notRunAfterHang({ property, adapter: adapter.name, seed: request.seed, runs: request.runs }, state.hung) } satisfies ChildAnswer
    }
    const result = yield* runProperty({
      property,
      adapter,
      seed: request.seed,
      runs: request.runs,
      ...(request.timeLimitMs === undefined ? {} : { timeLimitMs: request.timeLimitMs }),
      ...(request.runTimeoutMs === undefined ? {} : { runTimeoutMs: request.runTimeoutMs }),
      ...(request.stopAfterFailures === undefined ? {} : { stopAfterFailures: request.stopAfterFailures }),
      ...(request.checkDeterminism === true ? { checkDeterminism: true } : {}),
      onProgress: (progress) => send({ type: "progress", progress }),
      onPhase: (phase) => send({ type: "phase", phase }),
      onHang: (hang) => void (state.hung ??= hang)
    })
    return { type: "ran", run: result } satisfies ChildAnswer
  })

const close = (scope: Scope.Closeable) =>
  Effect.gen(function*() {
    Object.assign(state, { scope: undefined, adapter: undefined })
    yield* Scope.close(scope, Exit.void)
    return { type: "closed" } satisfies ChildAnswer
  })

const answer = (message: ToChild): Effect.Effect<ChildAnswer, unknown> => {
  switch (message.type) {
    case "load":
      return load(message)
    case "make":
      return state.definition === undefined ? Effect.succeed(notReady("make")) : make(state.definition)
    case "run":
      return state.adapter === undefined ? Effect.succeed(notReady("run")) : run(state.adapter, message.request)
    case "close":
      return state.scope === undefined ? Effect.succeed({ type: "closed" }) : close(state.scope)
  }
}

process.on("message", (message: ToChild) => {
  void Effect.runPromiseExit(answer(message)).then((exit) => send(Exit.isSuccess(exit) ? exit.value : failed(Cause.squash(exit.cause))))
})
// The CLI went away (it exited or was killed): nothing is left to answer.
process.on("disconnect", () => process.exit(0))
