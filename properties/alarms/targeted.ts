/**
 * Targeted generation for the alarms scenarios (issue: rare situations and unexercised rules):
 * - every bound of R1 at, below and above it, fractional durations that round up onto or past it,
 *   and the cross-field check (`parkedRetryDelay >= minimumRetryDelay`) failing on its own while each
 *   field alone is valid (`boundaryConfiguration`);
 * - boundaries of the calls (`boundaryTimeline`): a repeat at, below and above its floor (R8, also
 *   fractional), a deadline reached exactly, one ms early or late (R21), a failure delay at, below and
 *   above the minimum retry delay (R20, R24, also fractional), a `limit` at, below and above the number
 *   of due rows (R20, R21, E10), a backoff reaching its cap (R2) (a deadline is a `DateTime`, whole
 *   milliseconds by construction, so it has no fractional boundary);
 * - every pair of two invalid inputs in one call (`twoInvalidInputs`), so the validation order (R8,
 *   R20, R29) decides which error wins;
 * - every order of writes to one row within a pass (`writeOrderTimeline`), and cursors forward, equal
 *   and backward across passes and an external notice (`cursorPassesTimeline`).
 * Each path has a model situation (`models/alarms/boundaries.ts`) so the coverage table shows it.
 */
import * as fc from "fast-check"
import type { ScheduleConfigurationInput } from "../../models/alarms/index.ts"
import { DEFAULT_MIN_REPEAT_INTERVAL_MS, MIN_REPEAT_INTERVAL_MS, MIN_RETRY_DELAY_MS, PARKED_RETRY_DELAY_MS, UNENCODABLE_PAYLOAD_KEY } from "../../models/alarms/index.ts"
import type { Command, HandlerScriptSpec, InputSpec, MutationSpec, RefSpec } from "./scenario.ts"

/** A duration bound at, below and above it, and fractions rounding onto it and past it. */
const around = (boundMs: number): ReadonlyArray<number> => [boundMs - 1, boundMs - 0.5, boundMs, boundMs + 0.5, boundMs + 1]

/**
 * Configurations with one field at a boundary of R1 (the others default), or the cross-field check
 * failing alone: `minimumRetryDelay` above `parkedRetryDelay` while both are valid on their own.
 */
export const boundaryConfiguration: fc.Arbitrary<ScheduleConfigurationInput> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(...around(MIN_RETRY_DELAY_MS)).map((ms): ScheduleConfigurationInput => ({ minimumRetryDelayMs: ms })) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1, 1.5, 2).map((budget): ScheduleConfigurationInput => ({ unchangedAttemptBudget: budget })) },
  { weight: 1, arbitrary: fc.constantFrom(...around(PARKED_RETRY_DELAY_MS)).map((ms): ScheduleConfigurationInput => ({ parkedRetryDelayMs: ms })) },
  { weight: 1, arbitrary: fc.constantFrom(...around(MIN_REPEAT_INTERVAL_MS)).map((ms): ScheduleConfigurationInput => ({ minimumRepeatIntervalMs: ms })) },
  // The cross-field check on its own: each field valid, their order not.
  { weight: 4, arbitrary: fc.constantFrom<ScheduleConfigurationInput>(
    { minimumRetryDelayMs: PARKED_RETRY_DELAY_MS + 1 },
    { minimumRetryDelayMs: PARKED_RETRY_DELAY_MS + 0.5 },
    { minimumRetryDelayMs: PARKED_RETRY_DELAY_MS },
    { minimumRetryDelayMs: 2 * PARKED_RETRY_DELAY_MS, parkedRetryDelayMs: 2 * PARKED_RETRY_DELAY_MS - 1 },
    { minimumRetryDelayMs: 2 * PARKED_RETRY_DELAY_MS, parkedRetryDelayMs: 2 * PARKED_RETRY_DELAY_MS }
  ) }
)

/**
 * A repeat at, around or rounding onto the default floor (60 s) or a configured one, fired with a
 * handler that succeeds, or fails with `skip-and-advance-repeat` (R23, R24: both advance the repeat).
 */
const repeatBoundary = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    fc.constantFrom<number | undefined>(undefined, 1_000, 1_500.5, 30_000),
    fc.constantFrom(-1, -0.5, 0, 0.5, 1),
    fc.constantFrom("a", "b"),
    fc.constantFrom<HandlerScriptSpec | null>(null, {}, { outcome: "fail", onFailure: { kind: "skipAndAdvanceRepeat" } }, { outcome: "fail", onFailure: { kind: "skipAndAdvanceRepeat", objectForm: true } })
  ).map(([floorMs, offsetMs, tag, script]) => {
    const effectiveFloorMs = Math.ceil(floorMs ?? DEFAULT_MIN_REPEAT_INTERVAL_MS)
    const commands: Array<Command> = []
    if (floorMs !== undefined) commands.push({ op: "configure", configuration: { minimumRepeatIntervalMs: floorMs } })
    commands.push({ op: "schedule", input: { tag, id: "1", payload: null, runInMs: 0, repeatEveryMs: effectiveFloorMs + offsetMs } })
    if (script !== null) {
      commands.push({ op: "advanceToNextWake" }, { op: "dispatch", handlers: [{ tag, id: "1", script }] }, { op: "status", ref: { tag, id: "1" } })
    }
    return commands
  })

/** A cursor at, below and above zero, and a fraction (R10: a non-negative integer), external or in a pass. */
const progressBoundary = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(fc.constantFrom(-1, -0.5, 0, 0.5, 1), fc.boolean()).map(([progress, inPass]): ReadonlyArray<Command> => {
    const input: InputSpec = { tag: "a", id: "3", payload: null, runInMs: 0, progress }
    return inPass
      ? [
        { op: "schedule", input: { tag: "a", id: "3", payload: null, runInMs: 0 } },
        { op: "dispatch", handlers: [{ tag: "a", id: "3", script: { writes: [{ kind: "scheduleAlarm", input }] } }] }
      ]
      : [{ op: "schedule", input }]
  })

/** A deadline reached exactly, or the clock one ms before or after it (R21: due when wake_at <= now). */
const dueBoundary = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(fc.integer({ min: 1, max: 5_000 }), fc.constantFrom(-1, 0, 1), fc.constantFrom("1", "2", "3")).map(([runInMs, offsetMs, id]) => [
    { op: "schedule", input: { tag: "a", id, payload: null, runInMs } },
    { op: "advanceBy", ms: runInMs + offsetMs },
    { op: "dispatch", handlers: [] }
  ])

/** A failing dispatch whose failure delay (option or action) sits at, around or rounds onto the minimum retry delay. */
const failureDelayBoundary = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    fc.constantFrom(0, 0.5, 1, ...around(MIN_RETRY_DELAY_MS), 2_000.5),
    fc.boolean(),
    fc.constantFrom("1", "2", "3")
  ).map(([delayMs, asAction, id]) => [
    { op: "schedule", input: { tag: "b", id, payload: null, runInMs: 0 } },
    asAction
      ? { op: "dispatch", handlers: [{ tag: "b", id, script: { outcome: "fail", onFailure: { kind: "retryAfter", retryFailedAfterMs: delayMs } } }] }
      : { op: "dispatch", options: { retryFailedAfterMs: delayMs }, handlers: [{ tag: "b", id, script: { outcome: "fail" } }] },
    { op: "status", ref: { tag: "b", id } }
  ])

/** `limit` below, at and above the number of due rows (R20, R21, E10: leftovers keep dispatch going). */
const limitBoundary = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom(-1, 0, 1, 0.5)).map(([due, offset]) => {
    const ids = ["1", "2", "3"].slice(0, due)
    return [
      ...ids.map((id): Command => ({ op: "schedule", input: { tag: "a", id, payload: null, runInMs: 0 } })),
      { op: "dispatch", options: { limit: due + offset }, handlers: [] },
      { op: "dispatch", handlers: [] }
    ]
  })

/** An always-failing alarm whose backoff reaches the parked cap before the budget parks it (R2). */
const backoffCap = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(fc.constantFrom(900_000, 1_200_000, 1_800_000, 1_800_000.5), fc.integer({ min: 3, max: 4 })).map(([minimumRetryDelayMs, rounds]) => {
    const commands: Array<Command> = [
      { op: "configure", configuration: { minimumRetryDelayMs, unchangedAttemptBudget: 8 } },
      { op: "schedule", input: { tag: "a", id: "2", payload: null, runInMs: 0 } }
    ]
    for (let round = 0; round < rounds; round++) {
      commands.push({ op: "advanceToNextWake" }, { op: "dispatch", handlers: [{ tag: "a", id: "2", script: { outcome: "fail" } }] })
    }
    return commands
  })

/** A configuration at a bound in use: a schedule and a failing dispatch under it, then the reference is reset. */
const configurationInUse = (configuration: ScheduleConfigurationInput): ReadonlyArray<Command> => [
  { op: "configure", configuration },
  { op: "schedule", input: { tag: "a", id: "1", payload: null, runInMs: 0 } },
  { op: "dispatch", handlers: [{ tag: "a", id: "1", script: { outcome: "fail" } }] },
  { op: "configure", configuration: {} }
]

/**
 * Boundary timelines: a configure at a bound of R1 followed by a schedule and a dispatch (so the
 * resolved configuration is used), or a boundary of a call's own input.
 */
export const boundaryTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.oneof(
    { weight: 3, arbitrary: boundaryConfiguration.map(configurationInUse) },
    { weight: 2, arbitrary: repeatBoundary() },
    { weight: 2, arbitrary: dueBoundary() },
    { weight: 2, arbitrary: failureDelayBoundary() },
    { weight: 1, arbitrary: limitBoundary() },
    { weight: 2, arbitrary: backoffCap() },
    { weight: 3, arbitrary: progressBoundary() }
  )

/** One invalid input of a schedule (R1, R8, R10, R29) or of dispatch options (R1, R20). */
type ScheduleFlaw = "configuration" | "ref" | "repeat" | "payload" | "progress" | "unknownTag"
type DispatchFlaw = "configuration" | "limit" | "delay"

const SCHEDULE_FLAWS: ReadonlyArray<ScheduleFlaw> = ["configuration", "ref", "repeat", "payload", "progress", "unknownTag"]
const DISPATCH_FLAWS: ReadonlyArray<DispatchFlaw> = ["configuration", "limit", "delay"]

/** Every unordered pair of distinct flaws. */
const pairsOf = <A>(items: ReadonlyArray<A>): ReadonlyArray<readonly [A, A]> =>
  items.flatMap((first, index) => items.slice(index + 1).map((second) => [first, second] as const))

/** An invalid configuration that fails each of R1's checks, the cross-field one included. */
const invalidConfiguration = fc.constantFrom<ScheduleConfigurationInput>(
  { unchangedAttemptBudget: 0 },
  { minimumRetryDelayMs: 999 },
  { parkedRetryDelayMs: 3_599_999 },
  { minimumRepeatIntervalMs: 999 },
  { minimumRetryDelayMs: PARKED_RETRY_DELAY_MS + 1 }
)

/** A schedule with the two flaws (and the commands that set up and undo the environment ones). */
const flawedSchedule = (flaws: ReadonlyArray<ScheduleFlaw>, configuration: ScheduleConfigurationInput, earlier: boolean): ReadonlyArray<Command> => {
  const has = (flaw: ScheduleFlaw) => flaws.includes(flaw)
  const input: InputSpec = {
    tag: has("unknownTag") ? "b" : "a",
    id: has("ref") ? "" : "2",
    payload: has("payload") ? { [UNENCODABLE_PAYLOAD_KEY]: true } : null,
    runInMs: 0,
    ...(has("repeat") ? { repeatEveryMs: 999 } : {}),
    ...(has("progress") ? { progress: -1 } : {})
  }
  return [
    ...(has("unknownTag") ? [{ op: "restart", reason: "restart", knownTags: ["a"] } as const] : []),
    ...(has("configuration") ? [{ op: "configure", configuration } as const] : []),
    earlier ? { op: "schedule", earlier: true, input } : { op: "schedule", input },
    ...(has("configuration") ? [{ op: "configure", configuration: {} } as const] : []),
    ...(has("unknownTag") ? [{ op: "restart", reason: "restart", knownTags: ["a", "b"] } as const] : [])
  ]
}

/** Dispatch options with the two flaws (an invalid configuration is set before and undone after). */
const flawedDispatch = (flaws: ReadonlyArray<DispatchFlaw>, configuration: ScheduleConfigurationInput): ReadonlyArray<Command> => {
  const has = (flaw: DispatchFlaw) => flaws.includes(flaw)
  const options = { ...(has("limit") ? { limit: 0 } : {}), ...(has("delay") ? { retryFailedAfterMs: 0 } : {}) }
  return [
    { op: "schedule", input: { tag: "a", id: "1", payload: null, runInMs: 0 } },
    ...(has("configuration") ? [{ op: "configure", configuration } as const] : []),
    { op: "dispatch", options, handlers: [] },
    ...(has("configuration") ? [{ op: "configure", configuration: {} } as const] : [])
  ]
}

/**
 * One call with two invalid inputs, every pair: a schedule (configuration, ref, repeat, payload,
 * progress, unknown tag) or `processDueAlarms` (configuration, limit, failure delay). The
 * model's validation order says which error wins; nothing commits.
 */
export const twoInvalidInputs = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...pairsOf(SCHEDULE_FLAWS)), invalidConfiguration, fc.boolean()).map(([pair, configuration, earlier]) => flawedSchedule(pair, configuration, earlier)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...pairsOf(DISPATCH_FLAWS)), invalidConfiguration).map(([pair, configuration]) => flawedDispatch(pair, configuration)) }
  )

/** One write of a pass to its own row or to another alarm (new or existing). */
type PassWrite = "scheduleOwn" | "earlierOwn" | "cancelOwn" | "scheduleOther" | "cancelOther"

const PASS_WRITES: ReadonlyArray<PassWrite> = ["scheduleOwn", "earlierOwn", "cancelOwn", "scheduleOther", "cancelOther"]

const passWrite = (write: PassWrite, own: RefSpec, other: RefSpec, runInMs: number): MutationSpec => {
  switch (write) {
    case "scheduleOwn":
      // Cursor 1 over the row's 0: progress the first time, "source progressed" after that (R12).
      return { kind: "scheduleAlarm", input: { ...own, payload: null, runInMs, progress: 1 } }
    case "earlierOwn":
      return { kind: "scheduleAlarmEarlier", input: { ...own, payload: 1, runInMs } }
    case "cancelOwn":
      return { kind: "cancelAlarm", ref: own }
    case "scheduleOther":
      return { kind: "scheduleAlarm", input: { ...other, payload: null, runInMs } }
    case "cancelOther":
      return { kind: "cancelAlarm", ref: other }
  }
}

/**
 * Every order of writes within one pass (R12, R13, R22, R23, R25, E5): two or three writes to the
 * pass's own row and another alarm (which exists or not), in any order, each its own transaction or
 * all in one, with the handler succeeding or failing, after a failure already charged the row.
 */
export const writeOrderTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    fc.array(fc.constantFrom(...PASS_WRITES), { minLength: 2, maxLength: 3 }),
    fc.boolean(),
    fc.boolean(),
    fc.boolean(),
    fc.constantFrom("succeed" as const, "fail" as const),
    fc.constantFrom(0, 1_000, 90_000),
    fc.option(fc.constantFrom<PassWrite>("cancelOwn", "cancelOther", "scheduleOwn"), { nil: undefined })
  ).map(([writes, grouped, otherExists, chargedFirst, outcome, runInMs, forked]) => {
    const own: RefSpec = { tag: "a", id: "1" }
    const other: RefSpec = { tag: "b", id: "2" }
    const mutations = writes.map((write) => passWrite(write, own, other, runInMs))
    // A write from a fiber the handler forked, released after the pass ended (R9, H4).
    const script: HandlerScriptSpec = {
      writes: grouped ? [{ kind: "transaction", mutations }] : mutations,
      outcome,
      ...(forked === undefined ? {} : { forkedWrite: passWrite(forked, own, other, runInMs) })
    }
    const commands: Array<Command> = [{ op: "schedule", input: { ...own, payload: null, runInMs: 0, progress: 0 } }]
    if (otherExists) commands.push({ op: "schedule", input: { ...other, payload: null, runInMs: 60_000 } })
    if (chargedFirst) commands.push({ op: "dispatch", handlers: [{ ...own, script: { outcome: "fail" } }] }, { op: "advanceToNextWake" })
    commands.push({ op: "dispatch", handlers: [{ ...own, script }] }, { op: "status", ref: other })
    return commands
  })

/**
 * Cursors moving forward, staying equal or moving backward across two passes and then an external
 * notice (R11, R12, R13, E1): each pass re-arms its own row with a cursor relative to the previous one.
 */
export const cursorPassesTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    fc.nat({ max: 2 }),
    fc.array(fc.integer({ min: -1, max: 1 }), { minLength: 3, maxLength: 3 }),
    fc.constantFrom("succeed" as const, "fail" as const),
    fc.boolean()
  ).map(([start, deltas, outcome, earlier]) => {
    const own: RefSpec = { tag: "b", id: "3" }
    const cursors = deltas.reduce<Array<number>>((acc, delta) => [...acc, Math.max(0, acc[acc.length - 1]! + delta)], [start]).slice(1)
    const rearm = (progress: number): HandlerScriptSpec => ({
      writes: [{ kind: "scheduleAlarm", input: { ...own, payload: null, runInMs: 1_000, progress } }],
      outcome
    })
    const notice: InputSpec = { ...own, payload: 2, runInMs: 0, progress: cursors[2]! }
    return [
      { op: "schedule", input: { ...own, payload: null, runInMs: 0, progress: start } },
      { op: "dispatch", handlers: [{ ...own, script: rearm(cursors[0]!) }] },
      { op: "advanceToNextWake" },
      { op: "dispatch", handlers: [{ ...own, script: rearm(cursors[1]!) }] },
      earlier ? { op: "schedule", earlier: true, input: notice } : { op: "schedule", input: notice },
      { op: "status", ref: own }
    ]
  })

/**
 * Parked rows seen from another row's pass (R13, R14): a row parks under budget 1 and stays parked
 * (sticky) after the budget is raised; another row that already failed re-arms the parked one from its
 * pass (no charge: `max(source, existing)`), or the parked row's own pass, an hour later, creates a new
 * id (which inherits the parked source's attempts).
 */
export const parkedCrossRowTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(fc.boolean(), fc.constantFrom("succeed" as const, "fail" as const)).map(([fromOther, outcome]) => {
    const parked: RefSpec = { tag: "b", id: "1" }
    const other: RefSpec = { tag: "a", id: "2" }
    const fresh: RefSpec = { tag: "a", id: "3" }
    const commands: Array<Command> = [
      { op: "configure", configuration: { unchangedAttemptBudget: 1 } },
      { op: "schedule", input: { ...parked, payload: null, runInMs: 0 } },
      { op: "dispatch", handlers: [{ ...parked, script: { outcome: "fail" } }] },
      { op: "configure", configuration: { unchangedAttemptBudget: 3 } }
    ]
    if (fromOther) {
      commands.push(
        { op: "schedule", input: { ...other, payload: null, runInMs: 0 } },
        { op: "dispatch", handlers: [{ ...other, script: { outcome: "fail" } }] },
        { op: "advanceBy", ms: 1_000 },
        { op: "dispatch", handlers: [{ ...other, script: { writes: [{ kind: "scheduleAlarm", input: { ...parked, payload: 1, runInMs: 0 } }], outcome } }] },
        { op: "status", ref: parked }
      )
    } else {
      commands.push(
        { op: "advanceToNextWake" },
        { op: "dispatch", handlers: [{ ...parked, script: { writes: [{ kind: "scheduleAlarm", input: { ...fresh, payload: null, runInMs: 60_000 } }], outcome } }] },
        { op: "status", ref: fresh }
      )
    }
    return commands
  })

/**
 * A transaction handle misused (R5, H4): a mutation from a fiber the closure forked, or through the
 * handle kept after the transaction ended, next to a proper mutation that commits.
 */
export const handleMisuseTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(fc.constantFrom("forkedFiber" as const, "afterTransaction" as const), fc.constantFrom("scheduleAlarm" as const, "cancelAlarm" as const), fc.boolean()).map((
    [misuse, kind, misusedFirst]
  ): ReadonlyArray<Command> => {
    const misused = kind === "cancelAlarm"
      ? { kind, ref: { tag: "a", id: "1" }, misuse }
      : { kind, input: { tag: "a", id: "1", payload: null, runInMs: 0 }, misuse }
    const proper = { kind: "scheduleAlarm" as const, input: { tag: "b", id: "3", payload: null, runInMs: 500 } }
    return [{ op: "transaction", mutations: misusedFirst ? [misused, proper] : [proper, misused] }, { op: "status", ref: { tag: "a", id: "1" } }]
  })
