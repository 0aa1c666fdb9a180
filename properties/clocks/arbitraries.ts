/**
 * Scenario generators of the clocks properties: small command lists over two executions, two clocks
 * and one plain deferred, with faults as ordinary generated data (they shrink and replay).
 */
import * as fc from "fast-check"
import { storageFaultArbitrary } from "../../harness/Faults.ts"
import { releaseOrderArbitrary } from "../../harness/Interleaving.ts"
import {
  type Command,
  FAILURES_TO_RETRY_CAP,
  type FaultedCommand,
  type FireRace,
  type Json,
  OTHER_FLOW,
  type ProcessName,
  retryDelayMs,
  type TransactionFault
} from "../../models/clocks/index.ts"
import { withStatementFaults } from "../../harness/StatementFaultDraws.ts"
import { clocksStatementFaults } from "./statementFaults.ts"

/** A scenario: the commands, in order (the liveness property appends its phase itself). */
export interface ClocksScenario {
  readonly commands: ReadonlyArray<FaultedCommand>
}

/** What a property's scenarios contain. */
export interface ScenarioShape {
  /** Storage and journal faults on process A's calls whose transactions are deterministic, its sweeps and restarts included. */
  readonly faults: boolean
  /**
   * Storage and journal faults on the second process's sweeps only (the concurrent property: A is never
   * faulted there, since a crash of A stops virtual time while B's timers of the same instant may or may
   * not have woken, an order the harness does not own).
   */
  readonly faultsOnB: boolean
  /** Sweeps of a second process B (two engines firing the same clock). */
  readonly secondProcess: boolean
  /** Advances carry a fire race: both processes' fires of one clock released in a generated order. */
  readonly races: boolean
  /** Rewinds that keep the journal records (conflicts on re-completion). */
  readonly rowOnlyRewinds: boolean
  /** Failed statements (`statementFaults.ts`) on A's faultable commands, drawn after the commands. */
  readonly statementFaults: boolean
  /**
   * A journal outage past the backoff's cap or a failed sweep read, each in one scenario in four,
   * drawn after everything else and appended (`appendedFaultUnit`). Not for the liveness property: a
   * unit's restart re-arms what a bug lost before it, hiding the loss.
   */
  readonly appendedFaultUnits: boolean
  readonly maxCommands: number
}

const exec = fc.constantFrom("e1", "e1", "e2")
const clock = fc.constantFrom("t1", "t2")
/**
 * A completion value: small integers, and JSON objects with several keys and arrays, the same object in
 * two key insertion orders (a JSON object's key order is not part of its value: C2's byte-equality is
 * of the canonical record, C5 names the stored value by its digest).
 */
const value: fc.Arbitrary<Json> = fc.constantFrom<Json>(1, 2, { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, ["x", { d: 2, c: null }])
/** Opaque correlation metadata of a completion (C5), absent (null here) most often. */
const metadata: fc.Arbitrary<Json | null> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom<Json>({ corr: "c1", tags: ["a", "b"] }, { tags: ["a", "b"], corr: "c1" }, { corr: "c2" }) }
)
/** The waiting reasons: two, so a token matching under another reason is generated (C6). */
const reason = fc.constantFrom("approval", "review")
const token = fc.constantFrom("k1", "k2")

/** A `deferredDone` command, with `metadata` only when present. */
const deferredDone = (exec: string, deferred: string, value: Json, meta: Json | null = null): Command =>
  meta === null ? { op: "deferredDone", exec, deferred, value } : { op: "deferredDone", exec, deferred, value, metadata: meta }

/**
 * The kinds of fire race, each with its lag, a third of races each: at once, the second running into the
 * first's open transaction (only an engine with independent connections and row locks realises it;
 * elsewhere it runs at once), or the second held 100 or 1,000 ms. With one kind in four, the gate's
 * budget on postgres realised one overlapped race.
 */
const RACE_KINDS: ReadonlyArray<Pick<FireRace, "lagMs" | "overlap">> = [
  { lagMs: 0, overlap: false },
  { lagMs: 0, overlap: false },
  { lagMs: 0, overlap: true },
  { lagMs: 0, overlap: true },
  { lagMs: 100, overlap: false },
  { lagMs: 1_000, overlap: false }
]

/** A fire race: the release order of the two processes' fires (shrinks toward A first) and its kind (shrinks toward at once). */
const raceArbitrary: fc.Arbitrary<FireRace> = fc.tuple(releaseOrderArbitrary(2), fc.constantFrom(...RACE_KINDS))
  .map(([order, kind]) => ({ order, ...kind }))

/** An advance by `ms`, with a race when the shape has them. */
const advanceArbitrary = (shape: ScenarioShape, ms: fc.Arbitrary<number>): fc.Arbitrary<Command> =>
  shape.races
    ? fc.record({ op: fc.constant("advance" as const), ms, race: raceArbitrary })
    : fc.record({ op: fc.constant("advance" as const), ms })

const commandArbitrary = (shape: ScenarioShape): fc.Arbitrary<Command> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ op: fc.constant("scheduleClock" as const), exec, clock, durationMs: fc.constantFrom(1_000, 2_000, 5_000) }) },
    { weight: 3, arbitrary: fc.tuple(exec, fc.constantFrom("sig", "t1:fired"), value, metadata).map(([e, d, v, m]) => deferredDone(e, d, v, m)) },
    {
      weight: 2,
      arbitrary: fc.record({ op: fc.constant("deferredDoneIfWaiting" as const), exec, deferred: fc.constant("sig"), value, reason, token })
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("setWaiting" as const), exec, reason, token }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant("deferredResult" as const), exec, deferred: fc.constantFrom("sig", "t1:fired") }) },
    { weight: 4, arbitrary: advanceArbitrary(shape, fc.constantFrom(100, 1_000, 2_500, 6_000)) },
    { weight: 2, arbitrary: fc.constant({ op: "restart" as const }) },
    {
      weight: 1,
      arbitrary: fc.tuple(shape.secondProcess ? fc.constantFrom("A" as const, "B" as const) : fc.constant("A" as const), fc.constantFrom("none", "flow", "other"))
        .map(([process, flow]): Command =>
          flow === "other" ? { op: "sweep", process, withFlow: true, flow: OTHER_FLOW } : { op: "sweep", process, withFlow: flow === "flow" })
    },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant("rewind" as const),
        exec,
        deferred: fc.constantFrom("t1:fired", "t2:fired", "sig"),
        keepRecords: shape.rowOnlyRewinds ? fc.boolean() : fc.constant(false)
      }).map((rewind) => (rewind.deferred === "sig" ? rewind : { ...rewind, keepRecords: false }))
    },
    { weight: 1, arbitrary: fc.constant({ op: "latchLossy" as const }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("effect" as const), exec, attempt: fc.constantFrom(1, 2), fails: fc.boolean() }) }
  )

/**
 * Commands whose storage transactions run in an order the model knows, so a fault strikes the same one
 * on both sides: the calls, the fires of an advance, a sweep (of A or of B: the faults strike the
 * process the sweep runs on), and a restart's recovery (its registration sweep). A due clock a sweep
 * arms fires at once: its fire transaction comes right after that clock's clock-scheduled record, before
 * the next clock's, so faults reach the fires of sweeps and recoveries and their commit-to-resume gap.
 */
const FAULTABLE: ReadonlyArray<Command["op"]> = ["scheduleClock", "deferredDone", "deferredDoneIfWaiting", "deferredResult", "advance", "effect", "sweep", "restart"]

/** Whether `command` takes generated faults in `shape`. */
const faultable = (shape: ScenarioShape, command: Command): boolean =>
  shape.faults ? FAULTABLE.includes(command.op) && !(command.op === "sweep" && command.process === "B") : shape.faultsOnB && command.op === "sweep" && command.process === "B"

const faultArbitrary: fc.Arbitrary<TransactionFault> = storageFaultArbitrary({ maxTransaction: 3, phases: ["inside", "afterCommit", "lostReply", "commitRefused"] })
  .map((fault) => ({ transaction: fault.transaction, phase: fault.phase as TransactionFault["phase"] }))

/** `null` `nullWeight` times as often as a value (shrinks toward null). */
const sometimes = <A>(arbitrary: fc.Arbitrary<A>, nullWeight: number): fc.Arbitrary<A | null> =>
  fc.oneof({ weight: nullWeight, arbitrary: fc.constant(null) }, { weight: 1, arbitrary })

const faultedCommand = (shape: ScenarioShape): fc.Arbitrary<FaultedCommand> =>
  !shape.faults && !shape.faultsOnB
    ? commandArbitrary(shape)
    : fc.tuple(commandArbitrary(shape), sometimes(faultArbitrary, shape.faults ? 3 : 1), sometimes(fc.integer({ min: 1, max: 2 }), 4)).map(
      ([command, fault, journalFault]): FaultedCommand =>
        !faultable(shape, command)
          ? command
          : { ...command, ...(fault === null ? {} : { fault }), ...(journalFault === null ? {} : { journalFault }) }
    )

/**
 * Short timelines generated as units, so the situations a rule is about are reached within the budget:
 * a completion read twice with time between (C7), a fired clock rewound and replayed (C9, C10), a
 * repeated completion (C5), a replayed schedule (C8), a restart with a future clock pending (C12), a
 * fire whose journal write fails and its retry (C11); and, by shape, a re-completion after a rewind that
 * kept the records (C2), a clock whose deferred completed first (C9), a repeated if-waiting under either
 * reason (C5, C6), a sweep inside a retry's backoff (C9, C11) and a second process sweeping another flow (C12).
 */
const timelineArbitrary = (shape: ScenarioShape): fc.Arbitrary<ReadonlyArray<FaultedCommand>> =>
  fc.oneof(
    ...(shape.races ? [raceTimeline(shape)] : []),
    ...(shape.rowOnlyRewinds ? [conflictTimeline] : []),
    ...(shape.faults ? [backoffRearmTimeline] : []),
    // Twice as likely: the only timeline that sweeps another flow, and only the concurrent property draws it.
    ...(shape.secondProcess ? [{ weight: 2, arbitrary: otherFlowSweepTimeline }] : []),
    completedBeforeArmTimeline,
    waitingRepeatTimeline,
    fc.tuple(exec, value).map(([e, v]): ReadonlyArray<FaultedCommand> => [
      { op: "deferredDone", exec: e, deferred: "sig", value: v },
      { op: "deferredResult", exec: e, deferred: "sig" },
      { op: "advance", ms: 1_000 },
      { op: "deferredResult", exec: e, deferred: "sig" }
    ]),
    fc.tuple(exec, clock).map(([e, c]): ReadonlyArray<FaultedCommand> => [
      { op: "scheduleClock", exec: e, clock: c, durationMs: 1_000 },
      { op: "advance", ms: 1_000 },
      { op: "rewind", exec: e, deferred: `${c}:fired`, keepRecords: false },
      { op: "advance", ms: 100 },
      { op: "scheduleClock", exec: e, clock: c, durationMs: 1_000 }
    ]),
    fc.tuple(exec, value, value).map(([e, first, second]): ReadonlyArray<FaultedCommand> => [
      { op: "deferredDone", exec: e, deferred: "sig", value: first },
      { op: "deferredDone", exec: e, deferred: "sig", value: second }
    ]),
    fc.tuple(exec, clock, fc.constantFrom(100, 1_000)).map(([e, c, ms]): ReadonlyArray<FaultedCommand> => [
      { op: "scheduleClock", exec: e, clock: c, durationMs: 2_000 },
      { op: "advance", ms },
      { op: "scheduleClock", exec: e, clock: c, durationMs: 2_000 }
    ]),
    fc.tuple(exec, clock).map(([e, c]): ReadonlyArray<FaultedCommand> => [
      { op: "scheduleClock", exec: e, clock: c, durationMs: 5_000 },
      { op: "restart" },
      { op: "advance", ms: 6_000 }
    ]),
    // A completion whose reply is lost, retried by its caller (C5); without faults a repeated completion.
    fc.tuple(exec, value).map(([e, v]): ReadonlyArray<FaultedCommand> => [
      shape.faults ? { op: "deferredDone", exec: e, deferred: "sig", value: v, fault: { transaction: 1, phase: "lostReply" } } : { op: "deferredDone", exec: e, deferred: "sig", value: v },
      { op: "deferredDone", exec: e, deferred: "sig", value: v }
    ]),
    // A fire whose process dies right after its commit: only the registration sweep's wake resumes the run
    // (C12); or inside its transaction: nothing of the fire stays, and the restart's sweep fires it again (C4, C12).
    fc.tuple(exec, clock, fc.constantFrom("afterCommit" as const, "inside" as const)).map(([e, c, phase]): ReadonlyArray<FaultedCommand> => [
      { op: "scheduleClock", exec: e, clock: c, durationMs: 1_000 },
      shape.faults ? { op: "advance", ms: 1_000, fault: { transaction: 1, phase } } : { op: "advance", ms: 1_000 }
    ]),
    // An effect whose intended record cannot be written: the effect must not run (C13).
    fc.tuple(exec, fc.boolean()).map(([e, fails]): ReadonlyArray<FaultedCommand> => [
      shape.faults ? { op: "effect", exec: e, attempt: 1, fails, journalFault: 1 } : { op: "effect", exec: e, attempt: 1, fails },
      { op: "effect", exec: e, attempt: 1, fails: false }
    ]),
    // A fire whose journal write fails, then the retry's window (C11); without faults a plain fire.
    fc.tuple(exec, clock, fc.constantFrom(1, 2)).map(([e, c, failures]): ReadonlyArray<FaultedCommand> => [
      { op: "scheduleClock", exec: e, clock: c, durationMs: 1_000 },
      shape.faults ? { op: "advance", ms: 1_000, journalFault: failures } : { op: "advance", ms: 1_000 },
      { op: "advance", ms: 1_000 }
    ])
  ).chain((timeline: ReadonlyArray<FaultedCommand>): fc.Arbitrary<ReadonlyArray<FaultedCommand>> =>
    // A timeline that names its own fault keeps exactly that fault; the others draw faults like any command.
    (shape.faults || shape.faultsOnB) && !timeline.some((command) => command.fault !== undefined || command.journalFault !== undefined)
      ? fc.tuple(...timeline.map((command) => faultedCommand(shape).map((faulted) => ({ ...faultsOf(shape, faulted, command), ...command }) as FaultedCommand)))
      : fc.constant(timeline)
  )

/**
 * C2: a completion rewound with its records kept, completed again with another value or the same value
 * in another key order: the re-admitted deferred-completed record is a Duplicate only when byte-equal.
 */
const conflictTimeline: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.tuple(exec, value, value, metadata).map(([e, first, second, meta]) => [
  deferredDone(e, "sig", first, meta),
  { op: "rewind", exec: e, deferred: "sig", keepRecords: true },
  deferredDone(e, "sig", second, meta)
])

/**
 * C9: a pending clock whose deferred is already complete is still armed and fires (CAS and
 * clock-completed), whether armed by its schedule or by a restart's registration sweep.
 */
const completedBeforeArmTimeline: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.tuple(exec, clock, value, fc.boolean()).map(([e, c, v, viaRestart]) =>
  viaRestart
    ? [{ op: "scheduleClock", exec: e, clock: c, durationMs: 2_000 }, deferredDone(e, `${c}:fired`, v), { op: "restart" }, { op: "advance", ms: 2_500 }]
    : [deferredDone(e, `${c}:fired`, v), { op: "scheduleClock", exec: e, clock: c, durationMs: 1_000 }, { op: "advance", ms: 1_000 }]
)

/** The other waiting token (`token` draws one of two). */
const otherToken = (drawn: string): string => (drawn === "k1" ? "k2" : "k1")

/**
 * C6 asked with one half of "exactly that reason and token" off: the waiting reason under the other
 * token (half the time: random commands rarely pair the waiting reason with the other token), the
 * other reason under the waiting token, or both off. Each must answer `NotWaiting`.
 */
const waitingProbe = fc.oneof(
  { weight: 2, arbitrary: fc.constant("otherToken" as const) },
  { weight: 1, arbitrary: fc.constantFrom("otherReason" as const, "bothOff" as const) }
)

/**
 * C5, C6: a waiting run asked first with its reason or its token off (`waitingProbe`), then completed
 * if waiting, then again with the same token under either reason (Existing or NotWaiting). One time in
 * three the run stops waiting as the completion's transaction begins, one time in three as the
 * repeat's: C6's check, in that same transaction, must see it, so the answer is NotWaiting.
 */
const waitingRepeatTimeline: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.tuple(exec, token, reason, value, value, waitingProbe, fc.constantFrom("none", "completion", "repeat"))
  .map(([e, k, again, first, second, probe, stops]) => {
    const stopping = (call: "completion" | "repeat") => (stops === call ? { stopsWaiting: "atBegin" as const } : {})
    return [
      { op: "setWaiting", exec: e, reason: "approval", token: k },
      { op: "deferredDoneIfWaiting", exec: e, deferred: "sig", value: second, reason: probe === "otherToken" ? "approval" : "review", token: probe === "otherReason" ? k : otherToken(k) },
      { op: "deferredDoneIfWaiting", exec: e, deferred: "sig", value: first, reason: "approval", token: k, ...stopping("completion") },
      { op: "deferredDoneIfWaiting", exec: e, deferred: "sig", value: second, reason: again, token: k, ...stopping("repeat") }
    ]
  })

/**
 * C9, C11: a fire whose journal write fails is in its backoff when a sweep re-arms the same clock key:
 * the live timer stays (one per key), so the fire is retried after the backoff, not at once.
 */
const backoffRearmTimeline: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.tuple(exec, clock).map(([e, c]) => [
  { op: "scheduleClock", exec: e, clock: c, durationMs: 1_000 },
  { op: "advance", ms: 1_000, journalFault: 1 },
  { op: "sweep", process: "A", withFlow: false },
  { op: "advance", ms: 1_000 }
])

/**
 * C11: a journal outage through a clock's due time and every fire retry until the backoff has waited
 * its whole cap once (`FAILURES_TO_RETRY_CAP` failures) or twice: the fire is retried "forever", so it
 * commits at the first attempt after the outage, inside the same advance. The fire's deferred-completed
 * record is each attempt's first durable emit, so each attempt meets one failing emit.
 */
const journalOutageTimeline: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.tuple(exec, clock, fc.constantFrom(0, 1)).map(([e, c, pastCap]) => {
  const failures = FAILURES_TO_RETRY_CAP + pastCap
  const outageMs = Array.from({ length: failures }, (_, index) => retryDelayMs(index + 1)).reduce((sum, delayMs) => sum + delayMs, 0)
  return [
    { op: "scheduleClock", exec: e, clock: c, durationMs: 1_000 },
    { op: "advance", ms: 1_000 + outageMs + 1_000, journalFault: 1, journalOutageEmits: failures }
  ]
})

/**
 * C12: the second process sweeps another flow while a clock of `FLOW` is pending: the seed's
 * `sweepDue(flowName)` re-arms only that flow's clocks, so only A's timer fires the clock.
 */
const otherFlowSweepTimeline: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.tuple(exec, clock).map(([e, c]) => [
  { op: "scheduleClock", exec: e, clock: c, durationMs: 1_000 },
  { op: "sweep", process: "B", withFlow: true, flow: OTHER_FLOW },
  { op: "advance", ms: 1_000 }
])

/**
 * How both processes come to hold a timer of the clock: A schedules it and B's sweep arms it, or both
 * schedule it at once (C8's race: one transaction that inserts or returns the stored row), A's or B's
 * first, B's duration the same, longer or shorter (two times in three the deadlines differ, and the first
 * to commit sets it), the second running into the first's open transaction two times in three where the
 * engine can. Shrinks toward the sweep.
 */
const bothArmed = fc.oneof(
  fc.constant(null),
  fc.record({ first: fc.constantFrom<ProcessName>("A", "B"), durationBMs: fc.constantFrom(1_000, 2_000, 500), overlap: fc.constantFrom(true, true, false) })
)

/** A clock both processes hold a timer of (`bothArmed`), and both fires raced (the race's lag fits in the advance). */
const raceTimeline = (shape: ScenarioShape): fc.Arbitrary<ReadonlyArray<FaultedCommand>> =>
  fc.tuple(exec, clock, advanceArbitrary(shape, fc.constant(2_500)), bothArmed).map(([e, c, advance, scheduling]): ReadonlyArray<FaultedCommand> => [
    ...(scheduling === null
      ? [{ op: "scheduleClock", exec: e, clock: c, durationMs: 1_000 } as const, { op: "sweep", process: "B", withFlow: false } as const]
      : [{ op: "scheduleRace", exec: e, clock: c, durationsMs: { A: 1_000, B: scheduling.durationBMs }, first: scheduling.first, overlap: scheduling.overlap } as const]),
    advance
  ])

/** The faults `faulted` carries, when `command` may take faults. */
const faultsOf = (shape: ScenarioShape, faulted: FaultedCommand, command: Command): Partial<FaultedCommand> =>
  !faultable(shape, command)
    ? {}
    : { ...(faulted.fault === undefined ? {} : { fault: faulted.fault }), ...(faulted.journalFault === undefined ? {} : { journalFault: faulted.journalFault }) }

/**
 * The scenario generator of a property shape: single commands and timelines, flattened. A shape with
 * races draws the race timeline as often as any other timeline unit (a race is what that property is
 * for; among the other timelines it came one time in ten).
 */
export const clocksScenario = (shape: ScenarioShape): fc.Arbitrary<ClocksScenario> => {
  // A timeline unit may shrink to a single command (cross-shrinking draws nothing more), so a failure in
  // the appended units shrinks to one command before them.
  const commands = fc.array(
    fc.oneof(
      { withCrossShrink: true },
      { weight: 3, arbitrary: faultedCommand(shape).map((command): ReadonlyArray<FaultedCommand> => [command]) },
      { weight: 2, arbitrary: timelineArbitrary(shape) },
      ...(shape.races ? [{ weight: 2, arbitrary: raceTimeline(shape) }] : [])
    ),
    { minLength: 1, maxLength: shape.maxCommands }
  ).map((units) => units.flat().slice(0, shape.maxCommands))
  const faulted = !shape.statementFaults
    ? commands
    : fc.tuple(commands, clocksStatementFaults).map(([drawn, statementFaults]) => withStatementFaults(drawn, statementFaults, (command) => faultable(shape, command)))
  if (shape.races) return fc.tuple(faulted, appendedRaceUnit).map(([drawn, appended]) => ({ commands: [...drawn, ...appended] }))
  if (!shape.appendedFaultUnits) return faulted.map((drawn) => ({ commands: drawn }))
  return fc.tuple(faulted, appendedFaultUnit).map(([drawn, appended]) => ({ commands: [...drawn, ...appended] }))
}

/**
 * C7 under two first reads at once (`resultRace.ts`): a completion, then both processes read it, the
 * one that starts first held before its transaction while virtual time moves on by 1 s, 1 ms or 45 s
 * (past a pending clock's deadline) and the other reads to completion, A's or B's first. The first
 * consumption is the later read's, at the later time; the held read must change nothing.
 */
const resultRaceTimeline: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.tuple(exec, value, fc.constantFrom<ProcessName>("A", "B"), fc.constantFrom(1_000, 1, 45_000))
  .map(([e, v, first, lagMs]) => [deferredDone(e, "sig", v), { op: "resultRace", exec: e, deferred: "sig", first, lagMs }])

/**
 * In half the race scenarios a reading race (`resultRaceTimeline`), drawn after every other draw and
 * appended, so no earlier draw or step of a scenario moves. Shrinks toward none.
 */
const appendedRaceUnit: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.oneof(fc.constant<ReadonlyArray<FaultedCommand>>([]), resultRaceTimeline)

/**
 * C12 under a storage outage at startup: a pending clock and an unconsumed completion, then a restart
 * (two times in three) or a sweep of A whose first or second read outside any transaction fails (a
 * dropped connection: the pending clocks, then the completions, in upstream's order), then time past
 * the clock's deadline. The sweep cannot re-arm what it could not read, so it must not report success
 * (unless it read again and did it all); a restart that failed so leaves the clock unarmed.
 */
const failedSweepReadTimeline: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.tuple(exec, clock, value, fc.constantFrom("restart", "restart", "sweep"), fc.constantFrom(1, 1, 2))
  .map(([e, c, v, kind, statement]) => {
    const fault: TransactionFault = { transaction: 1, phase: "readFails", statement }
    return [
      { op: "scheduleClock", exec: e, clock: c, durationMs: 5_000 },
      deferredDone(e, "sig", v),
      kind === "restart" ? { op: "restart", fault } : { op: "sweep", process: "A", withFlow: true, fault },
      { op: "advance", ms: 6_000 }
    ]
  })

/**
 * In one fault scenario in four a journal outage past the backoff's cap (`journalOutageTimeline`), in
 * another one in four a failed sweep read (`failedSweepReadTimeline`): drawn after every other draw and
 * appended, so no earlier draw or step of a scenario moves. One at most, so a counterexample found in
 * the drawn commands carries at most one unit's steps after them. Shrinks toward none.
 */
const appendedFaultUnit: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<ReadonlyArray<FaultedCommand>>([]) },
  { weight: 1, arbitrary: journalOutageTimeline },
  { weight: 1, arbitrary: failedSweepReadTimeline }
)
