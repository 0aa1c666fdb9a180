/**
 * fast-check arbitraries of alarms scenarios. Generation favours interesting timelines: an
 * always-failing handler dispatched repeatedly while the clock jumps to the next wake (so parking is
 * reachable in a small scenario, and faster under a small `unchangedAttemptBudget`), redelivered
 * platform alarms, self-rearming handlers, replayed cursors, and collisions in a 2 x 3 id space.
 */
import * as fc from "fast-check"
import { storageFaultArbitrary } from "../../harness/Faults.ts"
import type { Json } from "../../harness/Property.ts"
import type { OnFailureScript, ProcessOptions, ScheduleConfigurationInput, TransactionFault } from "../../models/alarms/index.ts"
import { UNCHANGED_ATTEMPT_BUDGET, UNENCODABLE_PAYLOAD_KEY } from "../../models/alarms/index.ts"
import {
  type AlarmsScenario,
  type Command,
  type HandlerEntrySpec,
  type HandlerScriptSpec,
  type HandlerWriteSpec,
  IDS,
  type InputSpec,
  type LegacyAttemptsSpec,
  type LegacyLayoutKind,
  type LegacyRowSpec,
  type MutationSpec,
  type RefSpec,
  TAGS,
  type TransactionMutationSpec
} from "./scenario.ts"
import {
  declaredTag,
  earlierBoundaryCommands,
  earlierBoundaryDraw,
  finalKnownTags,
  illTypedCommands,
  illTypedDraw,
  misusedHandleCommands,
  misusedHandleDraw,
  narrowedSchemaCommands,
  narrowedSchemaDraw,
  readFaultCommands,
  readFaultDraw,
  overlayPrecedenceCommands,
  overlayPrecedenceDraw,
  parkLostCommands,
  parkLostDraw,
  retryCapCommands,
  retryCapDraw,
  retryFailedAfterCommands,
  retryFailedAfterDraw
} from "./appended.ts"
import { statementFaultCommands, statementFaultDraws, statementFaultTimeline } from "./statementFaultTimeline.ts"
import { type FaultedTransaction, ORDINAL_DRAWS, statementOrdinal, withStatementOrdinal } from "./statementOrdinals.ts"
import { type AnyChunkKind, type ChunkKind, fullProfile, type SwarmProfile, swarmProfile } from "./swarm.ts"
import { boundaryConfiguration, boundaryTimeline, cursorPassesTimeline, handleMisuseTimeline, parkedCrossRowTimeline, twoInvalidInputs, writeOrderTimeline } from "./targeted.ts"

/** What a generator may include. */
export interface ScenarioShape {
  /** Inject transaction faults (crash inside, crash after commit, failing platform alarm write). */
  readonly faults: boolean
  /** Start from rows of one of the two older layouts. */
  readonly legacy: boolean
  /** Upper bound on generated chunks (a chunk is one command or a short timeline). */
  readonly maxChunks: number
}

const DAY_MS = 86_400_000

/** Every ref of the id space. */
export const VALID_REFS: ReadonlyArray<RefSpec> = TAGS.flatMap((tag) => IDS.map((id) => ({ tag, id })))

const validRef: fc.Arbitrary<RefSpec> = fc.constantFrom(...VALID_REFS)

/** `arbitrary` in about `percent`% of draws, otherwise absent. */
const sometimes = <A>(arbitrary: fc.Arbitrary<A>, percent: number): fc.Arbitrary<A | undefined> =>
  fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(undefined) }, { weight: percent, arbitrary })

const payload: fc.Arbitrary<Json> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null) },
  { weight: 4, arbitrary: fc.nat({ max: 3 }) },
  { weight: 3, arbitrary: fc.record({ n: fc.nat({ max: 3 }) }) },
  {
    weight: 1,
    // Not JSON: a bigint, or values JSON.stringify accepts silently (NaN, Infinity, a function, a Date, undefined), maybe nested.
    arbitrary: fc.tuple(fc.constantFrom<Json>(true, "nan", "infinity", "function", "date", "undefined"), fc.boolean()).map(([kind, nested]): Json =>
      nested ? { n: { [UNENCODABLE_PAYLOAD_KEY]: kind } } : { [UNENCODABLE_PAYLOAD_KEY]: kind }
    )
  }
)

const runInMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: -120_000, max: -1 }) },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 10_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 10_001, max: 3_600_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 3_600_001, max: 3 * DAY_MS }) }
)

const repeatEveryMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(60_000, 120_000, 3_600_000) },
  { weight: 2, arbitrary: fc.constantFrom(1_000, 1_500.5, 30_000, 0, -1, 999) }
)

const progress: fc.Arbitrary<number> = fc.oneof(
  { weight: 12, arbitrary: fc.nat({ max: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 1.5) }
)

/** Deadlines near the clock: at it, one ms either side, or within a second (swarm range `near`). */
const nearRunInMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(-1, 0, 1) },
  { weight: 2, arbitrary: fc.integer({ min: -1_000, max: 1_000 }) }
)

/** Deadlines from an hour to a month ahead (swarm range `far`). */
const farRunInMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 3, arbitrary: fc.integer({ min: 3_600_000, max: 30 * DAY_MS }) }
)

/** Cursors from {0, 1} (swarm `tightCursors`): equal and replayed cursors are common. */
const tightProgress: fc.Arbitrary<number> = fc.oneof(
  { weight: 12, arbitrary: fc.nat({ max: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 0.5) }
)

/** A scenario's value ranges, from its swarm profile (swarm.ts). */
interface Ranges {
  readonly validRef: fc.Arbitrary<RefSpec>
  readonly ref: fc.Arbitrary<RefSpec>
  readonly runIn: fc.Arbitrary<number>
  readonly cursor: fc.Arbitrary<number>
}

const rangesOf = (profile: SwarmProfile): Ranges => {
  const valid = fc.constantFrom(...profile.refs)
  return {
    validRef: valid,
    ref: fc.oneof(
      { weight: 30, arbitrary: valid },
      { weight: 1, arbitrary: fc.constantFrom<RefSpec>({ tag: "", id: "1" }, { tag: "a", id: "" }) }
    ),
    runIn: profile.deadlines === "near" ? nearRunInMs : profile.deadlines === "far" ? farRunInMs : runInMs,
    cursor: profile.tightCursors ? tightProgress : progress
  }
}

const inputWith = (
  target: fc.Arbitrary<RefSpec>,
  percents: { readonly repeat: number; readonly progress: number },
  deadline: fc.Arbitrary<number> = runInMs,
  cursorRange: fc.Arbitrary<number> = progress
): fc.Arbitrary<InputSpec> =>
  fc.tuple(target, payload, deadline, sometimes(repeatEveryMs, percents.repeat), sometimes(cursorRange, percents.progress)).map((
    [ref, body, runIn, repeat, cursor]
  ) => ({
    tag: ref.tag,
    id: ref.id,
    payload: body,
    runInMs: runIn,
    ...(repeat === undefined ? {} : { repeatEveryMs: repeat }),
    ...(cursor === undefined ? {} : { progress: cursor })
  }))

const mutationFor = (
  target: fc.Arbitrary<RefSpec>,
  percents = { repeat: 20, progress: 25 },
  deadline: fc.Arbitrary<number> = runInMs,
  cursorRange: fc.Arbitrary<number> = progress
): fc.Arbitrary<MutationSpec> =>
  fc.oneof(
    { weight: 5, arbitrary: inputWith(target, percents, deadline, cursorRange).map((value): MutationSpec => ({ kind: "scheduleAlarm", input: value })) },
    { weight: 2, arbitrary: inputWith(target, percents, deadline, cursorRange).map((value): MutationSpec => ({ kind: "scheduleAlarmEarlier", input: value })) },
    { weight: 2, arbitrary: target.map((value): MutationSpec => ({ kind: "cancelAlarm", ref: value })) }
  )

const transactionMutationOf = (r: Ranges): fc.Arbitrary<TransactionMutationSpec> => fc.tuple(
  mutationFor(r.ref, undefined, r.runIn, r.cursor),
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom("forkedFiber" as const, "afterTransaction" as const) }
  )
).map(([value, misuse]) => (misuse === undefined ? value : { ...value, misuse }))

/** The storage fault phases the alarms model gives a meaning (`models/alarms/operations.ts`). */
export const ALARM_FAULT_PHASES: ReadonlyArray<TransactionFault["phase"]> = ["inside", "afterCommit", "lostReply", "setAlarmFails", "commitRefused", "statementFails"]

/**
 * Any storage fault in the first four transactions of an operation (harness/Faults.ts); a failed
 * statement is drawn over the statements of a `kind` transaction (`statementOrdinals.ts`).
 */
const faultOf = (kind: FaultedTransaction): fc.Arbitrary<TransactionFault> =>
  withStatementOrdinal(storageFaultArbitrary({ maxTransaction: 4, phases: ALARM_FAULT_PHASES, maxStatement: ORDINAL_DRAWS }), kind)

/** A fault aimed at the first transactions of a dispatch, where failures and parking commit. */
const dispatchFault: fc.Arbitrary<TransactionFault> = fc.tuple(fc.record({
  transaction: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
  phase: fc.oneof(
    { weight: 2, arbitrary: fc.constant("afterCommit" as const) },
    { weight: 2, arbitrary: fc.constant("setAlarmFails" as const) },
    { weight: 1, arbitrary: fc.constant("lostReply" as const) },
    { weight: 1, arbitrary: fc.constant("inside" as const) },
    // A clean abort: the acknowledgement or failure write is refused (the batch aborts with the
    // storage error), and the same scheduler instance serves the next steps: no crash, no rebuild.
    { weight: 1, arbitrary: fc.constant("commitRefused" as const) },
    // One of the scheduler's own statements fails mid-transaction (R4): the same abort, reached
    // from inside the transaction instead of at its COMMIT.
    { weight: 1, arbitrary: fc.constant("statementFails" as const) }
  )
}), statementOrdinal("dispatch")).map(([fault, statement]): TransactionFault =>
  fault.phase === "statementFails" ? { ...fault, statement } : fault
)

/** Adds an optional fault (only in fault scenarios) on a `kind` call and an optional failing reporter. */
const withFaults = <C extends Command>(shape: ScenarioShape, kind: FaultedTransaction, command: fc.Arbitrary<C>, reporter: boolean): fc.Arbitrary<C> =>
  fc.tuple(
    command,
    shape.faults ? sometimes(faultOf(kind), 30) : fc.constant(undefined),
    reporter ? sometimes(fc.constant(true), 12) : fc.constant(undefined)
  ).map(([value, injected, reporterFails]) => ({
    ...value,
    ...(injected === undefined ? {} : { fault: injected }),
    ...(reporterFails === undefined ? {} : { reporterFails })
  }))

const onFailure: fc.Arbitrary<OnFailureScript> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<OnFailureScript>({ kind: "fails" }) },
  // Both forms of each action (R24): the string and the object `{ mode }`.
  { weight: 2, arbitrary: fc.constantFrom<OnFailureScript>({ kind: "skipAndAdvanceRepeat" }, { kind: "skipAndAdvanceRepeat", objectForm: true }) },
  // `returnsNull` is outside the static type: a JavaScript caller's `null` means "no action" (R24: the default `retry`).
  { weight: 1, arbitrary: fc.constantFrom<OnFailureScript>({ kind: "returnsVoid" }, { kind: "returnsNull" }, { kind: "retry" }, { kind: "retry", objectForm: true }) },
  {
    weight: 2,
    arbitrary: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constantFrom(0, -5)).map((ms): OnFailureScript => ({
      kind: "retryAfter",
      retryFailedAfterMs: ms
    }))
  }
)

/** A handler's write to its own row: an identical re-arm, a new deadline, a min-merge or a cancel. */
const ownWrite = (own: RefSpec): fc.Arbitrary<MutationSpec> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<MutationSpec>({ kind: "scheduleAlarm", input: { tag: own.tag, id: own.id, payload: null, runInMs: 0, copyOfOwnRow: true } }) },
    { weight: 3, arbitrary: inputWith(fc.constant(own), { repeat: 10, progress: 15 }).map((value): MutationSpec => ({ kind: "scheduleAlarm", input: value })) },
    { weight: 1, arbitrary: inputWith(fc.constant(own), { repeat: 10, progress: 15 }).map((value): MutationSpec => ({ kind: "scheduleAlarmEarlier", input: value })) },
    { weight: 1, arbitrary: fc.constant<MutationSpec>({ kind: "cancelAlarm", ref: own }) }
  )

const handlerWrite = (own: RefSpec, r: Ranges): fc.Arbitrary<HandlerWriteSpec> =>
  fc.oneof(
    { weight: 4, arbitrary: ownWrite(own) },
    { weight: 3, arbitrary: mutationFor(r.ref, { repeat: 10, progress: 15 }, r.runIn, r.cursor) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.array(fc.oneof(ownWrite(own), mutationFor(r.ref, undefined, r.runIn, r.cursor)), { minLength: 1, maxLength: 2 }), fc.boolean()).map((
        [mutations, fails]
      ): HandlerWriteSpec => (fails ? { kind: "transaction", mutations, closureFails: true } : { kind: "transaction", mutations }))
    }
  )

const scriptFor = (own: RefSpec, r: Ranges): fc.Arbitrary<HandlerScriptSpec> =>
  fc.tuple(
    sometimes(fc.array(handlerWrite(own, r), { minLength: 1, maxLength: 2 }), 50),
    fc.constantFrom("succeed" as const, "fail" as const),
    sometimes(onFailure, 40),
    sometimes(mutationFor(fc.oneof(fc.constant(own), r.validRef), undefined, r.runIn, r.cursor), 25)
  ).map(([writes, outcome, action, forkedWrite]) => ({
    ...(writes === undefined ? {} : { writes }),
    outcome,
    ...(action === undefined ? {} : { onFailure: action }),
    ...(forkedWrite === undefined ? {} : { forkedWrite })
  }))

const handlerEntryOf = (r: Ranges): fc.Arbitrary<HandlerEntrySpec> =>
  r.validRef.chain((own) => scriptFor(own, r).map((script) => ({ tag: own.tag, id: own.id, script })))

const fullRanges = rangesOf(fullProfile(VALID_REFS))
const handlerEntry = handlerEntryOf(fullRanges)

/**
 * Dispatch options; sometimes the call passes no `onFailure` (R24: the default action `retry`), and then
 * mostly no options object at all (`processDueAlarms(handler)`, R20's defaults).
 */
const dispatchOptions: fc.Arbitrary<ProcessOptions | undefined> = fc.oneof(
  { weight: 10, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constant<ProcessOptions>({ withoutOnFailure: true }) },
  { weight: 1, arbitrary: fc.record({ limit: fc.integer({ min: 1, max: 3 }), withoutOnFailure: fc.constant(true) }) },
  { weight: 2, arbitrary: fc.record({ limit: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ retryFailedAfterMs: fc.integer({ min: 1, max: 20_000 }) }) },
  { weight: 1, arbitrary: fc.constantFrom<ProcessOptions>({ limit: 0 }, { limit: 1.5 }, { retryFailedAfterMs: 0 }) }
)

const dispatch = (shape: ScenarioShape, handlers: fc.Arbitrary<ReadonlyArray<HandlerEntrySpec>>) =>
  withFaults(
    shape,
    "dispatch",
    fc.tuple(dispatchOptions, handlers).map(([options, entries]): Extract<Command, { op: "dispatch" }> =>
      options === undefined ? { op: "dispatch", handlers: entries } : { op: "dispatch", options, handlers: entries }
    ),
    true
  )

const smallBudget: fc.Arbitrary<ScheduleConfigurationInput> = fc.record({ unchangedAttemptBudget: fc.integer({ min: 1, max: 3 }) })

const configuration: fc.Arbitrary<ScheduleConfigurationInput> = fc.oneof(
  { weight: 6, arbitrary: smallBudget },
  { weight: 2, arbitrary: fc.record({ unchangedAttemptBudget: fc.integer({ min: 4, max: 12 }) }) },
  {
    weight: 2,
    arbitrary: fc.tuple(
      sometimes(fc.oneof(fc.integer({ min: 1_000, max: 5_000 }), fc.constant(1_000.5)), 60),
      sometimes(fc.constantFrom(3_600_000, 7_200_000), 40),
      sometimes(fc.constantFrom(1_000, 60_000, 120_000), 50),
      sometimes(fc.integer({ min: 1, max: 3 }), 50)
    ).map(([retry, parked, repeat, budget]): ScheduleConfigurationInput => ({
      ...(retry === undefined ? {} : { minimumRetryDelayMs: retry }),
      ...(parked === undefined ? {} : { parkedRetryDelayMs: parked }),
      ...(repeat === undefined ? {} : { minimumRepeatIntervalMs: repeat }),
      ...(budget === undefined ? {} : { unchangedAttemptBudget: budget })
    }))
  },
  { weight: 1, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<ScheduleConfigurationInput>(
      { unchangedAttemptBudget: 0 },
      { minimumRetryDelayMs: 999 },
      { parkedRetryDelayMs: 60_000 },
      { minimumRepeatIntervalMs: 10 },
      // Valid alone, but above the default parked delay: the cross-field check fails on its own.
      { minimumRetryDelayMs: 7_200_000 }
    )
  }
)

const scheduleCommand = (shape: ScenarioShape, value: fc.Arbitrary<InputSpec>): fc.Arbitrary<Command> =>
  withFaults(shape, "schedule", fc.tuple(value, fc.boolean()).map(([inputValue, earlier]): Command => (earlier ? { op: "schedule", earlier, input: inputValue } : { op: "schedule", input: inputValue })), true)

/** One weighted kind of chunk (the weights keep the distribution the generator had before swarm). */
interface ChunkEntry {
  readonly kind: AnyChunkKind
  readonly weight: number
  readonly arbitrary: fc.Arbitrary<ReadonlyArray<Command>>
}

/** Weight of all single commands together against one unit of timeline weight (14 : 1 before swarm). */
const SINGLE_SHARE = 14
/** Sum of the single commands' own weights below. */
const SINGLE_WEIGHTS = 62

/** The single commands, each one kind, with the scenario's value ranges. */
const singleEntries = (shape: ScenarioShape, r: Ranges): ReadonlyArray<ChunkEntry> => {
  const one = (kind: ChunkKind, weight: number, arbitrary: fc.Arbitrary<Command>): ChunkEntry => ({
    kind,
    weight: weight * SINGLE_SHARE,
    arbitrary: arbitrary.map((command) => [command])
  })
  return [
    one("schedule", 18, scheduleCommand(shape, inputWith(r.ref, { repeat: 20, progress: 25 }, r.runIn, r.cursor))),
    one("cancel", 4, withFaults(shape, "cancel", r.ref.map((value): Command => ({ op: "cancel", ref: value })), false)),
    one("status", 2, r.ref.map((value): Command => ({ op: "status", ref: value }))),
    one(
      "transaction",
      5,
      withFaults(
        shape,
        "transaction",
        fc.tuple(fc.array(transactionMutationOf(r), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([mutations, fails]): Command =>
          fails ? { op: "transaction", mutations, closureFails: true } : { op: "transaction", mutations }
        ),
        true
      )
    ),
    one("dispatch", 14, dispatch(shape, fc.array(handlerEntryOf(r), { maxLength: 3 }))),
    one("advanceToNextWake", 10, fc.constant<Command>({ op: "advanceToNextWake" })),
    one(
      "advanceBy",
      5,
      fc.oneof(
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 5_001, max: 2 * 3_600_000 }),
        fc.integer({ min: 2 * 3_600_000, max: 3 * DAY_MS })
      ).map((ms): Command => ({ op: "advanceBy", ms }))
    ),
    one("configure", 2, fc.oneof(configuration, boundaryConfiguration).map((value): Command => ({ op: "configure", configuration: value }))),
    one("restart", 2, fc.constantFrom<Command>({ op: "restart", reason: "restart" }, { op: "restart", reason: "eviction" }))
  ]
}

/**
 * A timeline: one alarm whose handler keeps failing (optionally self-rearming) dispatched `rounds`
 * times, each after the clock jumped to the next wake: reaches backoff, parking and hourly retries.
 * Optionally the budget is raised midway (parking must stay sticky), and in fault scenarios some
 * rounds break a storage transaction, often the first transaction of the round that parks.
 */
const failingTimeline = (shape: ScenarioShape): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    validRef,
    fc.integer({ min: 2, max: 11 }),
    sometimes(onFailure, 35),
    fc.boolean(),
    fc.array(shape.faults ? sometimes(dispatchFault, 35) : fc.constant(undefined), { minLength: 11, maxLength: 11 }),
    sometimes(fc.integer({ min: 1, max: 3 }), 60),
    sometimes(fc.tuple(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 4, max: 12 })), 50),
    fc.boolean(),
    shape.faults ? sometimes(fc.constantFrom("afterCommit" as const, "setAlarmFails" as const, "commitRefused" as const, "statementFails" as const), 50) : fc.constant(undefined),
    fc.boolean(),
    // Drawn only in fault scenarios, so the fault-free property's draws stay as they were.
    shape.faults ? statementOrdinal("dispatch") : fc.constant(1)
  ).map(([own, rounds, action, rearm, faults, budget, raise, reportFails, parkingFault, bare, parkingStatement]) => {
    const script: HandlerScriptSpec = {
      outcome: "fail",
      ...(action === undefined ? {} : { onFailure: action }),
      ...(rearm ? { writes: [{ kind: "scheduleAlarm", input: { tag: own.tag, id: own.id, payload: null, runInMs: 0, copyOfOwnRow: true } }] } : {})
    }
    const commands: Array<Command> = []
    if (budget !== undefined) commands.push({ op: "configure", configuration: { unchangedAttemptBudget: budget } })
    commands.push({ op: "schedule", input: { tag: own.tag, id: own.id, payload: null, runInMs: 0 } })
    for (let round = 0; round < rounds; round++) {
      if (raise !== undefined && raise[0] === round) commands.push({ op: "configure", configuration: { unchangedAttemptBudget: raise[1] } })
      // The round that parks (the budget-th failure since enrollment, the default budget when none is
      // configured) breaks its first transaction: where a park report is queued (R18, R27).
      const injected = parkingFault !== undefined && round === (budget ?? UNCHANGED_ATTEMPT_BUDGET) - 1
        ? { transaction: 1, phase: parkingFault, ...(parkingFault === "statementFails" ? { statement: parkingStatement } : {}) }
        : faults[round]
      commands.push({ op: "advanceToNextWake" })
      commands.push({
        op: "dispatch",
        handlers: [{ tag: own.tag, id: own.id, script }],
        // No scripted action: half the timelines call `processDueAlarms(handler)` bare (R20, R24 defaults).
        ...(action === undefined && bare ? { options: { withoutOnFailure: true } } : {}),
        ...(injected === undefined ? {} : { fault: injected }),
        // Odd rounds: a failing reporter, or none at all (the default reporter logs a warning, R27).
        ...(round % 2 === 1 ? (reportFails ? { reporterFails: true } : { defaultReporter: true }) : {})
      })
    }
    return commands
  })

/** A handler re-arming its own row (identically, elsewhere, or cancelling it) after its alarm fired. */
const rearmTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    inputWith(validRef, { repeat: 30, progress: 20 }, fc.integer({ min: 0, max: 5_000 })),
    fc.array(ownWrite({ tag: "a", id: "1" }), { minLength: 1, maxLength: 2 }),
    fc.constantFrom("succeed" as const, "fail" as const),
    fc.integer({ min: 1, max: 3 }),
    sometimes(onFailure, 30),
    sometimes(mutationFor(validRef, { repeat: 10, progress: 10 }), 35)
  ).map(([scheduled, writes, outcome, rounds, action, forkedWrite]) => {
    const own = { tag: scheduled.tag, id: scheduled.id }
    const retargeted = writes.map((write): MutationSpec =>
      write.kind === "cancelAlarm" ? { kind: "cancelAlarm", ref: own } : { kind: write.kind, input: { ...write.input, tag: own.tag, id: own.id } }
    )
    const commands: Array<Command> = [{ op: "schedule", input: { ...scheduled, payload: scheduled.payload === null ? null : 1 } }]
    for (let round = 0; round < rounds; round++) {
      commands.push({ op: "advanceToNextWake" })
      const script: HandlerScriptSpec = {
        writes: retargeted,
        outcome,
        ...(action === undefined ? {} : { onFailure: action }),
        ...(forkedWrite === undefined ? {} : { forkedWrite })
      }
      commands.push({ op: "dispatch", handlers: [{ tag: own.tag, id: own.id, script }] })
    }
    return commands
  })

/** Two rows whose deadline order and effective-wake order differ once one of them backs off. */
const orderTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    fc.uniqueArray(validRef, { minLength: 2, maxLength: 2, selector: (value) => `${value.tag}/${value.id}` }),
    fc.integer({ min: 1, max: 2_500 }),
    fc.integer({ min: 1_000, max: 10_000 }),
    fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined })
  ).map(([[first, second], laterMs, waitMs, limit]) => [
    { op: "schedule", input: { tag: first!.tag, id: first!.id, payload: null, runInMs: 0 } },
    { op: "schedule", input: { tag: second!.tag, id: second!.id, payload: null, runInMs: laterMs } },
    { op: "dispatch", handlers: [{ tag: first!.tag, id: first!.id, script: { outcome: "fail" } }] },
    { op: "advanceBy", ms: waitMs },
    limit === undefined ? { op: "dispatch", handlers: [] } : { op: "dispatch", options: { limit }, handlers: [] }
  ].map((command) => command as Command))

/** An external notice replayed with an older, equal or newer cursor, around a failure. */
const cursorTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    validRef,
    fc.integer({ min: 1, max: 3 }),
    fc.integer({ min: -1, max: 1 }),
    fc.integer({ min: 0, max: 5_000 }),
    fc.integer({ min: 0, max: 5_000 }),
    fc.boolean(),
    fc.boolean()
  ).map(([own, cursor, delta, firstMs, secondMs, failFirst, earlier]) => {
    const commands: Array<Command> = [{ op: "schedule", input: { tag: own.tag, id: own.id, payload: 1, runInMs: firstMs, progress: cursor } }]
    if (failFirst) {
      commands.push({ op: "advanceToNextWake" })
      commands.push({ op: "dispatch", handlers: [{ tag: own.tag, id: own.id, script: { outcome: "fail" } }] })
    }
    const replay: InputSpec = { tag: own.tag, id: own.id, payload: 2, runInMs: secondMs, progress: cursor + delta }
    commands.push(earlier ? { op: "schedule", earlier: true, input: replay } : { op: "schedule", input: replay })
    return commands
  })

/**
 * Two writes to the handler's own row in one pass, in either kind and order, with cursors moving
 * forward, staying equal or moving backward from the row's own cursor: after the first write moves the
 * stored cursor past the pass's snapshot, the second is "source progressed" progress (R12, R13) even
 * when its own cursor is not greater than the stored one.
 */
const sameRowTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    validRef,
    fc.nat({ max: 2 }),
    fc.tuple(fc.constantFrom("scheduleAlarm" as const, "scheduleAlarmEarlier" as const), fc.integer({ min: -1, max: 2 }), fc.integer({ min: 0, max: 90_000 })),
    fc.tuple(fc.constantFrom("scheduleAlarm" as const, "scheduleAlarmEarlier" as const), fc.option(fc.integer({ min: -1, max: 2 }), { nil: undefined }), fc.integer({ min: 0, max: 90_000 })),
    fc.constantFrom("succeed" as const, "fail" as const)
  ).map(([own, cursor, [firstKind, firstDelta, firstMs], [secondKind, secondDelta, secondMs], outcome]) => {
    const write = (kind: "scheduleAlarm" | "scheduleAlarmEarlier", delta: number | undefined, runIn: number): MutationSpec => ({
      kind,
      input: { tag: own.tag, id: own.id, payload: null, runInMs: runIn, ...(delta === undefined ? {} : { progress: Math.max(0, cursor + delta) }) }
    })
    return [
      { op: "schedule", input: { tag: own.tag, id: own.id, payload: null, runInMs: 0, progress: cursor } },
      { op: "advanceToNextWake" },
      {
        op: "dispatch",
        handlers: [{ tag: own.tag, id: own.id, script: { writes: [write(firstKind, firstDelta, firstMs), write(secondKind, secondDelta, secondMs)], outcome } }]
      }
    ]
  })

/** Two rows due in one batch; the first one's handler replaces or cancels the second (skipped silently). */
const batchTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    fc.uniqueArray(validRef, { minLength: 2, maxLength: 2, selector: (value) => `${value.tag}/${value.id}` }),
    fc.constantFrom("scheduleAlarm" as const, "cancelAlarm" as const),
    fc.integer({ min: 0, max: 5_000 }),
    fc.constantFrom("succeed" as const, "fail" as const)
  ).map(([pair, kind, runIn, outcome]) => {
    const [first, second] = [...pair].sort((a, b) => (`${a.tag}:${a.id}` < `${b.tag}:${b.id}` ? -1 : 1)) as [RefSpec, RefSpec]
    const write: MutationSpec = kind === "cancelAlarm"
      ? { kind, ref: second }
      : { kind, input: { tag: second.tag, id: second.id, payload: 3, runInMs: runIn } }
    return [
      { op: "schedule", input: { tag: first.tag, id: first.id, payload: null, runInMs: 0 } },
      { op: "schedule", input: { tag: second.tag, id: second.id, payload: null, runInMs: 0 } },
      { op: "advanceToNextWake" },
      { op: "dispatch", handlers: [{ tag: first.tag, id: first.id, script: { writes: [write], outcome } }] }
    ]
  })

/** A handler parks its own row and undoes the parking in the same transaction (never reported). */
const parkUndoTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(validRef, fc.boolean(), fc.constantFrom("succeed" as const, "fail" as const)).map(([own, cancel, outcome]) => {
    const undo: MutationSpec = cancel
      ? { kind: "cancelAlarm", ref: own }
      : { kind: "scheduleAlarm", input: { tag: own.tag, id: own.id, payload: null, runInMs: 1_000, progress: 4 } }
    return [
      { op: "configure", configuration: { unchangedAttemptBudget: 1 } },
      { op: "schedule", input: { tag: own.tag, id: own.id, payload: null, runInMs: 0 } },
      { op: "advanceToNextWake" },
      {
        op: "dispatch",
        handlers: [{
          tag: own.tag,
          id: own.id,
          script: {
            writes: [{ kind: "transaction", mutations: [{ kind: "scheduleAlarm", input: { tag: own.tag, id: own.id, payload: null, runInMs: 0, copyOfOwnRow: true } }, undo] }],
            outcome
          }
        }]
      }
    ]
  })

/** The earliest alarm is cancelled (alone or in a cancel-only transaction): the platform alarm must move. */
const cancelTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    fc.uniqueArray(validRef, { minLength: 1, maxLength: 2, selector: (value) => `${value.tag}/${value.id}` }),
    fc.integer({ min: 0, max: 10_000 }),
    fc.integer({ min: 1, max: 10_000 }),
    fc.boolean()
  ).map(([refs, firstMs, gapMs, inTransaction]) => {
    const [first, second] = refs as [RefSpec, RefSpec | undefined]
    const commands: Array<Command> = [{ op: "schedule", input: { tag: first.tag, id: first.id, payload: null, runInMs: firstMs } }]
    if (second !== undefined) commands.push({ op: "schedule", input: { tag: second.tag, id: second.id, payload: null, runInMs: firstMs + gapMs } })
    commands.push(inTransaction ? { op: "transaction", mutations: [{ kind: "cancelAlarm", ref: first }] } : { op: "cancel", ref: first })
    return commands
  })

/** A failing alarm with an `onFailure` action (retry, custom delay, skip, or a failing callback), dispatched twice. */
const failureActionTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    inputWith(validRef, { repeat: 60, progress: 10 }, fc.integer({ min: 0, max: 2_000 })),
    onFailure,
    sometimes(mutationFor(validRef, { repeat: 10, progress: 10 }), 30),
    fc.constantFrom("succeed" as const, "fail" as const)
  ).map(([scheduled, action, forkedWrite, secondOutcome]) => {
    const own = { tag: scheduled.tag, id: scheduled.id }
    const script: HandlerScriptSpec = { outcome: "fail", onFailure: action, ...(forkedWrite === undefined ? {} : { forkedWrite }) }
    return [
      { op: "schedule", input: { ...scheduled, payload: null } },
      { op: "advanceToNextWake" },
      { op: "dispatch", handlers: [{ ...own, script }] },
      { op: "advanceToNextWake" },
      { op: "dispatch", handlers: [{ ...own, script: { outcome: secondOutcome } }] }
    ]
  })

/** The platform alarm delivered twice: two dispatches at the same virtual time. */
const redelivery = (shape: ScenarioShape): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(dispatch(shape, fc.array(handlerEntry, { maxLength: 2 })), fc.array(handlerEntry, { maxLength: 2 })).map(([first, entries]) => [
    { op: "advanceToNextWake" },
    first,
    { op: "dispatch", handlers: entries, redelivery: true }
  ])

/** Typed definitions a scenario or a redeploy declares (R29): one tag of the id space, or both. */
const knownTagSets: fc.Arbitrary<ReadonlyArray<string>> = fc.constantFrom<ReadonlyArray<string>>(["a"], ["b"], ["a", "b"])

/**
 * Typed definitions (R29): rows of both tags are stored, the process is redeployed declaring only one
 * of them (a restart with other definitions), the stored rows of the dropped tag fail on dispatch
 * (backoff applies), and writes of the dropped tag are rejected.
 */
const typedTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    fc.constantFrom(...IDS),
    fc.constantFrom<"a" | "b">("a", "b"),
    fc.integer({ min: 0, max: 5_000 }),
    fc.constantFrom("scheduleAlarm" as const, "cancelAlarm" as const, "none" as const),
    fc.integer({ min: 1, max: 2 })
  ).map(([id, kept, runIn, afterwards, rounds]) => {
    const dropped = kept === "a" ? "b" : "a"
    const commands: Array<Command> = [
      { op: "restart", reason: "restart", knownTags: ["a", "b"] },
      { op: "schedule", input: { tag: kept, id, payload: null, runInMs: runIn } },
      { op: "schedule", input: { tag: dropped, id, payload: 1, runInMs: runIn } },
      { op: "restart", reason: "eviction", knownTags: [kept] }
    ]
    for (let round = 0; round < rounds; round++) {
      commands.push({ op: "advanceToNextWake" })
      commands.push({ op: "dispatch", handlers: [] })
    }
    if (afterwards === "scheduleAlarm") commands.push({ op: "schedule", input: { tag: dropped, id, payload: null, runInMs: 0 } })
    if (afterwards === "cancelAlarm") commands.push({ op: "cancel", ref: { tag: dropped, id } })
    return commands
  })

/** Every kind of chunk with its weight (timelines: `SINGLE_WEIGHTS` per unit, so singles keep their 14 : 1 share). */
const chunkEntries = (shape: ScenarioShape, r: Ranges): ReadonlyArray<ChunkEntry> => {
  const timeline = (kind: AnyChunkKind, weight: number, arbitrary: fc.Arbitrary<ReadonlyArray<Command>>): ChunkEntry => ({
    kind,
    weight: weight * SINGLE_WEIGHTS,
    arbitrary
  })
  return [
    ...singleEntries(shape, r),
    timeline("failingTimeline", 3, failingTimeline(shape)),
    timeline("rearmTimeline", 3, rearmTimeline()),
    timeline("orderTimeline", 1, orderTimeline()),
    timeline("cursorTimeline", 1, cursorTimeline()),
    timeline("sameRowTimeline", 1, sameRowTimeline()),
    timeline("batchTimeline", 1, batchTimeline()),
    timeline("cancelTimeline", 1, cancelTimeline()),
    timeline("failureActionTimeline", 2, failureActionTimeline()),
    timeline("parkUndoTimeline", 1, parkUndoTimeline()),
    timeline("redelivery", 1, redelivery(shape)),
    timeline("typedTimeline", 1, typedTimeline()),
    timeline("boundaryTimeline", 3, boundaryTimeline()),
    timeline("twoInvalidInputs", 2, twoInvalidInputs()),
    timeline("writeOrderTimeline", 3, writeOrderTimeline()),
    timeline("cursorPassesTimeline", 1, cursorPassesTimeline()),
    timeline("parkedCrossRowTimeline", 1, parkedCrossRowTimeline()),
    timeline("handleMisuseTimeline", 1, handleMisuseTimeline()),
    ...(shape.faults ? [timeline("statementFaultTimeline", 1, statementFaultTimeline())] : [])
  ]
}

/** A chunk of a scenario with swarm profile `profile`: one of the kinds the profile keeps on. */
const chunk = (shape: ScenarioShape, profile: SwarmProfile): fc.Arbitrary<ReadonlyArray<Command>> => {
  const entries = chunkEntries(shape, rangesOf(profile)).filter((entry) => !(profile.off as ReadonlySet<AnyChunkKind>).has(entry.kind))
  if (entries.length === 0) throw new Error("swarm profile switched every chunk kind off")
  return fc.oneof(...entries.map(({ weight, arbitrary }) => ({ weight, arbitrary })))
}

const cursor: fc.Arbitrary<number> = fc.nat({ max: 3 })

/** An attempts row of layout (b): backing off, parked, or fresh (maybe with a cursor); R3 must honour its retry_at. */
const legacyAttempts: fc.Arbitrary<LegacyAttemptsSpec> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record(
      { attempts: fc.integer({ min: 1, max: 7 }), retryInMs: fc.integer({ min: -30_000, max: 130_000 }), progress: cursor },
      { requiredKeys: ["attempts", "retryInMs"] }
    )
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        attempts: fc.oneof({ weight: 3, arbitrary: fc.constant(8) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 8 }) }),
        parked: fc.constant(true),
        retryInMs: fc.integer({ min: -3_600_000, max: 3_600_000 }),
        progress: cursor
      },
      { requiredKeys: ["attempts", "parked", "retryInMs"] }
    )
  },
  { weight: 1, arbitrary: fc.record({ attempts: fc.constant(0), progress: cursor }, { requiredKeys: ["attempts"] }) }
)

/** Rows of an older layout; with `withAttempts`, some carry an attempts row (layout (b)), others none. */
const legacyRows = (withAttempts: boolean): fc.Arbitrary<ReadonlyArray<LegacyRowSpec>> =>
  fc.uniqueArray(
    fc.record(
      {
        ref: validRef,
        runInMs: fc.integer({ min: -60_000, max: 120_000 }),
        repeatEveryMs: fc.constantFrom(60_000, 3_600_000),
        payloadText: fc.constantFrom("null", "1", "{\"n\":2}", "{not json"),
        attempts: withAttempts ? sometimes(legacyAttempts, 75) : fc.constant(undefined)
      },
      { requiredKeys: ["ref", "runInMs", "payloadText", "attempts"] }
    ).map(({ ref: target, attempts, ...rest }): LegacyRowSpec => ({
      tag: target.tag,
      id: target.id,
      ...rest,
      ...(attempts === undefined ? {} : { attempts })
    })),
    { minLength: 1, maxLength: 4, selector: (row) => `${row.tag}/${row.id}` }
  )

/** Both older layouts of R3 with their rows: (a) before attempt tracking, (b) attempts without `wake_at`. */
const legacyStart: fc.Arbitrary<{ readonly layout: LegacyLayoutKind; readonly rows: ReadonlyArray<LegacyRowSpec> }> = fc.oneof(
  legacyRows(false).map((rows) => ({ layout: "beforeAttempts" as const, rows })),
  legacyRows(true).map((rows) => ({ layout: "attemptsWithoutWake" as const, rows }))
)

/** Share (%) of fault scenarios ending with a `parkLost` unit (appended.ts): `parkReportLost` was reached 2-4 times per adapter without it. */
const PARK_LOST_PERCENT = 20
/** Share (%) of scenarios ending with an `illTyped` unit (appended.ts). */
const ILL_TYPED_PERCENT = 15
/** Share (%) of scenarios ending with a `retryCap` unit (appended.ts): `retryDelayCapped` was reached 3-12 times per adapter without it. */
const RETRY_CAP_PERCENT = 16
/** Share (%) of scenarios ending with a `retryFailedAfter` unit (appended.ts): `retryFailedAfterUsed` was reached 4-13 times per adapter without it. */
const RETRY_FAILED_AFTER_PERCENT = 8
/**
 * Share (%) of fault scenarios ending with a statement-fault unit (`statementFaultTimeline.ts`): as a
 * chunk alone, a fault scenario carried 0.4 of its faulted calls (measured over 1,500 scenarios), too
 * few for the gate's 60 to strike each of their 47 (call, transaction, statement) cells on Postgres
 * (`statementOrdinals.ts`); with the unit, about 1.2, so each is struck about once.
 */
const STATEMENT_FAULT_PERCENT = 40
/** Share (%) of scenarios ending with an `earlierBoundary` unit (appended.ts): R16's tie was reached only by identical re-arms. */
const EARLIER_BOUNDARY_PERCENT = 15
/** Share (%) of scenarios ending with an `overlayPrecedence` unit (appended.ts): R1's overlay over a captured field of its own. */
const OVERLAY_PRECEDENCE_PERCENT = 10
/** Share (%) of scenarios ending with a `misusedHandle` unit (appended.ts): each of R5's six (mutation, misuse) pairs. */
const MISUSED_HANDLE_PERCENT = 10
/** Share (%) of fault scenarios ending with a `readFault` unit (appended.ts): no other draw fails a read outside a transaction. */
const READ_FAULT_PERCENT = 45
/** Share (%) of scenarios ending with a `narrowedSchema` unit (appended.ts): R29's decode failure of a declared tag. */
const NARROWED_SCHEMA_PERCENT = 12

/**
 * Scenarios of the given shape.
 *
 * @example fc.sample(alarmsScenario({ faults: false, legacy: false, maxChunks: 12 }), 1)
 */
export const alarmsScenario = (shape: ScenarioShape): fc.Arbitrary<AlarmsScenario> =>
  fc.tuple(
    sometimes(configuration, 55),
    shape.legacy ? legacyStart : fc.constant(undefined),
    // Swarm testing: the chunks come from the scenario's own profile (swarm.ts).
    fc.noShrink(swarmProfile(VALID_REFS)).chain((profile) => fc.array(chunk(shape, profile), { minLength: 1, maxLength: shape.maxChunks })),
    sometimes(knownTagSets, 20),
    // Appended units (appended.ts), drawn after everything above so every earlier draw keeps its bytes.
    shape.faults ? sometimes(parkLostDraw, PARK_LOST_PERCENT) : fc.constant(undefined),
    sometimes(illTypedDraw, ILL_TYPED_PERCENT),
    sometimes(retryCapDraw, RETRY_CAP_PERCENT),
    sometimes(retryFailedAfterDraw, RETRY_FAILED_AFTER_PERCENT),
    shape.faults ? sometimes(statementFaultDraws, STATEMENT_FAULT_PERCENT) : fc.constant(undefined),
    sometimes(earlierBoundaryDraw, EARLIER_BOUNDARY_PERCENT),
    sometimes(overlayPrecedenceDraw, OVERLAY_PRECEDENCE_PERCENT),
    sometimes(misusedHandleDraw, MISUSED_HANDLE_PERCENT),
    shape.faults ? sometimes(readFaultDraw, READ_FAULT_PERCENT) : fc.constant(undefined),
    sometimes(narrowedSchemaDraw, NARROWED_SCHEMA_PERCENT)
  ).map(([initial, legacy, chunks, knownTags, parkLost, illTyped, retryCap, retryFailedAfter, statementFaults, earlierBoundary, overlay, misusedHandle, readFault, narrowed]) => {
    const commands = chunks.flat()
    const known = finalKnownTags(knownTags, commands)
    return {
      ...(initial === undefined ? {} : { configuration: initial }),
      ...(legacy === undefined ? {} : { legacyLayout: legacy.layout, legacyRows: legacy.rows }),
      ...(knownTags === undefined ? {} : { knownTags }),
      commands: [
        ...commands,
        ...(parkLost === undefined ? [] : parkLostCommands(parkLost, declaredTag(known, parkLost.id))),
        ...(illTyped === undefined ? [] : illTypedCommands(illTyped, declaredTag(known, illTyped.id))),
        ...(retryCap === undefined ? [] : retryCapCommands(retryCap, declaredTag(known, retryCap.id))),
        ...(retryFailedAfter === undefined ? [] : retryFailedAfterCommands(retryFailedAfter, declaredTag(known, retryFailedAfter.id))),
        ...(statementFaults === undefined ? [] : statementFaultCommands(statementFaults, (ref) => declaredTag(known, ref.id))),
        ...(earlierBoundary === undefined ? [] : earlierBoundaryCommands(earlierBoundary, declaredTag(known, earlierBoundary.id))),
        ...(overlay === undefined ? [] : overlayPrecedenceCommands(overlay, declaredTag(known, overlay.id))),
        ...(misusedHandle === undefined ? [] : misusedHandleCommands(misusedHandle, declaredTag(known, misusedHandle.id))),
        ...(readFault === undefined ? [] : readFaultCommands(readFault, (id) => declaredTag(known, id))),
        // Last: its redeploy changes the definitions every later command would run under.
        ...(narrowed === undefined ? [] : narrowedSchemaCommands(narrowed, declaredTag(known, narrowed.id), known))
      ]
    }
  })
