/**
 * Scenario generators of the clocks properties: small command lists over two executions, two clocks
 * and one plain deferred, with faults as ordinary generated data (they shrink and replay).
 */
import * as fc from "fast-check"
import { storageFaultArbitrary } from "../../harness/Faults.ts"
import type { Command, FaultedCommand, TransactionFault } from "../../models/clocks/index.ts"

/** A scenario: the commands, in order (the liveness property appends its phase itself). */
export interface ClocksScenario {
  readonly commands: ReadonlyArray<FaultedCommand>
}

/** What a property's scenarios contain. */
export interface ScenarioShape {
  /** Storage and journal faults on the calls whose transactions are deterministic. */
  readonly faults: boolean
  /** Sweeps of a second process B (two engines firing the same clock). */
  readonly secondProcess: boolean
  /** Rewinds that keep the journal records (conflicts on re-completion). */
  readonly rowOnlyRewinds: boolean
  readonly maxCommands: number
}

const exec = fc.constantFrom("e1", "e1", "e2")
const clock = fc.constantFrom("t1", "t2")
const value = fc.integer({ min: 1, max: 3 })

const commandArbitrary = (shape: ScenarioShape): fc.Arbitrary<Command> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ op: fc.constant("scheduleClock" as const), exec, clock, durationMs: fc.constantFrom(1_000, 2_000, 5_000) }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant("deferredDone" as const), exec, deferred: fc.constantFrom("sig", "t1:fired"), value }) },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant("deferredDoneIfWaiting" as const),
        exec,
        deferred: fc.constant("sig"),
        value,
        reason: fc.constant("approval"),
        token: fc.constantFrom("k1", "k2")
      })
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("setWaiting" as const), exec, reason: fc.constant("approval"), token: fc.constantFrom("k1", "k2") }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant("deferredResult" as const), exec, deferred: fc.constantFrom("sig", "t1:fired") }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant("advance" as const), ms: fc.constantFrom(100, 1_000, 2_500, 6_000) }) },
    { weight: 2, arbitrary: fc.constant({ op: "restart" as const }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("sweep" as const), process: shape.secondProcess ? fc.constantFrom("A" as const, "B" as const) : fc.constant("A" as const), withFlow: fc.boolean() }) },
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

/** Commands whose storage transactions are deterministic, so a fault strikes the same one on both sides. */
const FAULTABLE: ReadonlyArray<Command["op"]> = ["scheduleClock", "deferredDone", "deferredDoneIfWaiting", "deferredResult", "advance", "effect"]

const faultArbitrary: fc.Arbitrary<TransactionFault> = storageFaultArbitrary({ maxTransaction: 2, phases: ["inside", "afterCommit", "lostReply"] })
  .map((fault) => ({ transaction: fault.transaction, phase: fault.phase as TransactionFault["phase"] }))

/** `null` `nullWeight` times as often as a value (shrinks toward null). */
const sometimes = <A>(arbitrary: fc.Arbitrary<A>, nullWeight: number): fc.Arbitrary<A | null> =>
  fc.oneof({ weight: nullWeight, arbitrary: fc.constant(null) }, { weight: 1, arbitrary })

const faultedCommand = (shape: ScenarioShape): fc.Arbitrary<FaultedCommand> =>
  !shape.faults
    ? commandArbitrary(shape)
    : fc.tuple(commandArbitrary(shape), sometimes(faultArbitrary, 3), sometimes(fc.integer({ min: 1, max: 2 }), 4)).map(
      ([command, fault, journalFault]): FaultedCommand =>
        !FAULTABLE.includes(command.op)
          ? command
          : { ...command, ...(fault === null ? {} : { fault }), ...(journalFault === null ? {} : { journalFault }) }
    )

/**
 * Short timelines generated as units, so the situations a rule is about are reached within the budget:
 * a completion read twice with time between (C7), a fired clock rewound and replayed (C9, C10), a
 * repeated completion (C5), a replayed schedule (C8), a restart with a future clock pending (C12), a
 * fire whose journal write fails and its retry (C11).
 */
const timelineArbitrary = (shape: ScenarioShape): fc.Arbitrary<ReadonlyArray<FaultedCommand>> =>
  fc.oneof(
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
    // A fire whose process dies right after its commit: only the registration sweep's wake resumes the run (C12).
    fc.tuple(exec, clock).map(([e, c]): ReadonlyArray<FaultedCommand> => [
      { op: "scheduleClock", exec: e, clock: c, durationMs: 1_000 },
      shape.faults ? { op: "advance", ms: 1_000, fault: { transaction: 1, phase: "afterCommit" } } : { op: "advance", ms: 1_000 }
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
    shape.faults && !timeline.some((command) => command.fault !== undefined || command.journalFault !== undefined)
      ? fc.tuple(...timeline.map((command) => faultedCommand(shape).map((faulted) => ({ ...faultsOf(faulted, command), ...command }) as FaultedCommand)))
      : fc.constant(timeline)
  )

/** The faults `faulted` carries, when `command` may take faults. */
const faultsOf = (faulted: FaultedCommand, command: Command): Partial<FaultedCommand> =>
  !FAULTABLE.includes(command.op)
    ? {}
    : { ...(faulted.fault === undefined ? {} : { fault: faulted.fault }), ...(faulted.journalFault === undefined ? {} : { journalFault: faulted.journalFault }) }

/** The scenario generator of a property shape: single commands and timelines, flattened. */
export const clocksScenario = (shape: ScenarioShape): fc.Arbitrary<ClocksScenario> =>
  fc.array(
    fc.oneof(
      { weight: 3, arbitrary: faultedCommand(shape).map((command): ReadonlyArray<FaultedCommand> => [command]) },
      { weight: 2, arbitrary: timelineArbitrary(shape) }
    ),
    { minLength: 1, maxLength: shape.maxCommands }
  ).map((units) => ({ commands: units.flat().slice(0, shape.maxCommands) }))
