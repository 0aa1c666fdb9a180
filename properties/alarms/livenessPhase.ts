/**
 * The alarms subject's side of the generic liveness check (`harness/Liveness.ts`): every due alarm
 * eventually dispatches, and the scheduler always re-arms the platform alarm.
 *
 * After the scenario's commands (its fault window), the harness plays the Durable Object platform
 * under virtual time. The obligations are the alarms the model holds at that point that are due
 * (`run_at <= now`) or waiting for a retry after a failure (`retry_at` set: backing off or parked).
 * Each round, while some obligation has not been dispatched: read the platform alarm; when there is
 * none, nothing will ever wake the scheduler (the round is quiet); otherwise move the clock to the
 * later of the platform alarm and the earliest undispatched obligation's wake (a platform may deliver
 * late, never early), and deliver the platform alarm twice, as the platform's at-least-once delivery
 * may: each delivery first consumes the alarm (the platform clears it when it runs the alarm handler,
 * so `getAlarm` answers null until the handler sets it again), then calls `processDueAlarms` with
 * handlers that succeed. A quiet round ends the run; at most `LIVENESS_BOUNDS.maxRounds` rounds.
 * Before the first round an invalid ambient configuration is replaced by the defaults (an operator
 * fixing it), since a scheduler cannot dispatch under a configuration it must reject (R1).
 *
 * Then:
 * - every obligation was handed over (listed in `handled` or `failed` of some delivery): R21 (due rows
 *   are selected by wake; backing-off rows never block), R25 and H3 (a failed row keeps a recovery
 *   deadline), R6, R26 and E10 (the platform alarm is re-armed at the smallest wake after every
 *   transaction and after the batch);
 * - when alarms remain, the platform alarm is set and no later than the smallest remaining wake (R6,
 *   R4, R26, E10, H6): nothing is left armed in the past, or in the future, without a platform alarm
 *   that wakes the scheduler for it.
 */
import { Effect } from "effect"
import type { ExecutedStep } from "../../harness/ModelBased.ts"
import { livenessStep, type LivenessPredicate } from "../../harness/Liveness.ts"
import type { ExecutionEnvironment, Json } from "../../harness/Property.ts"
import type { HarnessError } from "../../harness/errors.ts"
import { advanceToMs, nowMs } from "../../harness/VirtualClock.ts"
import {
  DEFAULT_MIN_REPEAT_INTERVAL_MS,
  MIN_RETRY_DELAY_MS,
  type ModelState,
  PARKED_RETRY_DELAY_MS,
  resolveConfiguration,
  UNCHANGED_ATTEMPT_BUDGET
} from "../../models/alarms/index.ts"
import { VALID_REFS } from "./arbitraries.ts"
import { refKey } from "./commands.ts"
import { type AlarmsSession, harnessError } from "./session.ts"
import { compareCodeUnits } from "../../harness/CodeUnitOrder.ts"

/** Rounds of the run to quiescence: one per obligation at most (6 alarms in the id space), then a quiet one. */
export const LIVENESS_BOUNDS = { maxRounds: 8, quietRounds: 1 } as const

/** Deliveries of each platform alarm (at-least-once: the second finds nothing due and must re-arm). */
export const DELIVERIES_PER_WAKE = 2

/** Requirement ids of the liveness requirements (the ones this step checks). */
export const ALARMS_LIVENESS_REQUIREMENTS: ReadonlyArray<string> = ["ALM-050", "ALM-051"]

/** Rules of "every due alarm eventually dispatches". */
export const DISPATCH_LIVENESS_RULES: ReadonlyArray<string> = ["R21", "R25", "R26", "R6", "E10", "H3"]
/** Rules of "the scheduler always re-arms the platform alarm". */
export const REARM_LIVENESS_RULES: ReadonlyArray<string> = ["R6", "R4", "R26", "E10", "H6"]

/** The defaults, in full: an ambient reference that overrides any invalid captured value (R1). */
const DEFAULT_CONFIGURATION = {
  minimumRetryDelayMs: MIN_RETRY_DELAY_MS,
  unchangedAttemptBudget: UNCHANGED_ATTEMPT_BUDGET,
  parkedRetryDelayMs: PARKED_RETRY_DELAY_MS,
  minimumRepeatIntervalMs: DEFAULT_MIN_REPEAT_INTERVAL_MS
} as const

/** One alarm the scheduler owes a dispatch: due or waiting for its retry when the phase starts. */
interface Obligation {
  readonly key: string
  readonly wakeAtMs: number
}

interface EndState {
  readonly pending: ReadonlyArray<Obligation>
  readonly statuses: Readonly<Record<string, Json>>
  readonly platformAlarmMs: number | null
  readonly nowMs: number
}

/** The obligations of the model's state at `atMs`, earliest wake first. */
const obligationsOf = (model: ModelState, atMs: number): ReadonlyArray<Obligation> =>
  Object.values(model.rows)
    .filter((row) => row.runAtMs <= atMs || (row.attemptsRow?.retryAtMs ?? null) !== null)
    .map((row) => ({ key: refKey({ tag: row.tag, id: row.alarmId }), wakeAtMs: row.wakeAtMs }))
    .sort((a, b) => a.wakeAtMs - b.wakeAtMs || compareCodeUnits(a.key, b.key))

/** The smallest effective wake `max(runAt, retryAt ?? runAt)` among observed statuses, or null. */
const earliestWake = (statuses: Readonly<Record<string, Json>>): number | null => {
  let earliest: number | null = null
  for (const status of Object.values(statuses)) {
    if (status === null || typeof status !== "object" || Array.isArray(status)) continue
    const { runAtMs, retryAtMs } = status as { readonly runAtMs?: unknown; readonly retryAtMs?: unknown }
    if (typeof runAtMs !== "number") continue
    const wake = Math.max(runAtMs, typeof retryAtMs === "number" ? retryAtMs : runAtMs)
    if (earliest === null || wake < earliest) earliest = wake
  }
  return earliest
}

/** Refs listed in `handled` or `failed` of a dispatch result. */
const dispatchedKeys = (result: Json): ReadonlyArray<string> => {
  const value = (result as { readonly _tag?: unknown; readonly value?: { readonly handled?: unknown; readonly failed?: unknown } } | null)
  if (value?._tag !== "Success" || value.value === undefined) return []
  const entries = [...((value.value.handled ?? []) as ReadonlyArray<{ tag: string; id: string }>), ...((value.value.failed ?? []) as ReadonlyArray<{ tag: string; id: string }>)]
  return entries.map(refKey)
}

const PREDICATES: ReadonlyArray<LivenessPredicate<EndState>> = [
  {
    observable: "due alarms never dispatched",
    rules: DISPATCH_LIVENESS_RULES,
    why: "once faults stop, every alarm that is due or waiting for its retry is handed to the handler when the platform alarm fires: dispatch selects by wake (R21), a failed row keeps a recovery deadline (R25, H3) and every transaction and batch re-arms the platform alarm at the smallest wake (R6, R26, E10)",
    violations: (end) => end.pending.map((obligation) => ({ alarm: obligation.key, wakeAtMs: obligation.wakeAtMs, status: end.statuses[obligation.key] ?? null, platformAlarmMs: end.platformAlarmMs, nowMs: end.nowMs }))
  },
  {
    observable: "alarms left without a platform alarm that wakes them",
    rules: REARM_LIVENESS_RULES,
    why: "whenever alarms remain, the platform alarm is set at their smallest wake (R6), also after a delivery the platform consumed found nothing due: each transaction and the batch's final reconcile write it (R4, R26, E10)",
    violations: (end) => {
      const earliest = earliestWake(end.statuses)
      if (earliest === null) return []
      if (end.platformAlarmMs !== null && end.platformAlarmMs <= earliest) return []
      return [{ platformAlarmMs: end.platformAlarmMs, earliestWakeMs: earliest, nowMs: end.nowMs }]
    }
  }
]

/**
 * The liveness step of one scenario: run to quiescence as the platform, then check the predicates.
 * `model` is the model's state after the last command (the scenario held up to here).
 */
export const alarmsLivenessStep = (
  session: AlarmsSession,
  environment: ExecutionEnvironment,
  model: ModelState
): Effect.Effect<ExecutedStep, HarnessError> =>
  Effect.gen(function*() {
    const atMs = yield* nowMs
    const platformAlarm = environment.database.platformAlarm
    const obligations = obligationsOf(model, atMs)
    const pending = new Map(obligations.map((obligation) => [obligation.key, obligation]))
    const situations = new Set<string>()
    if (!resolveConfiguration(model.configuration).ok) {
      yield* session.call({ op: "configure", configuration: DEFAULT_CONFIGURATION }, atMs)
    }
    const readAlarm = platformAlarm.get.pipe(Effect.mapError(harnessError("reading the platform alarm")))

    const deliver = (deliveryAtMs: number, delivery: number) =>
      Effect.gen(function*() {
        // The platform consumes its alarm when it runs the handler (getAlarm answers null until set again).
        yield* platformAlarm.delete.pipe(Effect.mapError(harnessError("consuming the platform alarm")))
        const called = yield* session.call({ op: "dispatch", handlers: [], ...(delivery > 0 ? { redelivery: true } : {}) }, deliveryAtMs)
        const keys = dispatchedKeys(called.result)
        for (const key of keys) {
          if (pending.delete(key)) situations.add("liveDeliveryDispatchedDue")
        }
        if (delivery > 0 && keys.length === 0 && (yield* readAlarm) !== null) situations.add("redeliveryRearmed")
        return `${keys.length} dispatched`
      })

    const round = () =>
      Effect.gen(function*() {
        if (pending.size === 0) return { active: false, note: "every due alarm dispatched" }
        const alarmMs = yield* readAlarm
        if (alarmMs === null) return { active: false, note: `no platform alarm, ${pending.size} alarms waiting` }
        const earliestPendingMs = Math.min(...[...pending.values()].map((obligation) => obligation.wakeAtMs))
        const targetMs = Math.max(yield* nowMs, alarmMs, earliestPendingMs)
        yield* advanceToMs(targetMs)
        const notes: Array<string> = []
        for (let delivery = 0; delivery < DELIVERIES_PER_WAKE; delivery++) notes.push(yield* deliver(targetMs, delivery))
        return { active: true, note: `delivered at ${targetMs}: ${notes.join(", ")}` }
      })

    const executed = yield* livenessStep<EndState>({
      driver: { round },
      options: LIVENESS_BOUNDS,
      observe: Effect.gen(function*() {
        const observed = yield* session.observe(VALID_REFS)
        return { pending: [...pending.values()], statuses: observed.statuses, platformAlarmMs: observed.platformAlarmMs, nowMs: yield* nowMs }
      }),
      predicates: PREDICATES,
      stalledRules: DISPATCH_LIVENESS_RULES,
      atMs,
      // The predicates say something only when the scheduler owed a dispatch.
      covered: obligations.length === 0 ? [] : ALARMS_LIVENESS_REQUIREMENTS,
      stateJson: (end) => ({ obligations: obligations.map((obligation) => obligation.key), pending: end.pending.map((obligation) => obligation.key), platformAlarmMs: end.platformAlarmMs, statuses: end.statuses as Json, nowMs: end.nowMs })
    })
    return { ...executed, situations: [...situations].sort() }
  })
