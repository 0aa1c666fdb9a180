/**
 * `execute` of the alarms properties: runs a scenario against an implementation and the reference
 * model side by side on one isolated database, compares every observable after every command, and
 * returns the trace with the first disagreement as a witness.
 *
 * Observables compared after each command, finest first: each `handled[i]` / `failed[i]` /
 * `parked[i]` entry and each forked write, the call's result (value or typed error tag, or the injected
 * crash), `getAlarmStatus` of every alarm of the id space, the reporter calls of the step, and the
 * platform alarm.
 */
import { Cause, DateTime, Deferred, Effect, Exit, Fiber, type Scope } from "effect"
import type { Dialect } from "../../adapters/contract.ts"
import { HookPoints } from "../../harness/HookPoints.ts"
import { timedImplementationCall } from "../../harness/Profiler.ts"
import type { Divergence, ExecutionEnvironment, ExecutionTrace, Json, StepRecord } from "../../harness/Property.ts"
import { advanceToMs, nowMs } from "../../harness/VirtualClock.ts"
import { HarnessError } from "../../harness/errors.ts"
import {
  describeOperation,
  init,
  type ModelState,
  type Operation,
  type Prediction,
  predictStatuses,
  type ScheduleConfigurationInput,
  statusOf,
  step,
  type StepOutcome,
  storageIdOf,
  readRow,
  type TransactionFault
} from "../../models/alarms/index.ts"
import {
  AlarmReporter,
  type AlarmReporterFn,
  type AlarmScheduler,
  type AlarmsImplementation,
  ScheduleConfiguration
} from "../../subjects/alarms/api.ts"
import { alarmsDialect } from "../../subjects/alarms/dialect.ts"
import { insertOldRow, oldSchemaDdl } from "../../subjects/alarms/schema.ts"
import { VALID_REFS } from "./arbitraries.ts"
import { brief, canonical, mostSpecificRequirement, requirementsOfSituations, requirementsWithPrimaryRules } from "./attribution.ts"
import {
  dispatchJson,
  dispatchOptions,
  errorTag,
  type ForkedWrite,
  runMutation,
  runScriptedTransaction,
  scriptedDispatch,
  statusJson,
  toImplementationConfiguration
} from "./driver.ts"
import { makeFaultInjector } from "./faultInjector.ts"
import type { AlarmsScenario, Command, HandlerEntrySpec, HandlerWriteSpec, InputSpec, MutationSpec } from "./scenario.ts"
import { toModelInput, toModelLegacyRows, toModelScript, toModelTransactionMutation } from "./scenario.ts"

/** Bound on commands executed from one scenario (generators stay far below it). */
export const MAX_COMMANDS = 400

const harnessError = (what: string) => (cause: unknown) =>
  new HarnessError({
    message: `alarms property: ${what} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
    hint: "the adapter's database failed outside the implementation; check the adapter",
    cause
  })

/** The SQL dialect of the environment's database, as the adapter declares it. */
export const dialectOf = (environment: ExecutionEnvironment): Dialect => environment.dialect

/** Key of a ref in state JSON. */
const refKey = (ref: { readonly tag: string; readonly id: string }): string => `${ref.tag}/${ref.id}`

/** Removes the words-only `reason` from typed errors, so results compare by tag. */
const withoutReasons = (value: Json): Json => {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map(withoutReasons)
  const record = value as { readonly [key: string]: Json }
  return Object.fromEntries(
    Object.entries(record).filter(([key]) => !(key === "reason" && "_tag" in record)).map(([key, inner]) => [key, withoutReasons(inner)])
  )
}

const json = (value: unknown): Json => JSON.parse(JSON.stringify(value ?? null)) as Json

/** The model's operation for a command at virtual time `atMs` (null for clock commands). */
const modelOperation = (command: Command, atMs: number): Operation | null => {
  const faults = (source: { readonly fault?: TransactionFault; readonly reporterFails?: boolean }) => ({
    ...(source.fault === undefined ? {} : { fault: source.fault }),
    ...(source.reporterFails === true ? { reporterFails: true } : {})
  })
  switch (command.op) {
    case "schedule":
      return { kind: command.earlier === true ? "scheduleAlarmEarlier" : "scheduleAlarm", nowMs: atMs, input: toModelInput(command.input, atMs), ...faults(command) }
    case "cancel":
      return { kind: "cancelAlarm", nowMs: atMs, ref: { tag: command.ref.tag, id: command.ref.id }, ...(command.fault === undefined ? {} : { fault: command.fault }) }
    case "status":
      return { kind: "getAlarmStatus", ref: { tag: command.ref.tag, id: command.ref.id } }
    case "transaction":
      return {
        kind: "transaction",
        nowMs: atMs,
        mutations: command.mutations.map((mutation) => toModelTransactionMutation(mutation, atMs)),
        ...(command.closureFails === true ? { closureFails: true } : {}),
        ...faults(command)
      }
    case "dispatch":
      return {
        kind: "processDueAlarms",
        nowMs: atMs,
        ...(command.options === undefined ? {} : { options: command.options }),
        handlers: command.handlers.map((entry) => ({ tag: entry.tag, id: entry.id, script: toModelScript(entry.script, atMs) })),
        ...faults(command)
      }
    case "configure":
      return { kind: "configure", configuration: command.configuration }
    case "restart":
      return { kind: "rebuildService" }
    case "advanceToNextWake":
    case "advanceBy":
      return null
  }
}

const parsedPayload = (text: string): Json => {
  try {
    return JSON.parse(text) as Json
  } catch {
    return null
  }
}

const resolveInput = (input: InputSpec, model: ModelState, atMs: number): InputSpec => {
  if (input.copyOfOwnRow !== true) return input
  const { copyOfOwnRow: _copy, ...rest } = input
  const row = readRow(model.rows, storageIdOf(input))
  if (row === undefined) return rest
  const { repeatEveryMs: _repeat, ...withoutRepeat } = rest
  return {
    ...withoutRepeat,
    payload: parsedPayload(row.payloadText),
    runInMs: row.runAtMs - atMs,
    ...(row.repeatEveryMs === null ? {} : { repeatEveryMs: row.repeatEveryMs })
  }
}

const resolveMutation = (mutation: MutationSpec, model: ModelState, atMs: number): MutationSpec =>
  mutation.kind === "cancelAlarm" ? mutation : { kind: mutation.kind, input: resolveInput(mutation.input, model, atMs) }

/**
 * Resolves identical re-arms (`copyOfOwnRow`) in handler scripts from the model's state before the
 * step, so the implementation and the model see the same concrete values.
 */
const resolveCommand = (command: Command, model: ModelState, atMs: number): Command => {
  if (command.op !== "dispatch") return command
  return {
    ...command,
    handlers: command.handlers.map((entry): HandlerEntrySpec => ({
      ...entry,
      script: {
        ...entry.script,
        ...(entry.script.writes === undefined ? {} : {
          writes: entry.script.writes.map((write): HandlerWriteSpec =>
            write.kind === "transaction"
              ? { ...write, mutations: write.mutations.map((mutation) => resolveMutation(mutation, model, atMs)) }
              : resolveMutation(write, model, atMs)
          )
        }),
        ...(entry.script.forkedWrite === undefined ? {} : { forkedWrite: resolveMutation(entry.script.forkedWrite, model, atMs) })
      }
    }))
  }
}

/** Alarms an external command writes (schedule, cancel, transaction mutations). */
const touchedRefs = (command: Command): ReadonlyArray<{ readonly tag: string; readonly id: string }> => {
  switch (command.op) {
    case "schedule":
      return [command.input]
    case "cancel":
      return [command.ref]
    case "transaction":
      return command.mutations.map((mutation) => (mutation.kind === "cancelAlarm" ? mutation.ref : mutation.input))
    default:
      return []
  }
}

/** The next wake strictly after `atMs` the model knows (platform alarm or any row's wake), or null. */
const nextWakeAfter = (model: ModelState, atMs: number): number | null => {
  let next: number | null = null
  const consider = (wakeMs: number | null) => {
    if (wakeMs !== null && wakeMs > atMs && (next === null || wakeMs < next)) next = wakeMs
  }
  consider(model.platformAlarmMs)
  for (const row of Object.values(model.rows)) consider(row.wakeAtMs)
  return next
}

/** The fault of a command in words, using the model's transaction labels. */
const faultWords = (command: Command, outcome: StepOutcome | null): string | undefined => {
  const words: Array<string> = []
  if ("fault" in command && command.fault !== undefined) {
    const label = outcome?.transactions[command.fault.transaction - 1]?.label
    const where = `storage transaction ${command.fault.transaction}${label === undefined ? " (not reached)" : ` (${label})`}`
    words.push(
      command.fault.phase === "inside"
        ? `crash inside ${where}`
        : command.fault.phase === "afterCommit"
        ? `crash after ${where} committed, before its park reports`
        : `the platform alarm write fails in ${where}`
    )
  }
  if ("reporterFails" in command && command.reporterFails === true) words.push("the reporter fails")
  if (command.op === "dispatch" && command.redelivery === true) words.push("platform alarm redelivered")
  if (command.op === "restart") words.push(command.reason === "eviction" ? "Durable Object eviction" : "process restart")
  return words.length === 0 ? undefined : words.join("; ")
}

/** One observed value to compare, with the rules and reason the model gives for it. */
interface Check {
  readonly observable: string
  readonly expected: Json
  readonly actual: Json
  readonly rules: ReadonlyArray<string>
  readonly why: string
}

const firstMismatch = (checks: ReadonlyArray<Check>): Check | undefined =>
  checks.find((check) => canonical(check.expected) !== canonical(check.actual))

/** Rules of the dispatch entry (handled or failed) concerning `ref`, if any. */
const entryRules = (predictions: ReadonlyArray<Prediction>, ref: { readonly tag: string; readonly id: string }): Prediction | undefined =>
  predictions.find((prediction) => {
    if (!/^(handled|failed)\[\d+\]$/.test(prediction.observable)) return false
    const expected = prediction.expected as { readonly id?: unknown; readonly tag?: unknown; readonly event?: { readonly id?: unknown; readonly tag?: unknown } | null }
    const event = prediction.observable.startsWith("failed") ? expected.event : expected
    return event !== null && event !== undefined && event.id === ref.id && event.tag === ref.tag
  })

/** Rules deciding each field of a status, most specific first (existence is `exists`). */
const FIELD_RULES: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["exists", ["R19", "R23", "R22", "H1"]],
  ["parked", ["R14", "H5", "R25"]],
  ["attempts", ["R13", "R25", "R19"]],
  ["retryAtMs", ["R15", "R25", "R2"]],
  ["runAtMs", ["R16", "R25", "R23", "E3"]]
]

/**
 * The rules of a status disagreement: the rules of the first differing field that the model's
 * attribution (`context`) names, so the witness cites the rule that decided the wrong field; when
 * none is named, `fallback` (else the first differing field's rules).
 */
const statusRules = (
  expected: Json,
  actual: Json,
  context: ReadonlyArray<string>,
  fallback?: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const field = (value: Json, name: string): unknown =>
    name === "exists" ? value !== null : value !== null && typeof value === "object" ? (value as { readonly [key: string]: Json })[name] : undefined
  // The first differing field in FIELD_RULES order is the cause; later fields usually follow from it.
  const differing = FIELD_RULES.filter(([name]) => canonical(field(expected, name)) !== canonical(field(actual, name)))
  for (const [, candidates] of differing) {
    const named = context.filter((rule) => candidates.includes(rule))
    if (named.length > 0) return [...new Set(named)]
  }
  return fallback ?? differing[0]?.[1] ?? context
}

/**
 * Builds the `execute` of an alarms property bound to `implementation`.
 *
 * @example const execute = executeAlarms(shippedAlarms)
 */
export const executeAlarms = (implementation: AlarmsImplementation) =>
(scenario: AlarmsScenario, environment: ExecutionEnvironment): Effect.Effect<ExecutionTrace, HarnessError, Scope.Scope> =>
  Effect.gen(function*() {
    const database = environment.database
    const dialect = dialectOf(environment)
    const injector = makeFaultInjector(database.platformAlarm)
    const epochMs = yield* nowMs

    const legacy = toModelLegacyRows(scenario.legacyRows ?? [], epochMs)
    if (legacy.length > 0) {
      const sqlDialect = alarmsDialect(dialect)
      yield* Effect.gen(function*() {
        for (const ddl of oldSchemaDdl(sqlDialect)) yield* database.sql.unsafe(ddl)
        for (const row of legacy) {
          yield* insertOldRow(database.sql, {
            ref: { tag: row.tag, id: row.id },
            runAtMs: row.runAtMs,
            repeatEveryMs: row.repeatEveryMs ?? null,
            payloadJson: row.payloadText
          })
        }
        yield* database.platformAlarm.set(Math.min(...legacy.map((row) => row.runAtMs)))
      }).pipe(Effect.mapError(harnessError("writing the older schema")))
    }

    let model = init({ configuration: scenario.configuration ?? {}, legacyRows: legacy })
    let ambient: ScheduleConfigurationInput = scenario.configuration ?? {}
    let reporterCalls: Array<Json> = []
    let reporterFails = false
    const reporter: AlarmReporterFn = (event) =>
      Effect.suspend(() => {
        reporterCalls.push({ attempts: event.attempts, retryAtMs: DateTime.toEpochMillis(event.retryAt) })
        return reporterFails ? Effect.die(new Error("scripted reporter failure")) : Effect.void
      })
    const provide = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      effect.pipe(
        Effect.provideService(ScheduleConfiguration, toImplementationConfiguration(ambient)),
        Effect.provideService(AlarmReporter, reporter),
        Effect.provideService(HookPoints, injector.hooks)
      )
    const build = Effect.suspend(() => {
      injector.arm(undefined)
      return provide(implementation.make({ sql: database.sql, dialect, platformAlarm: injector.platformAlarm }))
    }).pipe(
      Effect.mapError((cause) =>
        new HarnessError({
          message: `alarms implementation ${implementation.name} could not be built: ${String(cause)}`,
          hint: "the implementation's make failed (migration or tables); fix the implementation or the adapter",
          cause
        })
      )
    )
    let migrationFault: string | undefined
    if (scenario.migrationCrashAt !== undefined && legacy.length > 0) {
      // The process dies in the middle of the first migration; the restarted scheduler migrates again.
      injector.armHook(scenario.migrationCrashAt)
      const crashed = yield* Effect.exit(
        provide(implementation.make({ sql: database.sql, dialect, platformAlarm: injector.platformAlarm }))
      )
      injector.armHook(null)
      migrationFault = Exit.isFailure(crashed)
        ? `crash during the first migration at ${scenario.migrationCrashAt}; the scheduler was rebuilt`
        : `no crash: the migration never reached ${scenario.migrationCrashAt}`
    }
    let scheduler: AlarmScheduler = yield* build

    const steps: Array<StepRecord> = []
    /** Per alarm, the rules of the last external write that targeted it (to attribute wrong row content). */
    const lastTouch = new Map<string, { readonly rules: ReadonlyArray<string>; readonly why: string; readonly stepIndex: number }>()
    const covered = new Set<string>()
    let divergence: Divergence | null = null

    const observeState = Effect.gen(function*() {
      injector.arm(undefined)
      const statuses: Record<string, Json> = {}
      for (const ref of VALID_REFS) {
        const exit = yield* Effect.exit(provide(scheduler.getAlarmStatus(ref)))
        statuses[refKey(ref)] = Exit.isSuccess(exit) ? json(statusJson(exit.value)) : { error: errorTag(Cause.squash(exit.cause)) }
      }
      const platformAlarmMs = yield* database.platformAlarm.get.pipe(Effect.mapError(harnessError("reading the platform alarm")))
      return { statuses, platformAlarmMs }
    })

    const modelView = () => {
      const statuses: Record<string, Json> = {}
      for (const ref of VALID_REFS) statuses[refKey(ref)] = json(statusOf(model, storageIdOf(ref)))
      return statuses
    }

    if (legacy.length > 0) {
      // Step 0: the first scheduler opened storage of the older schema and migrated it (R3).
      const observed = yield* observeState
      const expected = modelView()
      const checks: Array<Check> = VALID_REFS.map((ref) => ({
        observable: `getAlarmStatus(${refKey(ref)})`,
        expected: expected[refKey(ref)]!,
        actual: observed.statuses[refKey(ref)]!,
        rules: ["R3", "R28"],
        why: "rows of the older schema keep their deadline and read as a fresh budget after migration"
      }))
      checks.push({
        observable: "platform alarm",
        expected: model.platformAlarmMs,
        actual: observed.platformAlarmMs,
        rules: ["R3", "R6"],
        why: "migration does not touch the platform alarm"
      })
      steps.push({
        index: 0,
        operation: "openOlderSchema",
        args: json(scenario.legacyRows),
        virtualTimeMs: epochMs,
        implementation: { _tag: "Success", value: null },
        model: { _tag: "Success", value: null },
        ...(migrationFault === undefined ? {} : { fault: migrationFault }),
        implementationState: { platformAlarmMs: observed.platformAlarmMs, statuses: observed.statuses, reporterCalls: [] },
        modelState: { platformAlarmMs: model.platformAlarmMs, statuses: expected, reporterCalls: [] }
      })
      const mismatch = firstMismatch(checks)
      if (mismatch !== undefined) {
        divergence = {
          requirementId: mostSpecificRequirement(mismatch.rules),
          stepIndex: 0,
          explanation: `after the scheduler migrated ${legacy.length} rows of the older schema, the implementation's ${mismatch.observable} was ${brief(mismatch.actual)} but the model expected ${brief(mismatch.expected)}, because ${mismatch.why} (${mismatch.rules.join(", ")})`,
          expected: mismatch.expected,
          actual: mismatch.actual
        }
      }
    }

    const commands = divergence === null ? scenario.commands.slice(0, MAX_COMMANDS) : []
    for (const generated of commands) {
      const index = steps.length
      const atMs = yield* nowMs
      const command = resolveCommand(generated, model, atMs)
      const args = json(command)

      if (command.op === "advanceToNextWake" || command.op === "advanceBy") {
        const target = command.op === "advanceBy" ? atMs + command.ms : nextWakeAfter(model, atMs)
        if (target !== null) yield* advanceToMs(target)
        const reached = yield* nowMs
        steps.push({ index, operation: command.op, args, virtualTimeMs: atMs, implementation: { nowMs: reached }, model: { nowMs: target ?? atMs } })
        continue
      }

      const operation = modelOperation(command, atMs)!
      const outcome = step(model, operation)
      model = outcome.state
      for (const id of requirementsOfSituations(outcome.situations)) covered.add(id)

      // ---- the implementation ----
      injector.arm("fault" in command ? command.fault : undefined)
      reporterCalls = []
      reporterFails = "reporterFails" in command && command.reporterFails === true
      const forked: Array<ForkedWrite> = []
      const visits: Array<string> = []
      let actualResult: Json
      const forkedOutcomes: Array<Json> = []
      switch (command.op) {
        case "configure": {
          ambient = command.configuration
          actualResult = { _tag: "Success", value: null }
          break
        }
        case "restart": {
          scheduler = yield* timedImplementationCall(build)
          actualResult = { _tag: "Success", value: null }
          break
        }
        default: {
          const call: Effect.Effect<Json, unknown> = command.op === "schedule"
            ? Effect.as(runMutation(scheduler, { kind: command.earlier === true ? "scheduleAlarmEarlier" : "scheduleAlarm", input: command.input }, atMs), null)
            : command.op === "cancel"
            ? Effect.as(runMutation(scheduler, { kind: "cancelAlarm", ref: command.ref }, atMs), null)
            : command.op === "status"
            ? Effect.map(scheduler.getAlarmStatus({ tag: command.ref.tag, id: command.ref.id }), (status) => json(statusJson(status)))
            : command.op === "transaction"
            ? Effect.map(runScriptedTransaction(scheduler, command.mutations, command.closureFails === true, atMs), json)
            : Effect.suspend(() => {
              const scripted = scriptedDispatch(scheduler, command.handlers, atMs, forked, visits)
              return Effect.map(
                scheduler.processDueAlarms(scripted.handle, dispatchOptions(command.options, scripted.onFailure)),
                dispatchJson
              )
            })
          const exit = yield* Effect.exit(timedImplementationCall(provide(call)))
          actualResult = Exit.isSuccess(exit)
            ? { _tag: "Success", value: exit.value }
            : { _tag: "Failure", error: errorTag(Cause.squash(exit.cause)) }
          // Writes of fibers the handlers forked, released one by one after the pass ended.
          for (const write of forked) {
            if (injector.crashed() !== null) {
              yield* Fiber.interrupt(write.fiber)
              continue
            }
            yield* Deferred.succeed(write.gate, undefined)
            const writeExit = yield* Fiber.join(write.fiber)
            if (injector.crashed() !== null) continue
            forkedOutcomes.push(
              Exit.isSuccess(writeExit) ? { ok: true, error: null } : { ok: false, error: errorTag(Cause.squash(writeExit.cause)) }
            )
          }
          const crash = injector.crashed()
          if (crash !== null) {
            actualResult = { _tag: "Crashed", transaction: crash.transaction, phase: crash.phase }
            // The process died: the harness restarts the service from storage.
            scheduler = yield* build
          }
        }
      }

      // ---- compare ----
      const observed = yield* observeState
      const expectedResult = withoutReasons(json(outcome.result))
      const modelStatuses = modelView()
      const predictions = outcome.predictions
      const predicted = (observable: string) => predictions.find((prediction) => prediction.observable === observable)
      const resultPrediction = predicted("result")!
      const checks: Array<Check> = []
      const resultCheck: Check = {
        observable: "result",
        expected: expectedResult,
        actual: actualResult,
        rules: resultPrediction.rules,
        why: resultPrediction.why
      }
      const tagOf = (value: Json) => (value as { readonly _tag?: unknown })._tag
      if (tagOf(expectedResult) !== tagOf(actualResult)) checks.push(resultCheck)
      if (command.op === "dispatch") {
        // Dispatch order, observable through the handler and onFailure calls (also when the call fails).
        const collapse = (ids: ReadonlyArray<string>) => ids.filter((id, position) => position === 0 || ids[position - 1] !== id)
        const expectedOrder = collapse(
          outcome.transactions.map((transaction) => /^(handler|acknowledge|failure):(.*)$/.exec(transaction.label)?.[2]).filter((id): id is string => id !== undefined)
        )
        checks.push({
          observable: "dispatch order (rows handed to the handler or onFailure)",
          expected: expectedOrder,
          actual: collapse(visits),
          rules: ["R21", "R22", "H6"],
          why: predicted("handled")?.why ?? "due rows are dispatched by (wake_at, storage_id) up to the limit; rows changed earlier in the batch are skipped"
        })
      }
      if (command.op === "dispatch" && tagOf(expectedResult) === "Success" && tagOf(actualResult) === "Success") {
        const actualValue = (actualResult as { readonly value: { readonly [key: string]: ReadonlyArray<Json> } }).value
        // Same entries in another order: a dispatch-order violation, named as such.
        for (const list of ["handled", "failed"] as const) {
          const expectedList = withoutReasons(predicted(list)!.expected) as ReadonlyArray<Json>
          const actualList = json(actualValue[list]) as ReadonlyArray<Json>
          const sorted = (values: ReadonlyArray<Json>) => values.map(canonical).sort().join("\n")
          if (canonical(expectedList) !== canonical(actualList) && sorted(expectedList) === sorted(actualList)) {
            checks.push({
              observable: `${list} order`,
              expected: expectedList,
              actual: actualList,
              rules: ["R21", "H6"],
              why: predicted("handled")!.why
            })
          }
        }
        for (const prediction of predictions) {
          const match = /^(handled|failed)\[(\d+)\]$/.exec(prediction.observable)
          if (match === null) continue
          const actualEntry = actualValue[match[1]!]?.[Number(match[2])] ?? null
          // Same alarm, other content: the row was stored wrongly by the last write that touched it.
          const entryRef = prediction.expected as { readonly tag?: unknown; readonly id?: unknown }
          const touch = typeof entryRef.tag === "string" && typeof entryRef.id === "string" ? lastTouch.get(`${entryRef.tag}/${entryRef.id}`) : undefined
          checks.push({
            observable: prediction.observable,
            expected: withoutReasons(prediction.expected),
            actual: actualEntry,
            rules: touch === undefined ? prediction.rules : [...touch.rules, ...prediction.rules],
            why: touch === undefined ? prediction.why : `${prediction.why}; the row was last written at step ${touch.stepIndex}, where ${touch.why}`
          })
        }
        for (const list of ["handled", "failed"] as const) {
          const prediction = predicted(list)!
          checks.push({ observable: list, expected: withoutReasons(prediction.expected), actual: json(actualValue[list]), rules: prediction.rules, why: prediction.why })
        }
      }
      if (command.op === "dispatch") {
        outcome.forkedWrites.forEach((expected, position) => {
          const prediction = predicted(`forkedWrite[${position}]`)
          checks.push({
            observable: `forkedWrite[${position}]`,
            expected: withoutReasons(json(expected)),
            actual: forkedOutcomes[position] ?? null,
            rules: prediction?.rules ?? ["R9", "H4"],
            why: prediction?.why ?? "a handler's forked write after its pass"
          })
        })
        checks.push({
          observable: "forkedWrites",
          expected: withoutReasons(json(outcome.forkedWrites)),
          actual: forkedOutcomes,
          rules: ["R9", "H4"],
          why: "writes of fibers forked by handlers run after the pass ended"
        })
      }
      // A successful dispatch was compared entry by entry above (its parked list below, after the statuses).
      if (!(command.op === "dispatch" && tagOf(expectedResult) === "Success" && tagOf(actualResult) === "Success")) checks.push(resultCheck)
      const provenance = new Map(predictStatuses(model).map((entry) => [entry.storageId, entry]))
      const targeted = new Set(touchedRefs(command).map(refKey))
      for (const ref of VALID_REFS) {
        const entry = entryRules(predictions, ref)
        const known = provenance.get(storageIdOf(ref))
        const context = [...(entry?.rules ?? []), ...(known?.rules.filter((rule) => rule !== "R28") ?? []), "R28"]
        // An alarm this command wrote directly: the command's own attribution decides (e.g. a replay drop, R11).
        const direct = outcome.rules.length > 0 && targeted.has(refKey(ref))
        checks.push({
          observable: `getAlarmStatus(${refKey(ref)})`,
          expected: modelStatuses[refKey(ref)]!,
          actual: observed.statuses[refKey(ref)]!,
          rules: direct
            ? statusRules(modelStatuses[refKey(ref)]!, observed.statuses[refKey(ref)]!, outcome.rules, outcome.rules)
            : statusRules(modelStatuses[refKey(ref)]!, observed.statuses[refKey(ref)]!, context),
          why: direct ? outcome.why : entry?.why ?? known?.why ?? "no such alarm was ever stored"
        })
      }
      // Park reports are content-free, so they come after the per-alarm statuses that name the row.
      if (command.op === "dispatch" && tagOf(expectedResult) === "Success" && tagOf(actualResult) === "Success") {
        const actualParked = (actualResult as { readonly value: { readonly parked: ReadonlyArray<Json> } }).value.parked
        for (const prediction of predictions) {
          const match = /^parked\[(\d+)\]$/.exec(prediction.observable)
          if (match === null) continue
          checks.push({ observable: prediction.observable, expected: prediction.expected, actual: actualParked[Number(match[1])] ?? null, rules: prediction.rules, why: prediction.why })
        }
        const prediction = predicted("parked")!
        checks.push({ observable: "parked", expected: prediction.expected, actual: json(actualParked), rules: prediction.rules, why: prediction.why })
      }
      const reporterPrediction = predicted("reporterCalls")!
      checks.push({ observable: "reporter calls", expected: reporterPrediction.expected, actual: reporterCalls, rules: reporterPrediction.rules, why: reporterPrediction.why })
      const alarmPrediction = predicted("platformAlarm")!
      checks.push({ observable: "platform alarm", expected: alarmPrediction.expected, actual: observed.platformAlarmMs, rules: alarmPrediction.rules, why: alarmPrediction.why })

      // Coverage the property itself observes (rules with no model situation).
      if (tagOf(expectedResult) === "Success") {
        const observedRules: Array<string> = ["R28"]
        if (command.op === "schedule" || command.op === "cancel") observedRules.push("R7")
        if (command.op === "schedule" || command.op === "transaction") observedRules.push("R17")
        if (command.op === "dispatch") observedRules.push("R26")
        for (const id of requirementsWithPrimaryRules(observedRules)) covered.add(id)
      }

      const fault = faultWords(command, outcome)
      steps.push({
        index,
        operation: operation.kind,
        args,
        virtualTimeMs: atMs,
        implementation: actualResult,
        model: expectedResult,
        ...(fault === undefined ? {} : { fault }),
        implementationState: { platformAlarmMs: observed.platformAlarmMs, statuses: observed.statuses, reporterCalls },
        modelState: { platformAlarmMs: model.platformAlarmMs, statuses: modelStatuses, reporterCalls: reporterPrediction.expected }
      })

      for (const ref of touchedRefs(command)) lastTouch.set(refKey(ref), { rules: outcome.rules, why: outcome.why, stepIndex: index })
      const mismatch = firstMismatch(checks)
      if (mismatch !== undefined) {
        divergence = {
          requirementId: mostSpecificRequirement(mismatch.rules),
          stepIndex: index,
          explanation: `after ${describeOperation(operation)}${fault === undefined ? "" : ` (${fault})`}, the implementation's ${mismatch.observable} was ${brief(mismatch.actual)} but the model expected ${brief(mismatch.expected)}, because ${mismatch.why} (${mismatch.rules.join(", ")})`,
          expected: mismatch.expected,
          actual: mismatch.actual
        }
        break
      }
    }

    const trace: ExecutionTrace = { steps, divergence, covered: [...covered].sort() }
    return trace
  })
