/**
 * `execute` of the alarms properties: runs a scenario against an implementation and the reference
 * model side by side on one isolated database, through the generic model-based loop
 * (`harness/ModelBased.ts`). This file supplies only what is the alarms subject's own: the older
 * layout written before the first scheduler opens, clock commands, and one step (the model's
 * prediction, the call through the session, the observation, the checks of `checks.ts`).
 */
import { Effect, type Scope } from "effect"
import type { Dialect } from "../../adapters/contract.ts"
import { firstConsistent } from "../../harness/Alternatives.ts"
import { withoutStorageFault } from "../../harness/Faults.ts"
import { type Check, type ExecutedStep, jsonEqual, runModelBased } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import type { ExecutionEnvironment, ExecutionTrace, Json } from "../../harness/Property.ts"
import { MODEL_PHASE, Profiler, timedPhaseSync } from "../../harness/Profiler.ts"
import { advanceToMs, nowMs } from "../../harness/VirtualClock.ts"
import type { HarnessError } from "../../harness/errors.ts"
import { alarmsModel, type ModelState, type Operation, operationAlternatives, struckReadAlternatives } from "../../models/alarms/index.ts"
import { ALARMS_SPAN_RULE, alarmsAttributor } from "../../spec/alarms.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { VALID_REFS } from "./arbitraries.ts"
import { requirementsOfSituations } from "./attribution.ts"
import { alarmsChecks, observedRules, readsRowsRight, type Touch } from "./checks.ts"
import { expectedJson, faultWords, modelOperation, nextWakeAfter, refKey, resolveCommand, touchedRefs } from "./commands.ts"
import { alarmsLivenessStep } from "./livenessPhase.ts"
import { readPersistedLayout, UPSTREAM_LAYOUT } from "./persistedLayout.ts"
import { legacyPlatformAlarmMs, readStoredWakes, writeLegacyLayout } from "./legacyLayout.ts"
import type { AlarmsScenario, Command, RefSpec } from "./scenario.ts"
import { toLegacyLayout, toModelLegacyRows } from "./scenario.ts"
import { type AlarmsSession, harnessError, modelStatuses, openAlarmsSession } from "./session.ts"
import { alarmSpanCheck } from "./spanCheck.ts"
import { readStoredAlarms } from "./storedState.ts"
import { withSortedKeys } from "../../harness/CodeUnitOrder.ts"

/** Bound on commands executed from one scenario (generators stay far below it). */
export const MAX_COMMANDS = 400

/** The SQL dialect of the environment's database, as the adapter declares it. */
export const dialectOf = (environment: ExecutionEnvironment): Dialect => environment.dialect

/**
 * The alarms a step asks `getAlarmStatus` about: those the command names, those whose status the
 * model says the step changed, and one more in turn (step index modulo the id space), so that R28's
 * API is compared on every state an alarm enters and on every alarm regularly, while every alarm's
 * stored status is compared after every step (`storedState.ts`).
 */
const apiRefsOf = (command: Command, before: Readonly<Record<string, Json>>, after: Readonly<Record<string, Json>>, stepIndex: number): ReadonlyArray<RefSpec> => {
  const named = new Set(touchedRefs(command).map(refKey))
  const inTurn = refKey(VALID_REFS[stepIndex % VALID_REFS.length]!)
  return VALID_REFS.filter((ref) => {
    const key = refKey(ref)
    return key === inTurn || named.has(key) || !jsonEqual(before[key], after[key])
  })
}

/** A clock command: virtual time moves to the next wake the model knows, or by a fixed amount. */
const clockStep = (command: Extract<Command, { op: "advanceToNextWake" | "advanceBy" }>, model: ModelState, atMs: number) =>
  Effect.gen(function*() {
    const target = command.op === "advanceBy" ? atMs + command.ms : nextWakeAfter(model, atMs)
    if (target !== null) yield* advanceToMs(target)
    const reached = yield* nowMs
    const executed: ExecutedStep = {
      record: { operation: command.op, args: toJson(command), virtualTimeMs: atMs, implementation: { nowMs: reached }, model: { nowMs: target ?? atMs } },
      checks: [],
      covered: [],
      described: command.op
    }
    return executed
  })

/** The model's `wake_at` of every row keyed by storage id, in code-unit order (as `readStoredWakes`). */
const modelWakes = (model: ModelState): Record<string, number> =>
  withSortedKeys(Object.fromEntries(Object.values(model.rows).map((row) => [row.storageId, row.wakeAtMs])))

/**
 * The check of the stored `wake_at` after the opening step, when the implementation has migrated by
 * then (upstream does in `getAlarmStatus`; one that migrates only inside transactions is checked later
 * through dispatch order and the platform alarm).
 */
const storedWakeChecks = (database: ExecutionEnvironment["database"], dialect: Dialect, model: ModelState) =>
  Effect.gen(function*() {
    const stored = yield* readStoredWakes(database.sql, dialect).pipe(Effect.mapError(harnessError("reading the stored wake_at")))
    if (stored === null) return []
    const layout = yield* readPersistedLayout(database.sql, dialect).pipe(Effect.mapError(harnessError("reading the persisted layout")))
    const checks: ReadonlyArray<Check> = [
      {
        observable: "stored wake_at",
        expected: modelWakes(model),
        actual: stored,
        rules: ["R3"],
        why: "migration backfills wake_at = max(run_at, retry_at ?? run_at) for every row, with or without an attempts row"
      },
      {
        observable: "persisted layout (columns, storage classes, indexes)",
        expected: UPSTREAM_LAYOUT,
        actual: layout,
        rules: ["R3"],
        why: "the persisted layout is part of the contract: after the migration the tables have upstream's columns with integer epoch columns, the wake index exists and the old run_at index is gone"
      }
    ]
    return checks
  })

/**
 * The opening step of a scenario with an older layout: the first scheduler migrated it (R3). The rows
 * are read again after the API was asked (an API read may be what migrates them), so that a status the
 * API misreads from rows the migration got right names R28, not R3.
 */
const openingStep = (session: AlarmsSession, model: ModelState, scenario: AlarmsScenario, epochMs: number, layoutKind: string, rowCount: number, wakeChecks: Effect.Effect<ReadonlyArray<Check>, HarnessError>, storedAfter: Effect.Effect<Readonly<Record<string, Json>>, HarnessError>) =>
  Effect.gen(function*() {
    const observed = yield* session.observe(VALID_REFS)
    const storedWakes = yield* wakeChecks
    const migrated = yield* storedAfter
    const expected = modelStatuses(model)
    const executed: ExecutedStep = {
      record: {
        operation: "openOlderSchema",
        args: toJson({ layout: layoutKind, rows: scenario.legacyRows ?? [] }),
        virtualTimeMs: epochMs,
        implementation: { _tag: "Success", value: null },
        model: { _tag: "Success", value: null },
        implementationState: { platformAlarmMs: observed.platformAlarmMs, statuses: observed.statuses, reporterCalls: [] },
        modelState: { platformAlarmMs: model.platformAlarmMs, statuses: expected, reporterCalls: [] }
      },
      checks: [
        ...VALID_REFS.map((ref) => readsRowsRight({
          observable: `getAlarmStatus(${refKey(ref)})`,
          expected: expected[refKey(ref)]!,
          actual: observed.statuses[refKey(ref)]!,
          rules: ["R3", "R28"],
          why: "rows of an older layout keep their deadline and attempt state after migration (no attempts row reads as a fresh budget)"
        }, migrated[refKey(ref)]!)),
        { observable: "platform alarm", expected: model.platformAlarmMs, actual: observed.platformAlarmMs, rules: ["R3", "R6"], why: "migration does not touch the platform alarm" },
        ...storedWakes
      ],
      covered: [],
      described: `the scheduler migrated ${rowCount} rows of the older layout ${layoutKind}`
    }
    return executed
  })

/**
 * Builds the `execute` of an alarms property bound to `implementation`.
 *
 * @example const execute = executeAlarms(shippedAlarms)
 */
export const executeAlarms = (
  implementation: AlarmsImplementation,
  options: { readonly liveness: boolean } = { liveness: false }
) =>
(scenario: AlarmsScenario, environment: ExecutionEnvironment): Effect.Effect<ExecutionTrace, HarnessError, Scope.Scope> =>
  Effect.gen(function*() {
    const database = environment.database
    const dialect = dialectOf(environment)
    const epochMs = yield* nowMs

    // The harness writes the older layout itself, in upstream's names, never through the implementation.
    const legacyLayout = toLegacyLayout(scenario, epochMs)
    const legacy = legacyLayout === undefined ? [] : toModelLegacyRows(legacyLayout)
    if (legacyLayout !== undefined) {
      const platformAlarmMs = legacyPlatformAlarmMs(legacyLayout)
      yield* Effect.gen(function*() {
        yield* writeLegacyLayout(database.sql, dialect, legacyLayout)
        if (platformAlarmMs !== null) yield* database.platformAlarm.set(platformAlarmMs)
      }).pipe(Effect.mapError(harnessError("writing the older layout")))
    }

    let model = alarmsModel.init({
      configuration: scenario.configuration ?? {},
      legacyRows: legacy,
      ...(scenario.knownTags === undefined ? {} : { knownTags: scenario.knownTags })
    })
    const profiler = yield* Profiler
    /** `modelStatuses(model)`, replaced whenever `model` is. */
    let statusesOfModel = modelStatuses(model)
    const session = yield* openAlarmsSession(implementation, database, dialect, scenario.configuration, scenario.knownTags ?? null)
    /** Per alarm, the rules of the last external write that targeted it (to attribute wrong row content). */
    const lastTouch = new Map<string, Touch>(legacy.map((row) => [
      refKey(row),
      { rules: ["R3"], why: "the migration backfilled wake_at = max(run_at, retry_at ?? run_at)", stepIndex: 0 }
    ]))

    const commandStep = (generated: Command, index: number) =>
      Effect.gen(function*() {
        const atMs = yield* nowMs
        const command = resolveCommand(generated, model, atMs)
        if (command.op === "advanceToNextWake" || command.op === "advanceBy") return yield* clockStep(command, model, atMs)
        const faulted = modelOperation(command, atMs)!
        const before = statusesOfModel
        const modelBefore = model
        const predicted = timedPhaseSync(profiler, MODEL_PHASE, () => alarmsModel.step(model, faulted))
        // A fault the model voids (statement order, or a platform alarm write an implementation may skip) is not injected.
        const called = yield* session.call(predicted.faultVoided ? withoutStorageFault(command) : command, atMs)
        // A failed statement the call went on past and committed (SQLite's meaning): judged as if it had not failed (`StruckFault.ts`).
        const recovered = session.boundary.statementFaultOutcome() === "statementFailedThenCommitted"
        const operation = recovered ? modelOperation(withoutStorageFault(command), atMs)! : faulted
        const canonical = recovered ? timedPhaseSync(profiler, MODEL_PHASE, () => alarmsModel.step(model, operation)) : predicted
        // Read before `observe` re-arms the boundary: whether a `readFails` fault failed one of the call's reads.
        const readStruck = "fault" in command && command.fault?.phase === "readFails" && !canonical.faultVoided && session.boundary.readsOutside().failed
        // The rows observed are named by the canonical prediction; an alternative differs only in what it reports.
        const canonicalStatuses = timedPhaseSync(profiler, MODEL_PHASE, () => modelStatuses(canonical.state))
        const observed = yield* session.observe(apiRefsOf(command, before, canonicalStatuses, index))
        const judge = (alternative: Operation) => {
          const outcome = alternative === operation ? canonical : alarmsModel.step(modelBefore, alternative)
          const statuses = outcome === canonical ? canonicalStatuses : modelStatuses(outcome.state)
          const comparison = { command, outcome, model: outcome.state, actualResult: called.result, visits: called.visits, forkedOutcomes: called.forkedOutcomes, observed, modelStatuses: statuses, reporterCalls: called.reporterCalls, lastTouch }
          const expectedResult = expectedJson(outcome.result)
          return { outcome, statuses, expectedResult, checks: [...alarmsChecks(comparison, expectedResult)] }
        }
        const alternatives = readStruck ? struckReadAlternatives(operation, canonical.readPoints) : operationAlternatives(modelBefore, operation)
        const { outcome, statuses, expectedResult, checks } = timedPhaseSync(profiler, MODEL_PHASE, () => firstConsistent(alternatives, judge))
        model = outcome.state
        statusesOfModel = statuses
        const reporterPrediction = outcome.predictions.find((prediction) => prediction.observable === "reporterCalls")!
        const spans = alarmSpanCheck(command, called.typed, called.result, called.spans)
        if (spans !== undefined) checks.push(spans)
        for (const ref of touchedRefs(command)) lastTouch.set(refKey(ref), { rules: outcome.rules, why: outcome.why, stepIndex: index })
        const fault = faultWords(command, recovered ? predicted : outcome, readStruck, recovered)
        const executed: ExecutedStep = {
          record: {
            operation: operation.kind,
            args: toJson(command),
            virtualTimeMs: atMs,
            implementation: called.result,
            model: expectedResult,
            ...(fault === undefined ? {} : { fault }),
            implementationState: { platformAlarmMs: observed.platformAlarmMs, statuses: observed.storedStatuses, apiStatuses: observed.statuses, reporterCalls: [...called.reporterCalls] },
            modelState: {
              platformAlarmMs: model.platformAlarmMs,
              statuses,
              apiStatuses: Object.fromEntries(Object.keys(observed.statuses).map((key) => [key, statuses[key]!])),
              reporterCalls: reporterPrediction.expected
            }
          },
          checks,
          covered: [
            ...requirementsOfSituations(outcome.situations),
            ...alarmsAttributor.requirementsWithPrimaryRules([...observedRules(command, expectedResult), ...(spans === undefined ? [] : [ALARMS_SPAN_RULE])])
          ],
          situations: outcome.situations,
          described: `${alarmsModel.describeOperation(operation)}${fault === undefined ? "" : ` (${fault})`}`
        }
        return executed
      })

    // After the fault window (the commands), the liveness phase runs to quiescence (livenessPhase.ts).
    return yield* runModelBased<Command | "liveness">({
      maxCommands: MAX_COMMANDS + 1,
      // A divergence names only a requirement this property checks.
      attributor: alarmsAttributor,
      requirements: environment.requirements,
      ...(legacy.length > 0 && legacyLayout !== undefined
        ? {
          open: openingStep(session, model, scenario, epochMs, legacyLayout.kind, legacy.length, storedWakeChecks(database, dialect, model),
            readStoredAlarms(database.sql, dialect).pipe(Effect.map((stored) => stored.statuses), Effect.mapError(harnessError("reading the alarm tables"))))
        }
        : {}),
      step: (command, index) => (command === "liveness" ? alarmsLivenessStep(session, environment, model) : commandStep(command, index))
    }, options.liveness ? [...scenario.commands.slice(0, MAX_COMMANDS), "liveness"] : scenario.commands.slice(0, MAX_COMMANDS))
  })
