/**
 * `execute` of the cron properties: runs a scenario against an implementation and the reference model
 * side by side on one isolated database, through the generic model-based loop
 * (`harness/ModelBased.ts`). Virtual time first jumps to the scenario's anchor (a few hours before a
 * DST transition); clock commands move it; every other command is one call on one runner (or on all,
 * for `bootstrapAll`), compared with the model on its result and on everything observed after it.
 */
import { Effect, type Scope } from "effect"
import { firstConsistent } from "../../harness/Alternatives.ts"
import { withStorageFault } from "../../harness/Faults.ts"
import { type Check, type ExecutedStep, runModelBased } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import { makeOpaqueIdNamer, type OpaqueIdNamer } from "../../harness/OpaqueIds.ts"
import type { ExecutionEnvironment, ExecutionTrace, Json } from "../../harness/Property.ts"
import { advanceByMs, advanceToMs, nowMs } from "../../harness/VirtualClock.ts"
import type { HarnessError } from "../../harness/errors.ts"
import { CRON_PREFIX, type CronModelState, type CronOperation, type CronOutcome, cronModel, cronSituations, declareSchedule, nextInstant, parseSchedule, receiptReadings } from "../../models/cron/index.ts"
import { cronAttributor } from "../../spec/cron.ts"
import type { CronImplementation } from "../../subjects/cron/api.ts"
import { cronChecks } from "./checks.ts"
import { foreignRows, seedForeignRows } from "./foreign.ts"
import { upstreamStatementChecks } from "./upstreamStatements.ts"
import { makeKeyTranslation, observationToModel, resultToModel } from "./keyTranslation.ts"
import { modelObservation, nameObservation, type RawObservation, readObservation, tickIdParts } from "./observe.ts"
import { realisedSituations } from "./realised.ts"
import { ANCHORS, type Command, type CronScenario, RUNNERS, runningCommands, TIMING } from "./scenario.ts"
import { type CronSession, harnessError, openCronSession, scheduleInput } from "./session.ts"

/** Bound on commands executed from one scenario (generators stay far below it). */
export const MAX_COMMANDS = 200

/** The model operation of a runner command at `atMs` (clock commands have none). */
const operationOf = (scenario: CronScenario, command: Command, atMs: number, winners: Readonly<Record<string, number>>): CronOperation | null => {
  switch (command.op) {
    case "declare":
      return { kind: "declare", atMs, runner: command.runner, schedule: command.entries === null ? null : scheduleInput(scenario.pool, scenario.skipMs, command.entries) }
    case "bootstrapAll":
      return { kind: "bootstrapAll", atMs, winners }
    case "race":
      return { kind: "race", atMs, ops: command.ops.map((op) => ({ kind: op.op, runner: op.runner })), order: command.order }
    case "advance":
    case "advanceToDue":
      return null
    default:
      return { ...command, kind: command.op, atMs } as CronOperation
  }
}

/** Replaces raw tick ids in a claim's result by their names. */
const nameResult = (result: Json, name: (id: string) => string): Json => {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return result
  const record = result as { readonly _tag?: Json; readonly value?: Json }
  if (record._tag !== "Success" || !Array.isArray(record.value)) return result
  return { ...record, value: record.value.map((item) => (typeof item === "object" && item !== null && !Array.isArray(item) && typeof item.intentId === "string" ? { ...item, intentId: name(item.intentId) } : item)) }
}

/** A race's results (one per operation) with raw tick ids replaced by their names. */
const nameRaceResult = (result: Json, name: (id: string) => string): Json => {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return result
  const record = result as { readonly _tag?: Json; readonly value?: Json }
  return record._tag === "Success" && Array.isArray(record.value) ? { ...record, value: record.value.map((part) => nameResult(part, name)) } : result
}

/**
 * The result check of each operation of a race, in commit order. An operation that committed later
 * read what the earlier ones wrote, so its result is decided by the rules of those writes too: its
 * check carries the row rules of every operation committed before it, first, then its own. When several
 * results differ, the first to commit is the one the witness names.
 */
const raceResultChecks = (command: Extract<Command, { op: "race" }>, parts: ReadonlyArray<CronOutcome>, expected: Json, actual: Json): ReadonlyArray<Check> => {
  const partOf = (json: Json, index: number): Json => {
    const value = typeof json === "object" && json !== null && !Array.isArray(json) ? (json as { readonly value?: Json }).value : undefined
    return Array.isArray(value) ? value[index] ?? null : json
  }
  const commitOrder = [...command.order, ...parts.keys()].filter((index, position, all) => index < parts.length && all.indexOf(index) === position)
  return commitOrder.map((index, position) => {
    const earlier = commitOrder.slice(0, position).map((before) => parts[before]!)
    return {
      observable: `result of runner ${command.ops[index]!.runner}'s ${command.ops[index]!.op} in the race (commit order ${command.order.join(", ")})`,
      expected: partOf(expected, index),
      actual: partOf(actual, index),
      rules: [...new Set([...earlier.flatMap((part) => part.rowRules ?? part.rules), ...parts[index]!.rules])],
      why: [...earlier.map((part) => `before it ${part.rowWhy ?? part.why}`), parts[index]!.why].join("; ")
    }
  })
}

/** The runner whose entry produced each row of the singleton, for a bootstrap race (first match in release order). */
const winnersOf = (model: CronModelState, order: ReadonlyArray<number>, rows: ReadonlyArray<{ readonly actorId: string; readonly timerKey: string | null; readonly command: string; readonly payload: string }>): Record<string, number> => {
  const winners: Record<string, number> = {}
  for (const row of rows) {
    if (row.actorId !== "a" || row.timerKey === null) continue
    const winner = order.find((index) => model.runners[index]?.schedule?.entries.some((entry) => entry.key === row.timerKey && entry.command === row.command && entry.payload === row.payload))
    if (winner !== undefined) winners[row.timerKey] = winner
  }
  return winners
}

/** Checks of `next` of every entry a declaration made, at the scenario's probe instants (N2, B4). */
const probeChecks = (scenario: CronScenario, command: Extract<Command, { op: "declare" }>, nextOf: (runner: number, key: string, afterMs: number) => Json, implementationKey: (modelKey: string) => string): { readonly checks: ReadonlyArray<Check>; readonly covered: ReadonlyArray<string> } => {
  if (command.entries === null) return { checks: [], covered: [] }
  const declared = declareSchedule(scheduleInput(scenario.pool, scenario.skipMs, command.entries))
  if (typeof declared === "string") return { checks: [], covered: [] }
  const anchor = ANCHORS[scenario.anchor]!
  const checks: Array<Check> = []
  let zoned = false
  for (const entry of declared.entries) {
    for (const probe of scenario.probesMs) {
      const afterMs = anchor.atMs + probe
      const expected = nextInstant(entry.schedule, afterMs)
      const actual = nextOf(command.runner, implementationKey(entry.key), afterMs)
      const inZone = entry.schedule.kind === "cron" && entry.schedule.zone !== "UTC"
      zoned ||= inZone
      const asUtc = entry.schedule.kind === "cron" ? parseSchedule(keyFields(entry.key), "UTC") : null
      const utcOnly = asUtc !== null && inZone && actual === nextInstant(asUtc, afterMs)
      checks.push({
        observable: `next(${new Date(afterMs).toISOString()}) of ${entry.key}`,
        expected,
        actual,
        rules: utcOnly ? ["B4", "N2"] : ["N2"],
        why: utcOnly ? "the schedule's wall times are read in its own zone, not in UTC" : "next is the first instant strictly after, with gaps firing once after the gap and folds only on their first pass"
      })
    }
  }
  return { checks, covered: ["CRN-002", ...(zoned ? ["CRN-015"] : [])] }
}

/**
 * Checks of `next` of the scenario's undeployed spec probes and dated probes (N2, B4), in the anchor's
 * zone, each at `anchor + afterMs`, compared with the model's brute-force scan.
 */
const specProbeChecks = (scenario: CronScenario, session: CronSession) =>
  Effect.gen(function*() {
    const anchor = ANCHORS[scenario.anchor]!
    const checks: Array<Check> = []
    for (const probe of [...(scenario.specProbes ?? []), ...(scenario.datedProbes ?? [])]) {
      const afterMs = anchor.atMs + probe.afterMs
      const schedule = parseSchedule(probe.spec, anchor.zone)
      const actual = yield* session.nextOfSpec(probe.spec, anchor.zone, afterMs)
      const asUtc = parseSchedule(probe.spec, "UTC")
      const utcOnly = schedule !== null && anchor.zone !== "UTC" && asUtc !== null && actual === nextInstant(asUtc, afterMs)
      checks.push({
        observable: `next(${new Date(afterMs).toISOString()}) of ${JSON.stringify(probe.spec)} in ${anchor.zone}`,
        expected: schedule === null ? "invalid" : nextInstant(schedule, afterMs),
        actual,
        rules: utcOnly ? ["B4", "N2"] : ["N2"],
        why: "next is the first instant strictly after, with a wall time skipped by a gap firing once at the first instant after the gap and folds only on their first pass"
      })
    }
    return checks
  })

/** The five fields of a `$cron:<zone> <fields>` key. */
const keyFields = (key: string): string => key.split(" ").slice(1).join(" ")

/** The schedule a timer key names (`$cron:<zone> <fields>` or `$cron:@every <ms>ms`), parsed by the model. */
const scheduleOfKey = (key: string) => {
  const body = key.slice(CRON_PREFIX.length)
  return body.startsWith("@") ? parseSchedule(body, null) : parseSchedule(keyFields(key), body.split(" ")[0]!)
}

/**
 * For every tick written or rewritten in this step (an id not seen before), the implementation's own
 * `next` at the id's `now` compared with the model's (N2): a wrong `next` shows here, attributed to N2,
 * before the rows it wrote are compared under the step's own rules.
 */
const writtenNextChecks = (
  raw: RawObservation,
  seen: OpaqueIdNamer,
  nextOf: (runner: number, key: string, afterMs: number) => Json,
  modelKey: (implementationKey: string) => string
): ReadonlyArray<Check> =>
  raw.rows.flatMap((row) => {
    const nowMs = tickIdParts(row.intentId).nowMs
    if (row.timerKey === null || seen.known(row.intentId) !== undefined || nowMs === null) return []
    const written = row.timerKey
    // The schedule is read from the model's key; the implementation is asked under its own.
    const key = modelKey(written)
    const schedule = scheduleOfKey(key)
    const actual = Array.from({ length: RUNNERS }, (_, runner) => nextOf(runner, written, nowMs)).find((next) => next !== "undeclared")
    if (schedule === null || actual === undefined) return []
    const asUtc = schedule.kind === "cron" && schedule.zone !== "UTC" ? parseSchedule(keyFields(key), "UTC") : null
    const utcOnly = asUtc !== null && actual === nextInstant(asUtc, nowMs)
    return [{
      observable: `next(${new Date(nowMs).toISOString()}) of ${key} when its tick was written`,
      expected: nextInstant(schedule, nowMs),
      actual,
      rules: utcOnly ? ["B4", "N2"] : ["N2"],
      why: "a tick's due time is next(now) of its entry, the first instant strictly after now in the entry's zone"
    }]
  })

/**
 * Builds the `execute` of a cron property bound to `implementation`.
 *
 * @example const execute = executeCron(shippedCron)
 */
export const executeCron = (implementation: CronImplementation) =>
(scenario: CronScenario, environment: ExecutionEnvironment): Effect.Effect<ExecutionTrace, HarnessError, Scope.Scope> =>
  Effect.gen(function*() {
    const anchor = ANCHORS[scenario.anchor]!
    yield* advanceToMs(anchor.atMs)
    const session = yield* openCronSession(implementation, environment.database, environment.dialect, RUNNERS, scenario.pool, scenario.skipMs)
    // N6: rows no runner may claim; they must stay exactly as written.
    const foreign = scenario.foreignRows === true ? foreignRows(anchor.atMs) : []
    yield* seedForeignRows(environment.database.sql, foreign).pipe(Effect.mapError(harnessError("writing the foreign rows")))
    // Rows: upstream's statements on the layout the first runner created, judged with the first step.
    let layoutChecks: ReadonlyArray<Check> = yield* upstreamStatementChecks(environment.database.sql)
    const withLayoutChecks = (executed: ExecutedStep): ExecutedStep => {
      if (layoutChecks.length === 0) return executed
      const checks = [...layoutChecks, ...executed.checks]
      layoutChecks = []
      return { ...executed, checks, covered: [...executed.covered, "CRN-017"] }
    }
    let model = cronModel.init({ runners: RUNNERS, timing: TIMING })
    const implementationNames = makeOpaqueIdNamer()
    const keys = makeKeyTranslation()
    const modelNames = makeOpaqueIdNamer()
    // The spec probes are checked once, on the first declaration's step.
    let specsProbed = false

    const clockStep = (command: Extract<Command, { op: "advance" | "advanceToDue" }>, atMs: number) =>
      Effect.gen(function*() {
        const due = model.rows.map((row) => row.dueAtMs).filter((dueAtMs) => dueAtMs > atMs)
        if (command.op === "advance") yield* advanceByMs(command.ms)
        else if (due.length > 0) yield* advanceToMs(Math.min(...due))
        const reached = yield* nowMs
        const executed: ExecutedStep = {
          record: { operation: command.op, args: toJson(command), virtualTimeMs: atMs, implementation: { nowMs: reached }, model: { nowMs: reached } },
          checks: [],
          covered: [],
          described: `${command.op} to ${new Date(reached).toISOString()}`
        }
        return executed
      })

    const commandStep = (command: Command): Effect.Effect<ExecutedStep, HarnessError> =>
      Effect.gen(function*() {
        const atMs = yield* nowMs
        if (command.op === "advance" || command.op === "advanceToDue") return yield* clockStep(command, atMs)
        const calledResult = yield* session.call(command, atMs)
        if (command.op === "turn") yield* advanceToMs(atMs + command.turnMs)
        const unread = yield* readObservation(environment.database.sql, environment.dialect).pipe(Effect.mapError(harnessError("reading the outbox")))
        // A declaration tells which of the implementation's keys is which of the model's (N1 leaves their text open).
        if (command.op === "declare") keys.learn(calledResult, toJson(cronModel.step(model, operationOf(scenario, command, atMs, {})!).result))
        const actualResult = resultToModel(calledResult, keys, command.op === "declare")
        const raw = observationToModel(unread, keys)
        const winners = command.op === "bootstrapAll" ? winnersOf(model, command.order, raw.rows) : {}
        // The model is told a failed statement only as it struck (fewer statements: a refused commit; a
        // body that failed first: no fault); every other fault as drawn.
        const faulted = "fault" in command && command.fault?.phase === "statementFails" ? withStorageFault(command, session.lastFault()?.struck) : command
        const operation = operationOf(scenario, faulted, atMs, winners)!
        const before = model
        const nextChecks = writtenNextChecks(unread, implementationNames, session.nextOf, keys.toModel)
        const actual = nameObservation(raw, implementationNames)
        const nameOf = command.op === "race" ? nameRaceResult : nameResult
        const namedActual = nameOf(actualResult, implementationNames.name)
        // Where the rules allow two readings of a receipt, the step is judged by the one the observation agrees with.
        const judge = (alternative: CronOperation) => {
          const outcome = cronModel.step(before, alternative)
          const modelRaw = modelObservation(outcome.state)
          const expected = nameObservation({ ...modelRaw, rows: [...modelRaw.rows, ...foreign] }, modelNames)
          const expectedResult = nameOf(toJson(outcome.result), modelNames.name)
          const [resultCheck, ...stateChecks] = cronChecks({ outcome, expectedResult, actualResult: namedActual, expected, actual, actualRaw: raw })
          const resultChecks = command.op === "race" && outcome.parts !== undefined ? raceResultChecks(command, outcome.parts, expectedResult, namedActual) : [resultCheck!]
          return { outcome, expected, expectedResult, resultChecks, checks: [...resultChecks, ...stateChecks] }
        }
        const judged = firstConsistent(receiptReadings(before, operation), judge)
        const { outcome, expected, expectedResult } = judged
        // `judged.checks` carries what the other reading expected where none agrees (`alsoExpected`).
        const resultChecks = judged.checks.slice(0, judged.resultChecks.length)
        const stateChecks = judged.checks.slice(judged.resultChecks.length)
        model = outcome.state
        const probes = command.op === "declare" && outcome.result._tag === "Success" ? probeChecks(scenario, command, session.nextOf, keys.toImplementation) : { checks: [], covered: [] }
        const specChecks = command.op === "declare" && !specsProbed ? yield* specProbeChecks(scenario, session) : []
        if (command.op === "declare") specsProbed = true
        const checks = [...resultChecks, ...nextChecks, ...stateChecks, ...probes.checks, ...specChecks]
        // What the harness realised for this command, read once for the record and the situations.
        const realised = {
          race: command.op === "race" ? session.lastRace() : null,
          bootstrapOpenTogether: command.op === "bootstrapAll" ? session.lastBootstrapOpenTogether() : 0
        }
        const overlap = command.op === "race"
          ? { overlap: realised.race }
          : command.op === "bootstrapAll" ? { openTogether: realised.bootstrapOpenTogether } : {}
        const executed: ExecutedStep = {
          record: {
            operation: operation.kind,
            args: toJson(command),
            virtualTimeMs: atMs,
            implementation: namedActual,
            model: expectedResult,
            ...("fault" in command && command.fault !== undefined
              ? { fault: session.lastFault()?.words ?? "" }
              : {}),
            implementationState: toJson({ rows: actual.rows, fired: actual.fired, receipts: actual.receipts, ...overlap }),
            // How the harness realised a race or a joint bootstrap is the same fact for both sides, so a
            // step's state view does not flag it as a difference.
            modelState: toJson({ rows: expected.rows, fired: expected.fired, receipts: expected.receipts, ...overlap })
          },
          checks,
          covered: [...outcome.covered, ...probes.covered, ...(specChecks.length > 0 ? ["CRN-002"] : [])],
          situations: [
            ...cronSituations(before, operation, outcome),
            ...realisedSituations(command, before, realised)
          ],
          described: cronModel.describeOperation(operation)
        }
        return executed
      })

    return yield* runModelBased<Command>({ maxCommands: MAX_COMMANDS, attributor: cronAttributor, requirements: environment.requirements, step: (command) => Effect.map(commandStep(command), withLayoutChecks) }, runningCommands(scenario))
  })
