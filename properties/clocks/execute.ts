/**
 * `execute` of the clocks properties, through the generic model-based loop (`harness/ModelBased.ts`).
 *
 * Every step is stepped on the model first (it also tells the harness the instants at which timers
 * fire, so virtual time walks through them one by one and each fire settles before the next), then
 * called on the implementation through the session. Model-based properties compare every observable
 * with the model (`checks.ts`); the liveness property compares the model-free invariants of the
 * idempotence guarantee (`invariants.ts`) after each step and ends with the liveness phase
 * (`livenessPhase.ts`), so a bug that only loses work is caught by the liveness requirements.
 */
import { Effect, References, type Scope } from "effect"
import { describeStorageFault, VOIDED_FAULT_WORDS, withoutStorageFault } from "../../harness/Faults.ts"
import type { FaultAsStruck } from "../../harness/StruckFault.ts"
import { firstConsistent } from "../../harness/Alternatives.ts"
import { type Check, type ExecutedStep, runModelBased } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import type { ExecutionEnvironment, ExecutionTrace, Json } from "../../harness/Property.ts"
import { nowMs } from "../../harness/VirtualClock.ts"
import type { HarnessError } from "../../harness/errors.ts"
import {
  clocksModel,
  clocksSituations,
  type FaultedCommand,
  keyOf,
  type ModelState,
  type Operation,
  operationAlternatives,
  otherProcess,
  raceSituation,
  resultRaceSituation,
  scheduleRaceSituation,
  type StepOutcome
} from "../../models/clocks/index.ts"
import { CLOCKS_SPAN_RULE, clocksAttributor } from "../../spec/clocks.ts"
import type { ClocksImplementation } from "../../subjects/clocks/api.ts"
import { clocksDialect } from "../../subjects/clocks/dialect.ts"
import type { ClocksScenario } from "./arbitraries.ts"
import { announcementChecks, clocksChecks } from "./checks.ts"
import { emptyMemory, invariantChecks } from "./invariants.ts"
import { probeJournal } from "./journalProbe.ts"
import { livenessPhase, type LivenessContext } from "./livenessPhase.ts"
import { spanCheck } from "./spanCheck.ts"
import { observeRows } from "./observe.ts"
import type { RaceReport } from "./race.ts"
import type { ResultRaceReport } from "./resultRace.ts"
import type { ScheduleRaceReport } from "./scheduleRace.ts"
import { type ClocksSession, openClocksSession } from "./session.ts"

/** Bound on commands executed from one scenario. */
export const MAX_COMMANDS = 60

/** How a property compares each step. */
export type Comparison = "model" | "invariants"

/**
 * A step's fault in words: the storage fault as it struck (`faultAsStruck`), or as drawn and voided
 * by the model, then the journal's failed emit.
 */
const faultWords = (command: FaultedCommand, voided: boolean, struck: FaultAsStruck | undefined): string | undefined => {
  const storage = command.fault === undefined
    ? undefined
    : voided
    ? `${describeStorageFault(command.fault, command.op, true)}: ${VOIDED_FAULT_WORDS}`
    : struck?.words
  const words = [storage, journalFaultWords(command)].filter((word) => word !== undefined)
  return words.length === 0 ? undefined : words.join(", ")
}

/** A step's failing durable emits in words: one, or an outage of several in a row. */
const journalFaultWords = (command: FaultedCommand): string | undefined => {
  if (command.journalFault === undefined) return undefined
  const outage = command.journalOutageEmits ?? 1
  return outage <= 1
    ? `durable emit ${command.journalFault} fails`
    : `durable emits ${command.journalFault} to ${command.journalFault + outage - 1} fail (a journal outage)`
}

/** The command without its fire race. */
const withoutRace = (command: FaultedCommand): FaultedCommand => {
  if (command.op !== "advance" || command.race === undefined) return command
  const { race: _race, ...plain } = command
  return plain
}

/** The command as the race ran it: without the race when it was not realised, with lag 0 when its hold was dropped. */
const asRaced = (command: FaultedCommand, report: RaceReport | null): FaultedCommand => {
  if (report === null || command.op !== "advance" || command.race === undefined) return command
  if (!report.realized) return withoutRace(command)
  return report.holdDropped ? { ...command, race: { ...command.race, lagMs: 0, overlap: false } } : command
}

/**
 * A reading race as the harness ran it: a held read that never paused (it began no transaction, or
 * wrote nothing in one) ran through before time moved on; one held inside its transaction that `first`
 * waited on committed first (with its time from before the lag, unless an alternative says after).
 */
const asResultRaced = (command: FaultedCommand, report: ResultRaceReport | null): FaultedCommand => {
  if (report === null || command.op !== "resultRace") return command
  if (!report.held) return { ...command, heldRanThrough: true }
  return report.heldCommittedFirst && command.heldCommittedFirst === undefined ? { ...command, heldCommittedFirst: "atStart" } : command
}

/**
 * A reading race whose held read committed first is judged also with the held read's time taken after
 * the lag; one whose order is unknown, by either order and either time.
 */
const heldFirstAlternatives = (operation: Operation, report: ResultRaceReport | null): ReadonlyArray<Operation> => {
  const command = operation.command
  if (report === null || command.op !== "resultRace" || !(report.heldCommittedFirst || report.orderUnknown)) return []
  const afterLag: Operation = { ...operation, command: { ...command, heldCommittedFirst: "afterLag" } }
  return report.orderUnknown ? [{ ...operation, command: { ...command, heldCommittedFirst: "atStart" } }, afterLag] : [afterLag]
}

/** A reading race in plain words, for the counterexample. */
const resultRaceWords = (command: FaultedCommand, report: ResultRaceReport): string => {
  if (command.op !== "resultRace") return ""
  const held = otherProcess(command.first)
  const race = `reading race of ${command.exec}/${command.deferred}`
  if (!report.held) return `${race}: ${held}'s read ran through (it began no transaction the harness could hold, or wrote nothing in one), then ${command.first}'s ${command.lagMs} ms later`
  if (!report.overlapped) return `${race}: ${held}'s read held before its transaction while time moved on ${command.lagMs} ms and ${command.first} read`
  const then = report.heldCommittedFirst
    ? `${command.first}'s read waited on its lock, so ${held}'s committed first`
    : report.orderUnknown
    ? `${command.first}'s read neither finished nor waited on a lock the server showed, so ${held}'s was released with it still running (either order)`
    : `${command.first} read to completion, then ${held}'s went on`
  return `${race}: ${held}'s read held inside its open transaction, before its first write, while time moved on ${command.lagMs} ms; ${then}`
}

/**
 * The command as its run's waiting ended: a generated stop at the transaction's begin that the call
 * never reached (it began no transaction) happened after the call (`session.ts`'s `stopWaitingAtBegin`).
 */
const asWaitingStopped = (command: FaultedCommand, stop: "atBegin" | "after" | null): FaultedCommand =>
  stoppedAfterInstead(command, stop) && command.op === "deferredDoneIfWaiting" ? { ...command, stopsWaiting: "after" } : command

/** Whether a stop generated at the transaction's begin happened after the call instead (it began none). */
const stoppedAfterInstead = (command: FaultedCommand, stop: "atBegin" | "after" | null): boolean =>
  command.op === "deferredDoneIfWaiting" && command.stopsWaiting === "atBegin" && stop === "after"

/** The race of a step in plain words, for the counterexample. */
const raceWords = (outcome: StepOutcome, report: RaceReport): string => {
  const race = outcome.race!
  if (!report.realized) return `race of ${race.key} at ${race.atMs} not realised (the fires never paused at clocks.fire.begin nor before their transaction began)`
  if (report.holdDropped) return `race of ${race.key} at ${race.atMs}: ${race.first} released first, then ${race.second} (its ${race.lagMs} ms hold dropped: it paused only before its transaction)`
  const how = report.overlapped
    ? `its open transaction overlapped by ${race.second}'s${report.blocked ? ", which waited on its lock (pg_blocking_pids)" : ""}`
    : race.lagMs > 0 ? `${race.second} held ${race.lagMs} ms at clocks.fire.begin` : `then ${race.second}`
  return `race of ${race.key} at ${race.atMs}: ${race.first} released first, ${how}`
}

/**
 * A scheduling race that ran unordered (the store opened no transaction the harness could hold) is
 * judged by either order: the other order's race as an alternative.
 */
const unorderedAlternatives = (operation: Operation, report: ScheduleRaceReport | null): ReadonlyArray<Operation> => {
  const command = operation.command
  if (report === null || report.ordered || command.op !== "scheduleRace") return []
  return [{ ...operation, command: { ...command, first: otherProcess(command.first) } }]
}

/** A scheduling race in plain words, for the counterexample. */
const scheduleRaceWords = (command: FaultedCommand, report: ScheduleRaceReport): string => {
  if (command.op !== "scheduleRace") return ""
  const second = otherProcess(command.first)
  if (!report.ordered) return `scheduling race of ${command.exec}/${command.clock}: unordered (no transaction was held open at the storage boundary)`
  if (!report.overlapped) return `scheduling race of ${command.exec}/${command.clock}: ${command.first} scheduled first, then ${second}`
  return `scheduling race of ${command.exec}/${command.clock}: ${command.first}'s open transaction overlapped by ${second}'s${report.blocked ? ", which waited on its lock (pg_blocking_pids)" : ""}`
}

/** Requirements a step reached, from the rules the model says it exercised. */
const coveredBy = (reached: ReadonlyArray<string>, comparison: Comparison): ReadonlyArray<string> =>
  comparison === "model"
    ? clocksAttributor.requirementsWithPrimaryRules(reached).filter((id) => id !== "CLK-004" || reached.includes("B5"))
    : clocksAttributor.requirementsWithPrimaryRules(["IG1", "IG2", "IG3", "IG4"].filter((rule) =>
      rule === "IG1" ? reached.includes("C10") : rule === "IG2" ? reached.includes("C5") || reached.includes("C10") : reached.length > 0))

/** One command step on both sides. */
const commandStep = (
  session: ClocksSession,
  environment: ExecutionEnvironment,
  comparison: Comparison,
  state: { model: ModelState; readonly memory: ReturnType<typeof emptyMemory>; readonly liveness: LivenessContext; readonly journalProbe: ReadonlyArray<Check> },
  command: FaultedCommand,
  index: number
) =>
  Effect.gen(function*() {
    const atMs = yield* nowMs
    const before = state.model
    const raced = clocksModel.step(before, { command, atMs })
    const resumesBefore = session.resumeLog().length
    const flushFailuresBefore = session.flushFailures()
    const failureLogsBefore = session.failureLogs()
    const nonJsonBefore = session.nonJsonRecordParts().length
    const announcedBefore = session.announcedRecords().length
    // A failed statement the model voids (the transaction fails on its own first) is not injected.
    const expected = { resumes: raced.resumes.length, resumesAtWaypoints: raced.fireResumes, transactionsAtWaypoints: raced.fireTransactions }
    const result = yield* session.call(raced.faultVoided ? withoutStorageFault(command) : command, index, raced.fireInstantsMs, raced.race, expected)
    const race = session.lastRace()
    const scheduleRace = session.lastScheduleRace()
    const resultRace = session.lastResultRace()
    const waitingStop = session.lastWaitingStop()
    /** The command as the harness realised it: its race (`asRaced`), when its run stopped waiting, and without a read fault that did not strike. */
    const asRun = (generated: FaultedCommand): FaultedCommand => {
      const realised = asResultRaced(asWaitingStopped(asRaced(generated, race), waitingStop), resultRace)
      return faultNotMet ? withoutStorageFault(realised) : realised
    }
    if (command.op === "rewind") state.memory.completions.delete(keyOf(command.exec, command.deferred))
    state.liveness.noteCall(command, result)
    const observed = yield* observeRows(environment.database.sql)
    state.liveness.noteCompletions(observed, resumesBefore)
    const resumes = session.resumeLog().slice(resumesBefore)
    const checksOf = (outcome: StepOutcome): ReadonlyArray<Check> =>
      comparison === "model"
        ? [
          ...announcementChecks(command, outcome, session.announcedRecords().slice(announcedBefore)),
          ...clocksChecks({ outcome, actualResult: result, resumes, observed, lossyRecords: session.lossyRecords(), effectRuns: session.effectRuns(), flushFailures: session.flushFailures() - flushFailuresBefore, failureLogs: session.failureLogs() - failureLogsBefore,
            nonJsonRecordParts: session.nonJsonRecordParts().slice(nonJsonBefore) }),
          // The journal's own answers, probed before the first command (`journalProbe.ts`).
          ...(index === 0 ? state.journalProbe : [])
        ]
        : invariantChecks(observed, state.memory)
    // An implementation that never reached the race's points ran its fires unordered: compare with the model
    // without the race; one whose held fire paused only before its transaction ran it at once (lag 0).
    // `asRaced` says which; the prediction already made (`raced`) is the generated race's. A failed read
    // the implementation never ran (it read less, or inside a transaction) did not strike; a failed
    // statement the call went on past and committed (SQLite's meaning) is judged as if it had not failed.
    const readMissed = command.fault?.phase === "readFails" && session.lastFault()?.struck === undefined
    const faultNotMet = readMissed || session.lastFault()?.recovered === true
    const ranOtherThanGenerated = (race !== null && (!race.realized || race.holdDropped)) || stoppedAfterInstead(command, waitingStop) || faultNotMet || resultRace?.held === false || resultRace?.heldCommittedFirst === true
    // An alternative is told the storage fault as the harness injected it: none when the canonical prediction
    // voided it. (An alternative that voids a fault the harness did inject predicts the body's own failure
    // first, one of the two outcomes that are then right.)
    const asInjected = (alternative: FaultedCommand): FaultedCommand => (raced.faultVoided ? withoutStorageFault(alternative) : alternative)
    const predict = (operation: Operation, alternative: number) => {
      const outcome = alternative > 0
        ? clocksModel.step(before, { ...operation, command: asInjected(asRun(operation.command)) })
        : ranOtherThanGenerated ? clocksModel.step(before, { command: asRun(command), atMs }) : raced
      return { outcome, checks: checksOf(outcome) }
    }
    // Where the reference leaves a choice open, the step is judged by the first prediction the observation
    // agrees with (`models/clocks/alternatives.ts`); the invariants do not depend on the model, and are checked once.
    const alternatives = comparison === "model"
      ? [...operationAlternatives(before, { command, atMs }), ...unorderedAlternatives({ command, atMs }, scheduleRace), ...heldFirstAlternatives({ command, atMs }, resultRace)]
      : [{ command, atMs }]
    const { outcome, checks } = firstConsistent(alternatives.map((operation, alternative) => ({ operation, alternative })),
      ({ operation, alternative }) => predict(operation, alternative))
    state.model = outcome.state
    const spans = comparison === "model" ? spanCheck(command, session.lastSpans()) : undefined
    const fault = [
      faultWords(command, outcome.faultVoided, session.lastFault()),
      race === null ? undefined : raceWords(raced, race),
      scheduleRace === null ? undefined : scheduleRaceWords(command, scheduleRace),
      resultRace === null ? undefined : resultRaceWords(command, resultRace)
    ].filter((words) => words !== undefined).join("; ") || undefined
    const executed: ExecutedStep = {
      record: {
        operation: command.op,
        args: toJson(command),
        virtualTimeMs: atMs,
        implementation: result,
        model: comparison === "model" ? outcome.result : null,
        ...(fault === undefined ? {} : { fault }),
        implementationState: { deferreds: observed.deferreds, clocks: observed.clocks, resumes: toJson(resumes) } as Json,
        modelState: toJson({ deferreds: Object.values(outcome.state.deferreds), clocks: Object.values(outcome.state.clocks), resumes: outcome.resumes })
      },
      checks: spans === undefined ? checks : [...checks, spans],
      covered: coveredBy([...outcome.reached, ...(outcome.resumes.length > 0 ? ["C5"] : []), ...(spans === undefined ? [] : [CLOCKS_SPAN_RULE])], comparison),
      // The race counts as it ran: the judged prediction's race is the realised one (`asRaced`).
      situations: [...clocksSituations(before, { command, atMs }, outcome), ...raceSituation(outcome, race?.overlapped === true), ...scheduleRaceSituation(scheduleRace), ...resultRaceSituation(before, command, resultRace), ...(waitingStop === "atBegin" ? ["completeIfWaitingStoppedAtBegin" as const] : [])],
      described: `${clocksModel.describeOperation({ command, atMs })}${fault === undefined ? "" : ` (${fault})`}`
    }
    return executed
  })

/**
 * Builds the `execute` of a clocks property bound to `implementation`.
 *
 * `probeJournal`: also probe the journal's own contract before the first command (`journalProbe.ts`).
 *
 * @example const execute = executeClocks(shippedClocks, "model", { probeJournal: true })
 */
export const executeClocks = (implementation: ClocksImplementation, comparison: Comparison, options: { readonly probeJournal: boolean } = { probeJournal: false }) =>
(scenario: ClocksScenario, environment: ExecutionEnvironment): Effect.Effect<ExecutionTrace, HarnessError, Scope.Scope> =>
  Effect.gen(function*() {
    const session = yield* openClocksSession(implementation, environment)
    const journalProbe = comparison === "model" && options.probeJournal
      ? yield* probeJournal(environment.database.sql, environment.database.platformAlarm, clocksDialect(environment.dialect))
      : []
    const state = { model: clocksModel.init(yield* nowMs), memory: emptyMemory(), liveness: livenessPhase(session, environment), journalProbe }
    const commands = scenario.commands.slice(0, MAX_COMMANDS)
    return yield* runModelBased<FaultedCommand | "liveness">({
      maxCommands: MAX_COMMANDS + 1,
      attributor: clocksAttributor,
      requirements: environment.requirements,
      step: (command, index) => (command === "liveness" ? state.liveness.step(index) : commandStep(session, environment, comparison, state, command, index))
    }, comparison === "invariants" ? [...commands, "liveness"] : commands)
  }).pipe(Effect.provideService(References.MinimumLogLevel, "None"))
