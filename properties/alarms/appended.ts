/**
 * Targeted units appended after every other command of an alarms scenario, drawn after every other
 * field (`alarmsScenario`), so every earlier draw of a seed, and every earlier counterexample, keeps its
 * bytes; only the appended commands are new.
 *
 * - `parkLost` (fault scenarios only): a fresh alarm parks on its first charge (budget 1), by a failure
 *   (R25) or by its handler's self-rearm (R13, R14), and the process crashes right after the commit that
 *   queued its park report: the report may be lost, never duplicated (R27, situation `parkReportLost`).
 * - `illTyped`: a JavaScript caller's input outside the static types, only where the reference decides
 *   the outcome: a number tag or id given to `scheduleAlarm` or `scheduleAlarmEarlier` (R8, and R29 for
 *   typed definitions: `InvalidAlarmRefError`, nothing written), an `onFailure` object with an unknown
 *   `mode` and no `retryFailedAfter` (R24: anything but `skip-and-advance-repeat` reschedules, with the
 *   base delay).
 * - `retryCap`: an always-failing fresh alarm whose k-th failure (k = 1-3) backs off by a doubled base
 *   delay at, just below or just above the parked retry delay (R2: `min(parkedRetryDelay, base *
 *   2^(k-1))`, R25), the base from the dispatch's `retryFailedAfter` (R20), the action's own (R24) or
 *   `minimumRetryDelay` itself (R2's default), fractions that round onto or past the cap (R1, R20), and
 *   a fractional `parkedRetryDelay` (R1: rounded up, so no base meets it exactly from k = 2 on). An
 *   action's own delay is whole ms: R24 floors it at the minimum but, unlike R20, says nothing of rounding.
 * - `retryFailedAfter`: a failing dispatch whose `retryFailedAfter` option is at, just below or just
 *   above the minimum retry delay (also fractional), or far below it (R20: `max(minimumRetryDelay,
 *   ceil(retryFailedAfter))`), with no `onFailure`, one returning nothing or `retry` (the base delay),
 *   or an action with its own delay (whole ms, see above), which wins (R24); one or two failures (R2,
 *   R25: the base doubles).
 *   Only positive values: R20's "finite and > 0" is read on the option by the seed, on the floored delay
 *   by a literal reading of the page, so zero or a negative duration has no outcome both agree on.
 *
 * - `earlierBoundary`: `scheduleAlarmEarlier` of a stored alarm with its deadline 1 ms before, equal to
 *   or 1 ms after the stored one, another payload and another repeat (R16: `existing run_at <=
 *   requested` keeps the stored run_at, payload and repeat). Elsewhere a tie came only from a handler's
 *   identical re-arm, whose payload and repeat are the stored ones, so keeping or replacing them looked
 *   the same.
 *
 * - `overlayPrecedence`: the whole valid configuration captured by a rebuild, then a per-call
 *   configuration with one field invalid (below its bound, not an integer, or breaking the cross-field
 *   bound only once overlaid), then a schedule (R1: the per-call reference overlays the captured
 *   defaults, so the call is refused). Elsewhere a per-call field was rarely set over a captured one of
 *   the same field, so a service whose captured defaults won was caught only through the outcomes the
 *   wrong values changed, under the dispatch requirements.
 *
 * - `misusedHandle`: an external transaction schedules an alarm, then misuses its handle once with one
 *   of the three mutations (`scheduleAlarm`, `scheduleAlarmEarlier`, `cancelAlarm`), from a forked fiber
 *   or through the handle escaped after the transaction (R5: `StorageOperationError`, nothing of the
 *   misuse written, the transaction's own schedule kept). Elsewhere a misuse was one draw in nine of a
 *   transaction's mutations, spread over three kinds and two misuses, so at the gate's budget some
 *   pairs (a forked `scheduleAlarmEarlier`) never occurred.
 *
 * - `readFault` (fault scenarios only): one to three alarms due now, some with failing handlers (with
 *   budget 1, a failure parks and queues a park report), then the first alarm's status and a dispatch,
 *   each with its n-th read outside any transaction failing (`readFails`: a dropped connection). Each must
 *   fail with `StorageOperationError`, keeping what committed before (R21, R22, R27, R28): a read
 *   error swallowed as "no row" or "nothing due" returns success instead. The swarm's faults strike
 *   transactions only, and these reads run in none.
 *
 * - `narrowedSchema`: an alarm stored with a payload that is not a number, then a redeploy whose typed
 *   definitions narrow its tag's payload schema to numbers, maybe a schedule of the same tag with a
 *   number (accepted) or not (refused, `InvalidAlarmPayloadError`), then a dispatch: the stored row
 *   no longer decodes, a handler failure (R29: `StoredAlarmDecodeError`, backoff applies). Elsewhere
 *   every declared tag takes any JSON value, so only an unknown tag took R29's decode path.
 *
 * Left out because the reference leaves the outcome open: a `runAt` that is not a `DateTime` (R8 does
 * not validate it), an unknown `mode` carrying a `retryFailedAfter` (R24 does not say whether such an
 * object has an "own" delay), and a `null` or non-object ref given to `cancelAlarm` or
 * `getAlarmStatus` (R8 decides refs for scheduling only; an upstream-shaped implementation,
 * `examples/third-party-alarms`, reads `ref.tag` and fails with a TypeError, which no rule forbids).
 * `onFailure` returning `null` is drawn by `arbitraries.ts` already (`returnsNull`).
 */
import * as fc from "fast-check"
import type { Json } from "../../harness/Property.ts"
import { MIN_RETRY_DELAY_MS, PARKED_RETRY_DELAY_MS, type ResolvedScheduleConfiguration, retryDelayMs, type ScheduleConfigurationInput } from "../../models/alarms/index.ts"
import type { Command, HandlerEntrySpec, HandlerScriptSpec, InputSpec, MutationSpec, RefSpec, TransactionMutationSpec } from "./scenario.ts"
import { IDS, TAGS } from "./scenario.ts"

const DAY_MS = 86_400_000

/**
 * Deadline of the appended parking alarm: a month overdue, earlier than every other row a scenario
 * stores, so its failure or self-rearm is the dispatch's first transaction (R21: by wake_at).
 */
const PARK_LOST_RUN_IN_MS = -30 * DAY_MS

/** A value a JavaScript caller may pass where the static type says `A` (the scenario stays JSON). */
const outsideType = <A>(value: unknown): A => value as A

/** What parks the appended alarm. */
export type ParkLostCause = "failure" | "selfRearm"

/** The drawn part of a `parkLost` unit; the tag comes from the scenario (a declared one). */
export interface ParkLostDraw {
  readonly parkedBy: ParkLostCause
  readonly id: string
  readonly reporterFails: boolean
}

/** Draws of the `parkLost` unit. */
export const parkLostDraw: fc.Arbitrary<ParkLostDraw> = fc.record({
  parkedBy: fc.constantFrom<ParkLostCause>("failure", "selfRearm"),
  id: fc.constantFrom(...IDS),
  reporterFails: fc.boolean()
}, { noNullPrototype: true })

/**
 * The `parkLost` commands for tag `tag`: budget 1, an overdue external enrollment (attempts 0, R13),
 * then a dispatch whose first transaction parks the alarm (the failure write, or the handler's own
 * re-arm) and crashes right after its commit (R27: the report may be lost).
 */
export const parkLostCommands = (draw: ParkLostDraw, tag: string): ReadonlyArray<Command> => {
  const own: RefSpec = { tag, id: draw.id }
  const rearm: InputSpec = { ...own, payload: null, runInMs: 0, copyOfOwnRow: true }
  return [
    { op: "configure", configuration: { unchangedAttemptBudget: 1 } },
    { op: "schedule", input: { ...own, payload: null, runInMs: PARK_LOST_RUN_IN_MS } },
    {
      op: "dispatch",
      handlers: [{ ...own, script: draw.parkedBy === "failure" ? { outcome: "fail" } : { writes: [{ kind: "scheduleAlarm", input: rearm }] } }],
      fault: { transaction: 1, phase: "afterCommit" },
      ...(draw.reporterFails ? { reporterFails: true } : {})
    },
    { op: "status", ref: own }
  ]
}

/** The kinds of ill-typed input a unit passes. */
export type IllTypedKind = "numberTag" | "numberId" | "unknownMode"

/** The drawn part of an `illTyped` unit. */
export interface IllTypedDraw {
  readonly kind: IllTypedKind
  readonly id: string
  /** `numberTag`/`numberId`: through `scheduleAlarmEarlier` instead of `scheduleAlarm`. */
  readonly variant: boolean
}

/** Draws of the `illTyped` unit. */
export const illTypedDraw: fc.Arbitrary<IllTypedDraw> = fc.record({
  kind: fc.constantFrom<IllTypedKind>("numberTag", "numberId", "unknownMode"),
  id: fc.constantFrom(...IDS),
  variant: fc.boolean()
}, { noNullPrototype: true })

/** The `illTyped` commands for tag `tag` (a declared one). */
export const illTypedCommands = (draw: IllTypedDraw, tag: string): ReadonlyArray<Command> => {
  const op = draw.variant ? { op: "schedule" as const, earlier: true } : { op: "schedule" as const }
  switch (draw.kind) {
    case "numberTag":
      return [{ ...op, input: { tag: outsideType<string>(Number(draw.id)), id: draw.id, payload: null, runInMs: 0 } }]
    case "numberId":
      return [{ ...op, input: { tag, id: outsideType<string>(Number(draw.id)), payload: null, runInMs: 0 } }]
    case "unknownMode":
      return [
        { op: "schedule", input: { tag, id: draw.id, payload: null, runInMs: 0 } },
        { op: "dispatch", handlers: [{ tag, id: draw.id, script: { outcome: "fail", onFailure: { kind: "unknownMode" } } }] },
        { op: "status", ref: { tag, id: draw.id } }
      ]
  }
}

/**
 * The whole configuration a unit sets (R1): every field given, so neither the configuration the
 * service captured nor an earlier `configure` of the scenario (maybe invalid) leaks into the unit.
 */
const unitConfiguration = (fields: { readonly minimumRetryDelayMs: number; readonly parkedRetryDelayMs: number }): Command => ({
  op: "configure",
  configuration: { ...fields, unchangedAttemptBudget: UNIT_CONFIGURATION.unchangedAttemptBudget, minimumRepeatIntervalMs: UNIT_CONFIGURATION.minimumRepeatIntervalMs }
})

/**
 * The fields every retry unit sets alike. The budget is above the units' failures, so no failure parks
 * (a parked retry waits the parked delay whatever the base, R2); the two retry delays are R1's
 * defaults, kept where a unit does not draw its own.
 */
const UNIT_CONFIGURATION: ResolvedScheduleConfiguration = {
  unchangedAttemptBudget: 8,
  minimumRepeatIntervalMs: 60_000,
  minimumRetryDelayMs: MIN_RETRY_DELAY_MS,
  parkedRetryDelayMs: PARKED_RETRY_DELAY_MS
}

/** Where a unit's failure base delay comes from. */
export type RetryBaseSource = "option" | "action" | "minimum"

/** The drawn part of a `retryCap` unit. */
export interface RetryCapDraw {
  readonly id: string
  /** `parkedRetryDelay` as configured (R1 rounds it up). */
  readonly parkedMs: number
  /** The failure (1-3) whose delay meets the cap; `minimum` uses 2-3 (at 1, above the cap is R1's cross-field error). */
  readonly failures: number
  /** Added to the base that reaches the cap exactly: just below, onto (also by rounding up) or just above it. */
  readonly offsetMs: number
  readonly base: RetryBaseSource
}

/** Draws of the `retryCap` unit. */
export const retryCapDraw: fc.Arbitrary<RetryCapDraw> = fc.record({
  id: fc.constantFrom(...IDS),
  parkedMs: fc.constantFrom(3_600_000, 3_600_000.5, 7_200_000),
  failures: fc.integer({ min: 1, max: 3 }),
  offsetMs: fc.constantFrom(-1, -0.5, 0, 0.5, 1),
  base: fc.constantFrom<RetryBaseSource>("option", "action", "minimum")
}, { noNullPrototype: true })

/**
 * `failures` failing dispatches of a fresh alarm due now, the clock advanced by each backoff but the
 * last (R2, R25: so the alarm is due again and nothing else decides when), then its status (R28).
 */
const failingRounds = (
  own: RefSpec,
  failures: number,
  baseMs: number,
  parkedMs: number,
  dispatchCommand: Extract<Command, { op: "dispatch" }>
): ReadonlyArray<Command> => {
  const commands: Array<Command> = [{ op: "schedule", input: { ...own, payload: null, runInMs: 0 } }]
  for (let attempts = 1; attempts <= failures; attempts++) {
    if (attempts > 1) commands.push({ op: "advanceBy", ms: retryDelayMs(attempts - 1, false, { ...UNIT_CONFIGURATION, parkedRetryDelayMs: parkedMs }, baseMs) })
    commands.push(dispatchCommand)
  }
  commands.push({ op: "status", ref: own })
  return commands
}

/**
 * The `retryCap` commands for tag `tag`: budget 8, minimum retry delay 1 s unless it is the base, a
 * fresh alarm failing `failures` times with the base `ceil(parked) / 2^(failures - 1) + offset`.
 */
export const retryCapCommands = (draw: RetryCapDraw, tag: string): ReadonlyArray<Command> => {
  const own: RefSpec = { tag, id: draw.id }
  const failures = draw.base === "minimum" ? Math.max(2, draw.failures) : draw.failures
  const parkedMs = Math.ceil(draw.parkedMs)
  const delayMs = parkedMs / 2 ** (failures - 1) + draw.offsetMs
  // Every delay drawn is far above the minimum retry delay of 1 s, so it is the base (R20, R24).
  const baseMs = Math.ceil(delayMs)
  const failing: HandlerEntrySpec = {
    ...own,
    script: draw.base === "action" ? { outcome: "fail", onFailure: { kind: "retryAfter", retryFailedAfterMs: baseMs } } : { outcome: "fail" }
  }
  const dispatchCommand: Extract<Command, { op: "dispatch" }> = draw.base === "option"
    ? { op: "dispatch", options: { retryFailedAfterMs: delayMs }, handlers: [failing] }
    : { op: "dispatch", handlers: [failing] }
  return [
    unitConfiguration({ minimumRetryDelayMs: draw.base === "minimum" ? delayMs : UNIT_CONFIGURATION.minimumRetryDelayMs, parkedRetryDelayMs: draw.parkedMs }),
    ...failingRounds(own, failures, baseMs, parkedMs, dispatchCommand)
  ]
}

/** What `onFailure` answers in a `retryFailedAfter` unit (`noCallback`: the call passes none, R24's default). */
export type RetryFailedAfterAction = "noCallback" | "none" | "retry" | "ownDelay"

/** The drawn part of a `retryFailedAfter` unit. */
export interface RetryFailedAfterDraw {
  readonly id: string
  /** `minimumRetryDelay` as configured (R1 rounds it up). */
  readonly minimumMs: number
  /** The option: `far` below the rounded minimum (0.5 ms or 1 ms), or the rounded minimum plus an offset. */
  readonly option: { readonly far: number } | { readonly offsetMs: number }
  readonly action: RetryFailedAfterAction
  /** The action's own delay (`ownDelay`), drawn like the option and rounded up to whole ms. */
  readonly own: { readonly far: number } | { readonly offsetMs: number }
  readonly failures: number
}

const aroundMinimum: fc.Arbitrary<{ readonly far: number } | { readonly offsetMs: number }> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(0.5, 1).map((far) => ({ far })) },
  { weight: 4, arbitrary: fc.constantFrom(-1, -0.5, 0, 0.5, 1).map((offsetMs) => ({ offsetMs })) }
)

/** Draws of the `retryFailedAfter` unit. */
export const retryFailedAfterDraw: fc.Arbitrary<RetryFailedAfterDraw> = fc.record({
  id: fc.constantFrom(...IDS),
  minimumMs: fc.constantFrom(1_000, 1_000.5, 4_000),
  option: aroundMinimum,
  action: fc.constantFrom<RetryFailedAfterAction>("noCallback", "none", "retry", "ownDelay"),
  own: aroundMinimum,
  failures: fc.integer({ min: 1, max: 2 })
}, { noNullPrototype: true })

/** A delay drawn relative to the rounded minimum retry delay `minimumMs`. */
const delayNear = (drawn: { readonly far: number } | { readonly offsetMs: number }, minimumMs: number): number =>
  "far" in drawn ? drawn.far : minimumMs + drawn.offsetMs

/**
 * The `retryFailedAfter` commands for tag `tag`: budget 8, the drawn minimum retry delay, a fresh
 * alarm failing once or twice under a dispatch with the drawn `retryFailedAfter`.
 */
export const retryFailedAfterCommands = (draw: RetryFailedAfterDraw, tag: string): ReadonlyArray<Command> => {
  const own: RefSpec = { tag, id: draw.id }
  const minimumMs = Math.ceil(draw.minimumMs)
  const optionMs = delayNear(draw.option, minimumMs)
  const ownMs = Math.ceil(delayNear(draw.own, minimumMs))
  // R20 (the option) and R24 (an action's own delay, which wins): rounded up, floored at the minimum.
  const baseMs = Math.max(minimumMs, Math.ceil(draw.action === "ownDelay" ? ownMs : optionMs))
  const script: HandlerScriptSpec = draw.action === "ownDelay"
    ? { outcome: "fail", onFailure: { kind: "retryAfter", retryFailedAfterMs: ownMs } }
    : draw.action === "retry"
    ? { outcome: "fail", onFailure: { kind: "retry" } }
    : { outcome: "fail" }
  const dispatchCommand: Extract<Command, { op: "dispatch" }> = {
    op: "dispatch",
    options: draw.action === "noCallback" ? { retryFailedAfterMs: optionMs, withoutOnFailure: true } : { retryFailedAfterMs: optionMs },
    handlers: [{ ...own, script }]
  }
  return [
    unitConfiguration({ minimumRetryDelayMs: draw.minimumMs, parkedRetryDelayMs: UNIT_CONFIGURATION.parkedRetryDelayMs }),
    ...failingRounds(own, draw.failures, baseMs, UNIT_CONFIGURATION.parkedRetryDelayMs, dispatchCommand)
  ]
}

/** The drawn part of an `earlierBoundary` unit. */
export interface EarlierBoundaryDraw {
  readonly id: string
  /** The requested deadline minus the stored one: at the boundary (0, twice as often), just before or just after. */
  readonly offsetMs: number
  /** The request carries a repeat of its own (else none), so a replaced repeat shows either way. */
  readonly requestRepeats: boolean
}

/** Draws of the `earlierBoundary` unit. */
export const earlierBoundaryDraw: fc.Arbitrary<EarlierBoundaryDraw> = fc.record({
  id: fc.constantFrom(...IDS),
  offsetMs: fc.constantFrom(0, -1, 1, 0),
  requestRepeats: fc.boolean()
}, { noNullPrototype: true })

/** The stored alarm's deadline in an `earlierBoundary` unit: a minute ahead, so nothing is due meanwhile. */
const EARLIER_BOUNDARY_RUN_IN_MS = 60_000

/**
 * The `earlierBoundary` commands for tag `tag` (R16 at, below and above its boundary): the whole
 * default configuration, an alarm stored a minute ahead with a payload and an hourly repeat, then
 * `scheduleAlarmEarlier` of the same alarm at the same instant, its deadline 1 ms before, equal to or
 * 1 ms after the stored one, with another payload and another repeat or none: at or after the stored
 * deadline the stored run_at, payload and repeat stay (`existing run_at <= requested`), before it the
 * request wins. Then its status.
 */
export const earlierBoundaryCommands = (draw: EarlierBoundaryDraw, tag: string): ReadonlyArray<Command> => {
  const own: RefSpec = { tag, id: draw.id }
  return [
    unitConfiguration({ minimumRetryDelayMs: UNIT_CONFIGURATION.minimumRetryDelayMs, parkedRetryDelayMs: UNIT_CONFIGURATION.parkedRetryDelayMs }),
    { op: "schedule", input: { ...own, payload: "stored", runInMs: EARLIER_BOUNDARY_RUN_IN_MS, repeatEveryMs: 3_600_000 } },
    {
      op: "schedule",
      earlier: true,
      input: { ...own, payload: "requested", runInMs: EARLIER_BOUNDARY_RUN_IN_MS + draw.offsetMs, ...(draw.requestRepeats ? { repeatEveryMs: 7_200_000 } : {}) }
    },
    { op: "status", ref: own }
  ]
}

/** Which field of R1 an `overlayPrecedence` unit's per-call configuration gets wrong. */
export type OverlayField = "budgetZero" | "budgetFraction" | "minimumRetryDelay" | "parkedRetryDelay" | "minimumRepeatInterval" | "crossField"

/** The drawn part of an `overlayPrecedence` unit. */
export interface OverlayPrecedenceDraw {
  readonly id: string
  readonly field: OverlayField
}

/** Draws of the `overlayPrecedence` unit. */
export const overlayPrecedenceDraw: fc.Arbitrary<OverlayPrecedenceDraw> = fc.record({
  id: fc.constantFrom(...IDS),
  field: fc.constantFrom<OverlayField>("budgetZero", "budgetFraction", "minimumRetryDelay", "parkedRetryDelay", "minimumRepeatInterval", "crossField")
}, { noNullPrototype: true })

/**
 * Per-call configurations invalid under R1 only through their own field: each is one field, below its
 * bound (or not an integer), or, for `crossField`, a minimum retry delay above the captured parked
 * delay, which is valid alone and invalid only once overlaid.
 */
const INVALID_OVERLAY: Readonly<Record<OverlayField, ScheduleConfigurationInput>> = {
  budgetZero: { unchangedAttemptBudget: 0 },
  budgetFraction: { unchangedAttemptBudget: 2.5 },
  minimumRetryDelay: { minimumRetryDelayMs: MIN_RETRY_DELAY_MS - 1 },
  parkedRetryDelay: { parkedRetryDelayMs: PARKED_RETRY_DELAY_MS - 1 },
  minimumRepeatInterval: { minimumRepeatIntervalMs: MIN_RETRY_DELAY_MS - 1 },
  crossField: { minimumRetryDelayMs: 2 * PARKED_RETRY_DELAY_MS }
}

/**
 * The `overlayPrecedence` commands for tag `tag` (R1: defaults captured when the service is built,
 * overlaid by the per-call reference): the whole valid configuration is provided and the service
 * rebuilt, so it captures every field; then the per-call reference names one field invalid (or, overlaid,
 * breaking the cross-field bound), and an alarm is scheduled. The overlay wins, so the merged
 * configuration is invalid: `InvalidScheduleConfigurationError`, nothing written. A service that let
 * its captured defaults win over the call's reference would accept the call.
 */
export const overlayPrecedenceCommands = (draw: OverlayPrecedenceDraw, tag: string): ReadonlyArray<Command> => {
  const own: RefSpec = { tag, id: draw.id }
  return [
    unitConfiguration({ minimumRetryDelayMs: UNIT_CONFIGURATION.minimumRetryDelayMs, parkedRetryDelayMs: UNIT_CONFIGURATION.parkedRetryDelayMs }),
    { op: "restart", reason: "restart" },
    { op: "configure", configuration: INVALID_OVERLAY[draw.field] },
    { op: "schedule", input: { ...own, payload: "overlay", runInMs: 60_000 } },
    { op: "status", ref: own }
  ]
}

/** The drawn part of a `misusedHandle` unit. */
export interface MisusedHandleDraw {
  readonly id: string
  readonly kind: MutationSpec["kind"]
  readonly misuse: NonNullable<TransactionMutationSpec["misuse"]>
}

/** Draws of the `misusedHandle` unit: every (mutation, misuse) pair equally likely. */
export const misusedHandleDraw: fc.Arbitrary<MisusedHandleDraw> = fc.record({
  id: fc.constantFrom(...IDS),
  kind: fc.constantFrom<MutationSpec["kind"]>("scheduleAlarm", "scheduleAlarmEarlier", "cancelAlarm"),
  misuse: fc.constantFrom<MisusedHandleDraw["misuse"]>("forkedFiber", "afterTransaction")
}, { noNullPrototype: true })

/**
 * The `misusedHandle` commands for tag `tag` (R5): one transaction that schedules the alarm and then
 * misuses its handle with `draw.kind`, then the alarm's status (the transaction's own schedule stays,
 * the misused mutation writes nothing and fails with `StorageOperationError`).
 */
export const misusedHandleCommands = (draw: MisusedHandleDraw, tag: string): ReadonlyArray<Command> => {
  const own: RefSpec = { tag, id: draw.id }
  const misused: MutationSpec = draw.kind === "cancelAlarm"
    ? { kind: "cancelAlarm", ref: own }
    : { kind: draw.kind, input: { ...own, payload: "misused", runInMs: 10_000 } }
  return [
    { op: "transaction", mutations: [{ kind: "scheduleAlarm", input: { ...own, payload: "kept", runInMs: 60_000 } }, { ...misused, misuse: draw.misuse }] },
    { op: "status", ref: own }
  ]
}

/** One alarm of a `readFault` unit: its id, and whether its handler fails. */
export interface ReadFaultAlarm {
  readonly id: string
  readonly fails: boolean
}

/** The drawn part of a `readFault` unit. */
export interface ReadFaultDraw {
  /** The alarms the unit schedules due now, in dispatch order (distinct ids). */
  readonly alarms: ReadonlyArray<ReadFaultAlarm>
  /** Budget 1, so a failure parks and its transaction queues a park report to re-read (R18, R27). */
  readonly parks: boolean
  /** Which of the status call's reads outside a transaction fails (1-based, as the harness counts them). */
  readonly statusRead: number
  /** Which of the dispatch's reads outside a transaction fails. */
  readonly dispatchRead: number
}

/**
 * Which read fails: the first three (where every implementation reads: a migration check, the select,
 * the first row) as often as the five after them (rows and park reports).
 */
const readOrdinal: fc.Arbitrary<number> = fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 4, max: 8 }))

/** Draws of the `readFault` unit. */
export const readFaultDraw: fc.Arbitrary<ReadFaultDraw> = fc.record({
  alarms: fc.uniqueArray(fc.record({ id: fc.constantFrom(...IDS), fails: fc.boolean() }, { noNullPrototype: true }), { minLength: 1, maxLength: 3, selector: (alarm) => alarm.id }),
  parks: fc.boolean(),
  // The shipped scheduler reads twice for a status (the migration check, the row); a third read strikes none of it.
  statusRead: fc.integer({ min: 1, max: 3 }),
  dispatchRead: readOrdinal
}, { noNullPrototype: true })

/**
 * The `readFault` commands, each alarm's tag from `tagOf` (a declared one): the whole configuration
 * (budget 1 when the draw parks), the alarms due 1 s apart in the past (so their dispatch order is
 * theirs), the first alarm's status with a failed read, the dispatch with a failed read, then every
 * alarm's status.
 */
export const readFaultCommands = (draw: ReadFaultDraw, tagOf: (id: string) => string): ReadonlyArray<Command> => {
  const refs: ReadonlyArray<RefSpec> = draw.alarms.map((alarm) => ({ tag: tagOf(alarm.id), id: alarm.id }))
  const schedules: ReadonlyArray<Command> = refs.map((ref, index) => ({ op: "schedule", input: { ...ref, payload: null, runInMs: (index - refs.length) * 1_000 } }))
  return [
    { op: "configure", configuration: { ...UNIT_CONFIGURATION, unchangedAttemptBudget: draw.parks ? 1 : UNIT_CONFIGURATION.unchangedAttemptBudget } },
    ...schedules,
    { op: "status", ref: refs[0]!, fault: { transaction: 1, phase: "readFails", statement: draw.statusRead } },
    {
      op: "dispatch",
      handlers: refs.map((ref, index) => ({ ...ref, script: draw.alarms[index]!.fails ? { outcome: "fail" } : {} })),
      fault: { transaction: 1, phase: "readFails", statement: draw.dispatchRead }
    },
    ...refs.map((ref): Command => ({ op: "status", ref }))
  ]
}

/** What a `narrowedSchema` unit schedules after the redeploy: nothing, a number, or a payload that is not one. */
export type NarrowedLater = "none" | "number" | "notNumber"

/** The drawn part of a `narrowedSchema` unit. */
export interface NarrowedSchemaDraw {
  readonly id: string
  /** The payload stored before the redeploy: any JSON value but a number. */
  readonly storedPayload: Json
  readonly later: NarrowedLater
}

/** Draws of the `narrowedSchema` unit. */
export const narrowedSchemaDraw: fc.Arbitrary<NarrowedSchemaDraw> = fc.record({
  id: fc.constantFrom(...IDS),
  storedPayload: fc.constantFrom<Json>("7", { count: 7 }, [7], true, null),
  // Shrinks toward no later schedule; a refused one is drawn twice as often as an accepted one.
  later: fc.constantFrom<NarrowedLater>("none", "notNumber", "number", "notNumber")
}, { noNullPrototype: true })

/**
 * The `narrowedSchema` commands for tag `tag` (a declared one) under the final definitions `known`
 * (null: untyped, so the redeploy declares every tag): the stored alarm, the redeploy narrowing `tag`
 * to numbers, the later schedule of the next id, a dispatch, and both statuses.
 */
export const narrowedSchemaCommands = (draw: NarrowedSchemaDraw, tag: string, known: ReadonlyArray<string> | null): ReadonlyArray<Command> => {
  const own: RefSpec = { tag, id: draw.id }
  const next: RefSpec = { tag, id: IDS[(IDS.indexOf(draw.id as typeof IDS[number]) + 1) % IDS.length]! }
  const later: ReadonlyArray<Command> = draw.later === "none"
    ? []
    : [{ op: "schedule", input: { ...next, payload: draw.later === "number" ? 7 : "7", runInMs: 0 } }]
  return [
    { op: "schedule", input: { ...own, payload: draw.storedPayload, runInMs: 0 } },
    { op: "restart", reason: "restart", knownTags: known ?? [...TAGS], numberTags: [tag] },
    ...later,
    { op: "dispatch", handlers: [] },
    { op: "status", ref: own },
    { op: "status", ref: next }
  ]
}

/** The tags declared at the end of `commands` (null: untyped), starting from the scenario's `knownTags`. */
export const finalKnownTags = (initial: ReadonlyArray<string> | undefined, commands: ReadonlyArray<Command>): ReadonlyArray<string> | null => {
  let known: ReadonlyArray<string> | null = initial ?? null
  for (const command of commands) {
    if (command.op === "restart" && command.knownTags !== undefined) known = command.knownTags
  }
  return known
}

/** A tag the final definitions declare (any tag of the id space when untyped), picked by the drawn id. */
export const declaredTag = (known: ReadonlyArray<string> | null, id: string): string => {
  const tags = known === null || known.length === 0 ? TAGS : known
  return tags[IDS.indexOf(id as typeof IDS[number]) % tags.length]!
}
