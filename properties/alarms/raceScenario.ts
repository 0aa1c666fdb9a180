/**
 * The scenario of `alarms/race`: a few due rows (one-shots and repeats, small attempt budget so a
 * failure can park), one `processDueAlarms` batch with scripted handlers, and one external call racing
 * it (`scheduleAlarm`, `scheduleAlarmEarlier` or `cancelAlarm`, on a row of the batch or another one).
 * The racer lands at a generated hook point of the batch (`hook`), or where a generated step schedule
 * puts it (before, inside or after the batch) (`scheduled`, uniform or PCT over the batch's between-transaction
 * hook points, `RACE_INTERLEAVING`). Then, optionally, a `lock` race: two scheduler instances on
 * separate connections, the first paused inside its transaction while the second starts its own
 * (truly concurrent on an engine with independent connections; in order elsewhere).
 */
import * as fc from "fast-check"
import type { InterleavingShape } from "../../harness/PctBound.ts"
import { type StepSchedule, stepScheduleArbitrary } from "../../harness/StepSchedule.ts"
import { type DispatchRacePoint, DISPATCH_RACE_POINTS } from "../../models/alarms/index.ts"
import { VALID_REFS } from "./arbitraries.ts"
import type { MutationSpec } from "./scenario.ts"

/** Most due rows a race batch has (it bounds the batch's scheduling points). */
export const MAX_RACE_ROWS = 3

/**
 * The shape of a scheduled race: 2 operations (the batch, the racer) and at most 19 scheduling points:
 * both starts, the batch's `afterSelectDue`, and per due row at most four: `beforeHandler`,
 * `afterHandler`, then `afterAcknowledge`, or `beforeFailureWrite` and the failure write's
 * `afterCommitBeforeReport` (the 3 written rows, and one more a racer started first may schedule due). The racer's only point is its
 * start: its hook points are inside its transaction, so its write is one step the model can place.
 */
export const ALARMS_RACE_INTERLEAVING: InterleavingShape = { operations: 2, steps: 2 + 1 + 4 * (MAX_RACE_ROWS + 1), maxDepth: 3 }

/** A due row written before the race (index into `VALID_REFS`). */
export interface RaceRowSpec {
  readonly ref: number
  /** Overdue by this much when scheduled (negative). */
  readonly runInMs: number
  readonly repeat: boolean
}

/** What the batch's handler does for one row. */
export interface RaceHandlerSpec {
  readonly ref: number
  readonly fail: boolean
  readonly onFailure: "none" | "skipAndAdvanceRepeat"
}

/** Where the racer lands. */
export type RacePlacement =
  | { readonly mode: "hook"; readonly point: DispatchRacePoint; readonly occurrence: number }
  | { readonly mode: "after" }
  | { readonly mode: "scheduled"; readonly schedule: StepSchedule }

/** Hook points a first transaction pauses at in a lock race (all after the transaction lock). */
export const LOCK_PAUSE_HOOKS = {
  schedule: ["alarms.afterReadExisting", "alarms.afterReplaceRow", "alarms.afterWriteAttempts", "alarms.beforeReconcile", "alarms.afterReconcile"],
  cancel: ["alarms.afterDeleteRow", "alarms.beforeReconcile", "alarms.afterReconcile"]
} as const

/** A lock race: `first` pauses at `hook` inside its transaction while `second` runs on another connection. */
export interface LockRaceSpec {
  readonly first: MutationSpec
  readonly hook: string
  readonly second: MutationSpec
}

/**
 * The racing call: its kind and target, `current` aiming at the row the batch is at when the racer
 * lands (resolved at execution from the dispatch order the model knows), else a ref of the id space.
 */
export interface RacerSpec {
  readonly kind: "scheduleAlarm" | "scheduleAlarmEarlier" | "cancelAlarm"
  readonly target: number | "current"
  readonly runInMs: number
  readonly repeat: boolean
}

/** A whole race scenario. */
export interface RaceScenario {
  /** `unchangedAttemptBudget` (1..3: with 1 a failure parks). */
  readonly budget: number
  readonly rows: ReadonlyArray<RaceRowSpec>
  readonly handlers: ReadonlyArray<RaceHandlerSpec>
  readonly racer: RacerSpec
  readonly placement: RacePlacement
  readonly lock?: LockRaceSpec
}

/** Repeat interval of repeating rows (above the 1 s floor). */
export const RACE_REPEAT_MS = 60_000

const refIndex = fc.integer({ min: 0, max: VALID_REFS.length - 1 })

const mutationSpec = (ref: fc.Arbitrary<number>): fc.Arbitrary<MutationSpec> =>
  fc.oneof(
    fc.record({ kind: fc.constantFrom("scheduleAlarm" as const, "scheduleAlarmEarlier" as const), ref, runInMs: fc.constantFrom(-2_000, 0, 5_000, 90_000), repeat: fc.boolean() }).map(({ kind, ref: index, runInMs, repeat }): MutationSpec => ({
      kind,
      input: { ...VALID_REFS[index]!, payload: { racer: index }, runInMs, ...(repeat ? { repeatEveryMs: RACE_REPEAT_MS } : {}) }
    })),
    ref.map((index): MutationSpec => ({ kind: "cancelAlarm", ref: VALID_REFS[index]! }))
  )

/** The racer's mutation, aimed at `ref`. */
export const racerMutation = (racer: RacerSpec, ref: number): MutationSpec =>
  racer.kind === "cancelAlarm"
    ? { kind: "cancelAlarm", ref: VALID_REFS[ref]! }
    : { kind: racer.kind, input: { ...VALID_REFS[ref]!, payload: { racer: ref }, runInMs: racer.runInMs, ...(racer.repeat ? { repeatEveryMs: RACE_REPEAT_MS } : {}) } }

const racerSpec: fc.Arbitrary<RacerSpec> = fc.record({
  kind: fc.constantFrom("scheduleAlarm" as const, "scheduleAlarmEarlier" as const, "cancelAlarm" as const),
  target: fc.oneof({ weight: 5, arbitrary: fc.constant("current" as const) }, { weight: 1, arbitrary: refIndex }),
  runInMs: fc.constantFrom(-2_000, 0, 5_000, 90_000),
  repeat: fc.boolean()
})

const placement: fc.Arbitrary<RacePlacement> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ mode: fc.constant("hook" as const), point: fc.constantFrom(...DISPATCH_RACE_POINTS), occurrence: fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: MAX_RACE_ROWS - 1 }) }) }) },
  { weight: 4, arbitrary: fc.record({ mode: fc.constant("scheduled" as const), schedule: stepScheduleArbitrary(ALARMS_RACE_INTERLEAVING) }) }
)

const lockRace: fc.Arbitrary<LockRaceSpec> = fc.record({ first: mutationSpec(refIndex), second: mutationSpec(refIndex), hookPick: fc.nat() }).map(({ first, second, hookPick }) => {
  const hooks = first.kind === "cancelAlarm" ? LOCK_PAUSE_HOOKS.cancel : LOCK_PAUSE_HOOKS.schedule
  return { first, second, hook: hooks[hookPick % hooks.length]! }
})

/** Race scenarios: rows on distinct refs, a scripted handler per row, a racer aimed mostly at the current row. */
export const raceScenarioArbitrary = (): fc.Arbitrary<RaceScenario> =>
  fc.uniqueArray(fc.record({ ref: refIndex, runInMs: fc.integer({ min: -5, max: -1 }).map((s) => s * 1_000), repeat: fc.boolean() }), { minLength: 1, maxLength: MAX_RACE_ROWS, selector: (row) => row.ref })
    .chain((rows) =>
      fc.record({
        budget: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.integer({ min: 2, max: 3 }) }),
        rows: fc.constant(rows),
        handlers: fc.tuple(...rows.map((row) =>
          fc.record({ ref: fc.constant(row.ref), fail: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 2, arbitrary: fc.constant(false) }), onFailure: fc.oneof({ weight: 4, arbitrary: fc.constant("none" as const) }, { weight: 1, arbitrary: fc.constant("skipAndAdvanceRepeat" as const) }) })
        )),
        racer: racerSpec,
        placement,
        lock: fc.option(lockRace, { nil: undefined, freq: 2 })
      })
    )
    .map(({ lock, ...rest }): RaceScenario => (lock === undefined ? rest : { ...rest, lock }))
