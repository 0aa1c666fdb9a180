/**
 * `execute` of the pool properties: a fresh bounded pool of the scenario's size over the property's
 * Postgres database, every session through the run's wire tap, driven command by command beside the
 * pool model through the generic model-based loop (`harness/ModelBased.ts`). After each command the
 * harness waits until the system is quiet (no statement awaiting its answer, fibers still), then
 * compares every checkout's status, its statements on the wire, notify's session and the session
 * count, against the first prediction it agrees with where the rules allow more than one
 * (`channelCheckAlternatives`). A closing probe interrupts everything alive and checks that every slot came back. The
 * scenario's surface probes (`surface.ts`) run first, each as a step of its own, and the model starts
 * after them.
 */
import { Effect, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { firstConsistent } from "../../harness/Alternatives.ts"
import { type Check, type ExecutedStep, type ModelBasedSubject, runModelBased } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import type { ExecutionEnvironment, ExecutionTrace, Json } from "../../harness/Property.ts"
import type { PostgresWireTap } from "../../harness/PostgresWireTap.ts"
import { awaitCondition, awaitQuiet } from "../../harness/Quiescence.ts"
import { advanceToMs, nowMs } from "../../harness/VirtualClock.ts"
import { HarnessError } from "../../harness/errors.ts"
import {
  channelCheckAlternatives,
  observableOps,
  plainAcquire,
  plainBorrow,
  type PoolCommand,
  poolModel,
  type PoolModelState,
  type PoolOperation,
  poolSituations,
  probeOperation,
  resolveCommand
} from "../../models/pool/index.ts"
import { poolAttributor } from "../../spec/pool.ts"
import { POOL_HANDED_OVER_HOOK, type PoolImplementation } from "../../subjects/pool/api.ts"
import { poolChecks, statementOwner, statementsByOwner } from "./checks.ts"
import { tappedPoolConfig } from "./connection.ts"
import { coveredBy } from "./coverage.ts"
import { makePoolDriver, type PoolDriver } from "./driver.ts"
import type { PoolScenario } from "./scenario.ts"
import { surfaceStep } from "./surface.ts"
import type { SurfaceContext } from "./surfaceRuntime.ts"
import type { SurfaceProbe } from "./surfaceScenario.ts"
import { snakeToCamel } from "./surfaceSmoke.ts"

/** A surface probe run first, a scenario command, or the closing probe the harness appends. */
type StepCommand = { readonly op: "surface"; readonly probe: SurfaceProbe } | PoolCommand | { readonly op: "probe" }

/** Bound on commands executed from one scenario (generators stay far below it). */
export const MAX_EXECUTED_COMMANDS = 64

const harnessError = (what: string) => (cause: unknown) =>
  new HarnessError({
    message: `pool property: ${what} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
    hint: "the pool could not reach the adapter's Postgres server; check the adapter",
    cause
  })

/** Due retry times of the model in (now, toMs], in order: the harness moves the clock to each in turn. */
const retryTimes = (state: PoolModelState, toMs: number): ReadonlyArray<number> =>
  [...new Set(Object.values(state.ops).flatMap((op) => (op.status === "pending" && op.retryAtMs !== null && op.retryAtMs <= toMs ? [op.retryAtMs] : [])))]
    .sort((a, b) => a - b)

/**
 * Runs `send` with the server's reply to the statement `select` picks held on the wire; once the
 * reply is held (the statement reached the server, the answer the tap but not the client), interrupts
 * checkout `id`, waits until the interruption has struck (the system is quiet again: the caller waits
 * for an answer that does not come), lets the reply through, and observes whether the interrupted
 * fiber ended (never waiting on it).
 * When the statement is never sent (the implementation did something else) the hold is dropped and the
 * checks say what happened.
 */
const interruptInFlight = (tap: PostgresWireTap, driver: PoolDriver, quiet: Effect.Effect<void, HarnessError>, select: Parameters<PostgresWireTap["holdReply"]>[0], send: Effect.Effect<void>, id: string) =>
  Effect.gen(function*() {
    const hold = tap.holdReply(select)
    yield* send
    yield* Effect.ensuring(
      Effect.gen(function*() {
        yield* quiet
        if (!hold.held()) return
        yield* driver.signalInterrupt(id)
        yield* quiet
        hold.release()
        yield* driver.observeInterrupted(id)
      }),
      Effect.sync(() => hold.release())
    )
  })

/** Runs one resolved operation on the implementation (the model ran it already). */
const perform = (driver: PoolDriver, operation: PoolOperation, before: PoolModelState, quiet: Effect.Effect<void, HarnessError>, tap: PostgresWireTap) =>
  Effect.gen(function*() {
    switch (operation.op) {
      case "start":
        return yield* driver.start(operation.spec)
      case "interruptStatement":
        return yield* interruptInFlight(tap, driver, quiet, (statement) => statementOwner(statement) === operation.spec.id, driver.start(operation.spec), operation.spec.id)
      case "interruptCommit": {
        const session = tap.statements().find((statement) => statementOwner(statement) === operation.id)?.session
        const isCommit = (statement: { readonly session: number; readonly text: string }) => statement.session === session && /^\s*COMMIT\b/i.test(statement.text)
        return yield* interruptInFlight(tap, driver, quiet, isCommit, driver.release(operation.id, null), operation.id)
      }
      case "release":
        return yield* driver.release(operation.id, operation.reborrow === null ? null : plainBorrow(operation.reborrow))
      case "interrupt":
        return yield* driver.interrupt(operation.id)
      case "handoverInterrupt":
        return yield* driver.releaseAndInterrupt(operation.holder, operation.waiter)
      case "flood":
        for (const id of operation.ids) yield* driver.start(plainAcquire(id))
        return
      case "drain":
        for (const id of operation.ids) yield* driver.interrupt(id)
        return
      case "advance":
        for (const atMs of retryTimes(before, operation.toMs)) {
          yield* advanceToMs(atMs)
          yield* quiet
        }
        return yield* advanceToMs(operation.toMs)
      case "probe":
        for (const id of operation.interrupt) yield* driver.interrupt(id)
        yield* quiet
        for (const id of operation.ids) yield* driver.start(plainAcquire(id))
        return
    }
  })

/** One allowed prediction of a step: the operation the model took, the state after it, its checks. */
interface Prediction {
  readonly operation: PoolOperation
  readonly state: PoolModelState
  readonly checks: ReadonlyArray<Check>
}

/**
 * The prediction of a step the implementation agrees with: each operation the rules allow for
 * `operation` (`channelCheckAlternatives`, the canonical one first, whose state is `canonical`) is
 * stepped from `before` and checked by `observe`; the first whose checks all pass, else the canonical.
 */
const judged = (before: PoolModelState, operation: PoolOperation, canonical: PoolModelState, observe: (state: PoolModelState) => ReadonlyArray<Check>): Prediction =>
  firstConsistent(channelCheckAlternatives(operation), (alternative) => {
    const state = alternative === operation ? canonical : poolModel.step(before, alternative).state
    return { operation: alternative, state, checks: observe(state) }
  })

/** Whether every listener's queue delivered at least the notifications the model says it must have. */
const listenersCaughtUp = (state: PoolModelState, driver: PoolDriver): boolean =>
  state.order.every((id) => {
    const op = state.ops[id]!
    return op.spec.kind !== "listen" || driver.seen(id).received.length >= op.received.filter((delivery) => delivery.sure).length
  })

/** A compact view of every checkout: `status[/failure]#statements`, and `~n` notifications received by a listener. */
const compact = (view: Record<string, { readonly status: string; readonly failure: string | null; readonly statements: number; readonly received?: number }>): Json =>
  Object.fromEntries(Object.entries(view).map(([id, op]) => [id, `${op.status}${op.failure === null ? "" : `/${op.failure}`}#${op.statements}${op.received === undefined ? "" : `~${op.received}`}`]))

/** The model's compact view: every checkout as observed, listeners with the notifications they must have. */
const modelView = (state: PoolModelState) =>
  Object.fromEntries(Object.entries(observableOps(state)).map(([id, op]) => [id, state.ops[id]!.spec.kind === "listen" ? { ...op, received: state.ops[id]!.received.length } : op]))

/**
 * Builds the `execute` of a pool property bound to `implementation`.
 *
 * @example const execute = executePool(shippedPool)
 */
export const executePool = (implementation: PoolImplementation) =>
(scenario: PoolScenario, environment: ExecutionEnvironment): Effect.Effect<ExecutionTrace, HarnessError, Scope.Scope> =>
  Effect.gen(function*() {
    const tapped = tappedPoolConfig(environment.database.sql, scenario.maxConnections)
    if (tapped === undefined) {
      return yield* new HarnessError({
        message: `pool property: adapter ${environment.adapterName} does not say how to open more sessions to its database`,
        hint: "the pool subject runs on the postgres adapter (it records its connection config per open database)"
      })
    }
    const { tap } = tapped
    yield* Effect.addFinalizer(() => Effect.sync(() => tap.close()))
    const config = scenario.transformNames === true ? { ...tapped.config, transformResultNames: snakeToCamel } : tapped.config
    const pool = yield* implementation.boundedPool(config).pipe(Effect.provide(Reactivity.layer), Effect.mapError(harnessError("building the pool")))
    const quiet = awaitQuiet(tap)
    const driver = yield* makePoolDriver(implementation, pool, POOL_HANDED_OVER_HOOK, quiet)
    let model = poolModel.init({ maxConnections: scenario.maxConnections, nowMs: yield* nowMs })
    const surface: SurfaceContext = { implementation, pool, config, tap, quiet, maxConnections: scenario.maxConnections, transformNames: scenario.transformNames === true }

    const step = (command: StepCommand, index: number): Effect.Effect<ExecutedStep, HarnessError> =>
      Effect.gen(function*() {
        if (command.op === "surface") {
          const executed = yield* surfaceStep(surface, command.probe, index)
          // Surface probes run before any checkout and may move virtual time: the model starts now.
          model = poolModel.init({ maxConnections: scenario.maxConnections, nowMs: yield* nowMs })
          return executed
        }
        const atMs = yield* nowMs
        const operation = command.op === "probe" ? probeOperation(model) : resolveCommand(model, command)
        if (operation === null) {
          return { record: { operation: `${command.op} (nothing to act on)`, args: toJson(command), virtualTimeMs: atMs, implementation: null, model: null }, checks: [], covered: [], situations: [], described: command.op }
        }
        const before = model
        const canonical = poolModel.step(before, operation).state
        yield* perform(driver, operation, before, quiet, tap)
        yield* quiet
        // Notifications reach listeners' sessions on their own sockets: wait (bounded) for the ones the
        // model says were sent; a listener still short after the bound is a divergence, not a harness error.
        yield* awaitCondition(() => listenersCaughtUp(canonical, driver))
        const statements = tap.statements()
        const sessions = tap.openSessions()
        const chosen = judged(before, operation, canonical, (state) => poolChecks(state, driver.seen, statements, sessions))
        model = chosen.state
        const counts = statementsByOwner(statements)
        const seenView = Object.fromEntries(model.order.map((id) => {
          const seen = driver.seen(id)
          return [id, { status: seen.status, failure: seen.failure, statements: counts.get(id) ?? 0, ...(model.ops[id]!.spec.kind === "listen" ? { received: seen.received.length } : {}) }]
        }))
        const executed: ExecutedStep = {
          record: {
            operation: chosen.operation.op,
            args: toJson(chosen.operation),
            virtualTimeMs: atMs,
            implementation: compact(seenView),
            model: compact(modelView(model))
          },
          checks: chosen.checks,
          covered: coveredBy(before, model, chosen.operation),
          situations: poolSituations(before, chosen.operation, model),
          described: poolModel.describeOperation(chosen.operation)
        }
        return executed
      })

    const subject: ModelBasedSubject<StepCommand> = { maxCommands: MAX_EXECUTED_COMMANDS, attributor: poolAttributor, requirements: environment.requirements, step }
    const probes: ReadonlyArray<StepCommand> = [...scenario.surface ?? [], ...scenario.ownPool ?? []].map((probe) => ({ op: "surface", probe }))
    const trace = yield* runModelBased(subject, [...probes, ...scenario.commands, { op: "probe" }])
    yield* driver.interruptAll
    return trace
  })
