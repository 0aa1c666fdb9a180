/**
 * `execute` of the pool properties: a fresh bounded pool of the scenario's size over the property's
 * Postgres database, every session through the run's wire tap, driven command by command beside the
 * pool model through the generic model-based loop (`harness/ModelBased.ts`). After each command the
 * harness waits until the system is quiet (no statement awaiting its answer, fibers still), then
 * compares every checkout's status, its statements on the wire, notify's session and the session
 * count. A closing probe interrupts everything alive and checks that every slot came back.
 */
import { Effect, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { type ExecutedStep, type ModelBasedSubject, runModelBased, toJson } from "../../harness/ModelBased.ts"
import type { ExecutionEnvironment, ExecutionTrace, Json } from "../../harness/Property.ts"
import { awaitQuiet } from "../../harness/Quiescence.ts"
import { advanceToMs, nowMs } from "../../harness/VirtualClock.ts"
import { HarnessError } from "../../harness/errors.ts"
import {
  observableOps,
  plainAcquire,
  plainBorrow,
  type PoolCommand,
  poolModel,
  type PoolModelState,
  type PoolOperation,
  probeOperation,
  resolveCommand
} from "../../models/pool/index.ts"
import { poolAttributor } from "../../spec/pool.ts"
import { POOL_HANDED_OVER_HOOK, type PoolImplementation } from "../../subjects/pool/api.ts"
import { poolChecks, statementsByOwner } from "./checks.ts"
import { tappedPoolConfig } from "./connection.ts"
import { coveredBy } from "./coverage.ts"
import { makePoolDriver, type PoolDriver } from "./driver.ts"
import type { PoolScenario } from "./scenario.ts"

/** A scenario command, or the closing probe the harness appends. */
type StepCommand = PoolCommand | { readonly op: "probe" }

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

/** Runs one resolved operation on the implementation (the model ran it already). */
const perform = (driver: PoolDriver, operation: PoolOperation, before: PoolModelState, quiet: Effect.Effect<void, HarnessError>) =>
  Effect.gen(function*() {
    switch (operation.op) {
      case "start":
        return yield* driver.start(operation.spec)
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

/** A compact view of every checkout: `status[/failure]#statements`. */
const compact = (view: Record<string, { readonly status: string; readonly failure: string | null; readonly statements: number }>): Json =>
  Object.fromEntries(Object.entries(view).map(([id, op]) => [id, `${op.status}${op.failure === null ? "" : `/${op.failure}`}#${op.statements}`]))

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
    const pool = yield* implementation.boundedPool(tapped.config).pipe(Effect.provide(Reactivity.layer), Effect.mapError(harnessError("building the pool")))
    const driver = yield* makePoolDriver(implementation, pool, POOL_HANDED_OVER_HOOK)
    const quiet = awaitQuiet(tap)
    let model = poolModel.init({ maxConnections: scenario.maxConnections, nowMs: yield* nowMs })

    const step = (command: StepCommand): Effect.Effect<ExecutedStep, HarnessError> =>
      Effect.gen(function*() {
        const atMs = yield* nowMs
        const operation = command.op === "probe" ? probeOperation(model) : resolveCommand(model, command)
        if (operation === null) {
          return { record: { operation: `${command.op} (nothing to act on)`, args: toJson(command), virtualTimeMs: atMs, implementation: null, model: null }, checks: [], covered: [], described: command.op }
        }
        const before = model
        model = poolModel.step(model, operation).state
        yield* perform(driver, operation, before, quiet)
        yield* quiet
        const statements = tap.statements()
        const counts = statementsByOwner(statements)
        const seenView = Object.fromEntries(model.order.map((id) => [id, { ...driver.seen(id), statements: counts.get(id) ?? 0 }]))
        const executed: ExecutedStep = {
          record: {
            operation: operation.op,
            args: toJson(operation),
            virtualTimeMs: atMs,
            implementation: compact(seenView),
            model: compact(observableOps(model))
          },
          checks: poolChecks(model, driver.seen, statements, tap.openSessions()),
          covered: coveredBy(before, model, operation),
          described: poolModel.describeOperation(operation)
        }
        return executed
      })

    const subject: ModelBasedSubject<StepCommand> = { maxCommands: MAX_EXECUTED_COMMANDS, attributor: poolAttributor, step }
    const trace = yield* runModelBased(subject, [...scenario.commands, { op: "probe" }])
    yield* driver.interruptAll
    return trace
  })
