/**
 * `execute` of the content properties: runs a scenario against an implementation and the reference
 * model side by side on one isolated database, through the generic model-based loop
 * (`harness/ModelBased.ts`). This file supplies the content subject's own parts: hashing the payloads
 * (independently of the implementation), the wallet of grants, clock commands, one step (the model's
 * prediction, the call through the session, the observation, the checks of `checks.ts`), and races
 * (`race.ts`).
 */
import { Effect, Exit, type Scope } from "effect"
import { type Check, type ExecutedStep, resultJson, runModelBased } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import type { ExecutionEnvironment, ExecutionTrace, Json } from "../../harness/Property.ts"
import { advanceToMs, nowMs } from "../../harness/VirtualClock.ts"
import { MODEL_PHASE, OBSERVE_PHASE, Profiler, timedPhase, timedPhaseSync } from "../../harness/Profiler.ts"
import type { HarnessError } from "../../harness/errors.ts"
import { contentModel, type ContentModelState, type ContentOperation, contentSituations, earliestDeletionMs, operationAlternatives, withTurnRegistered } from "../../models/content/index.ts"
import { firstConsistent } from "../../harness/Alternatives.ts"
import { contentAttributor } from "../../spec/content.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { struckFaultWords } from "../../harness/StruckFault.ts"
import { storageChecks } from "./checks.ts"
import { resolveCommand, type WalletEntry, withReachedFault } from "./commands.ts"
import { modelConfigOf, payloadHashes } from "./config.ts"
import { errorTag, resultAsRead } from "./driver.ts"
import { type ObservedStorage, observeStorage, storageJson } from "./observe.ts"
import { finishHeldStream, type HeldStream, heldStreamStore, openHeldStream } from "./heldStream.ts"
import { raceStep } from "./race.ts"
import type { Command, ContentScenario } from "./scenario.ts"
import { type ContentSession, harnessError, openContentSession } from "./session.ts"

/**
 * The checks in order: the invariant that needs no model (content and chunks together) first, then
 * the call's result, then the rest of storage (a sweep's result last).
 */
export const resultFirst = (storage: ReadonlyArray<Check>, result: Check, sweep: boolean): ReadonlyArray<Check> =>
  // A sweep's count follows from what it deleted: the rows themselves say which rule broke.
  sweep ? [...storage, result] : [storage[0]!, result, ...storage.slice(1)]

/** Bound on commands executed from one scenario (generators stay far below it). */
export const MAX_COMMANDS = 200

/** Mutable state of one run, shared by its steps. */
export interface RunState {
  model: ContentModelState
  readonly wallet: Array<WalletEntry>
  readonly hashes: ReadonlyArray<string>
  /** The stream `streamOpen` holds, until `streamRest` (`heldStream.ts`). */
  held?: HeldStream | undefined
}

/** Where an `advanceNear` command moves the clock, or null when its target is not in the future. */
const nearTarget = (command: Extract<Command, { op: "advanceNear" }>, run: RunState): number | null => {
  if (command.target === "expiry") {
    // Index 0 is the most recent grant, as for attach.
    const entries = run.wallet
    const facts = entries.length === 0 ? undefined : entries[entries.length - 1 - (command.index % entries.length)]!.facts
    return facts === undefined ? null : facts.expiresAt + command.offsetMs
  }
  // Index 0 is the content with the latest horizon.
  const contents = Object.values(run.model.contents).sort((a, b) => b.grantedUntilMs - a.grantedUntilMs || (a.hash < b.hash ? -1 : 1))
  return contents.length === 0 ? null : earliestDeletionMs(run.model.config, contents[command.index % contents.length]!) - 1 + command.offsetMs
}

const clockStep = (command: Extract<Command, { op: "advance" | "advanceNear" }>, run: RunState, atMs: number) =>
  Effect.gen(function*() {
    const target = command.op === "advance" ? atMs + command.ms : nearTarget(command, run)
    if (target !== null) yield* advanceToMs(target)
    const reached = yield* nowMs
    const executed: ExecutedStep = {
      record: { operation: command.op, args: toJson(command), virtualTimeMs: atMs, implementation: { nowMs: reached }, model: { nowMs: Math.max(atMs, target ?? atMs) } },
      checks: [],
      covered: [],
      described: `${command.op} to ${new Date(reached).toISOString()}`
    }
    return executed
  })

/** The model state closest to `observed` among rows and registrations as before or as after a sweep. */
const settleUncertain = (before: ContentModelState, after: ContentModelState, observed: ObservedStorage): ContentModelState => {
  const contents: Record<string, ContentModelState["contents"][string]> = {}
  for (const key of new Set([...Object.keys(before.contents), ...Object.keys(after.contents)])) {
    const chosen = key in observed.contents ? before.contents[key] ?? after.contents[key] : after.contents[key]
    if (chosen !== undefined) contents[key] = chosen
  }
  const sweptAtMs: Record<string, number> = {}
  for (const tenant of Object.keys(after.sweptAtMs)) {
    const seen = observed.sweptAtMs[tenant]
    sweptAtMs[tenant] = seen === before.sweptAtMs[tenant] ? before.sweptAtMs[tenant]! : after.sweptAtMs[tenant]!
  }
  return { ...after, contents, sweptAtMs }
}

/** One content-changing or reading command. */
const callStep = (session: ContentSession, database: ExecutionEnvironment["database"], run: RunState, command: Command, atMs: number) =>
  Effect.gen(function*() {
    const profiler = yield* Profiler
    const resolved = resolveCommand(command, { hashes: run.hashes, wallet: run.wallet, atMs, model: run.model })!
    const fault = "fault" in command ? command.fault : undefined
    const forger = command.op === "forge" ? yield* session.forger : undefined
    const called = yield* session.call(fault, (store) => resolved.call(store, forger ?? store))
    const reached = withReachedFault(resolved.operation, called.reached)
    const before = run.model
    const observed = yield* timedPhase(OBSERVE_PHASE, observeStorage(database.sql, run.model.config.chunkBytes)).pipe(Effect.mapError(harnessError("observing storage")))
    const actual = resultJson(
      called.outcome._tag === "Completed" ? { _tag: "Completed", exit: Exit.map(called.outcome.exit, (value) => value.json) } : called.outcome,
      errorTag
    )
    const predict = (operation: ContentOperation) => {
      const outcome = contentModel.step(before, operation)
      // A sweep stopped where the model has no transaction: each row may be as before or as after.
      const model = outcome.uncertain === true ? settleUncertain(before, outcome.state, observed) : outcome.state
      const expected = resultAsRead(operation.kind, toJson(outcome.result), atMs, model.config.skewMs)
      const result: Check = { observable: `${operation.kind} result`, expected, actual, rules: outcome.rules, why: outcome.why }
      return { operation, outcome, model, expected, checks: resultFirst(storageChecks(operation, before, model, observed, outcome.rules), result, operation.kind === "sweep") }
    }
    // Where the rules leave a choice (a sweep's tenant order, K6; a refusal's reason, K5): judged by the first alternative that explains it.
    const { operation, outcome, model, expected, checks } = timedPhaseSync(profiler, MODEL_PHASE, () => firstConsistent(operationAlternatives(before, reached), predict))
    run.model = model
    if (called.outcome._tag === "Completed" && called.outcome.exit._tag === "Success" && called.outcome.exit.value.grant !== undefined && outcome.result._tag === "Success") {
      const facts = resolved.facts?.(toJson(outcome.result.value))
      if (facts !== undefined) run.wallet.push({ grant: called.outcome.exit.value.grant, facts })
    }
    const faultWords = fault === undefined ? undefined : struckFaultWords(fault, session.boundary, operation.kind)
    const executed: ExecutedStep = {
      record: {
        operation: operation.kind,
        args: toJson(command),
        virtualTimeMs: atMs,
        implementation: actual,
        model: expected,
        ...(faultWords === undefined ? {} : { fault: faultWords }),
        implementationState: storageJson(observed),
        modelState: toJson(contentModel.observableState(run.model))
      },
      checks,
      covered: contentAttributor.requirementsWithPrimaryRules(outcome.situations),
      situations: contentSituations(before, operation, outcome),
      described: `${contentModel.describeOperation(operation)}${faultWords === undefined ? "" : ` (${faultWords})`}`
    }
    return executed
  })

/**
 * Builds the `execute` of a content property bound to `implementation`.
 *
 * @example const execute = executeContent(shippedContent)
 */
export const executeContent = (implementation: ContentImplementation) =>
(scenario: ContentScenario, environment: ExecutionEnvironment): Effect.Effect<ExecutionTrace, HarnessError, Scope.Scope> =>
  Effect.gen(function*() {
    const database = environment.database
    const singleConnection = !environment.capabilities.independentConnections
    const scope = yield* Effect.scope
    const hashes = payloadHashes()
    const run: RunState = { model: contentModel.init(modelConfigOf(scenario.parameters)), wallet: [], hashes }
    const session = yield* openContentSession(implementation, database.sql, environment.dialect, singleConnection, scenario.parameters)

    const step = (command: Command): Effect.Effect<ExecutedStep, HarnessError> =>
      Effect.gen(function*() {
        const atMs = yield* nowMs
        if (command.op === "advance" || command.op === "advanceNear") return yield* clockStep(command, run, atMs)
        if (command.op === "restart") {
          yield* session.restart(command.turnMs)
          if (command.turnMs !== undefined) run.model = withTurnRegistered(run.model, command.turnMs)
          const executed: ExecutedStep = { record: { operation: "restart", args: toJson(command), virtualTimeMs: atMs, implementation: null, model: null }, checks: [], covered: [], described: "restart" }
          return executed
        }
        if (command.op === "race") return yield* raceStep(implementation, environment, session, run, command, atMs)
        if (command.op === "streamOpen") return yield* openHeldStream(yield* heldStreamStore(implementation, environment, session), run, command, atMs, scope)
        if (command.op === "streamRest") return yield* finishHeldStream(run, command, atMs)
        return yield* callStep(session, database, run, command, atMs)
      })

    return yield* runModelBased<Command>({ maxCommands: MAX_COMMANDS, attributor: contentAttributor, requirements: environment.requirements, step }, scenario.commands)
  })

/** JSON of a value for traces. */
export const jsonOf = (value: unknown): Json => toJson(value)
