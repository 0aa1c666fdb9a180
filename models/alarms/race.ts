/**
 * An external call racing a `processDueAlarms` pass (a Durable Object serves another request while a
 * handler awaits): one `scheduleAlarm` / `scheduleAlarmEarlier` / `cancelAlarm` from a fiber that is
 * not in the pass (R11 applies: no source), committed in its own transaction at one point between the
 * dispatch's transactions. The points are outside any transaction (the property reaches them through the
 * scheduler's hook points, or, for `beforeHandler` and `afterHandler`, through the harness's own points
 * at the start and end of its scripted handler), counted per point in the order the batch meets them; `afterFailureCommit` is `alarms.afterCommitBeforeReport`
 * of the n-th failure write (between its commit and its park reports, R27). A point the batch never
 * reaches (fewer rows, an aborted batch) means the racer ran after the call returned.
 *
 * What decides the outcome: R22 (a row whose revision changed is skipped), R23 (the acknowledgement is
 * conditional on the revision read at pass start), R25 (the failure reschedule is skipped when the
 * revision changed), R27 (the report re-reads the row after commit), R26 (the final reconcile).
 */
import type { ModelResult } from "./results.ts"
import type { Mutation } from "./operations.ts"
import { applyMutation, mutationTarget } from "./mutation.ts"
import { runTransaction, type StepRun } from "./run.ts"

/** Where, between the dispatch's transactions, the racer's transaction lands. */
export type DispatchRacePoint = "afterSelectDue" | "beforeHandler" | "afterHandler" | "afterAcknowledge" | "beforeFailureWrite" | "afterFailureCommit"

/** Every race point, in the order one row's dispatch meets them. */
export const DISPATCH_RACE_POINTS: ReadonlyArray<DispatchRacePoint> = ["afterSelectDue", "beforeHandler", "afterHandler", "afterAcknowledge", "beforeFailureWrite", "afterFailureCommit"]

/** The racing external call and where it lands: the `occurrence`-th (0-based) time the batch meets `point`. */
export interface DispatchRacer {
  readonly mutation: Mutation
  readonly point: DispatchRacePoint
  readonly occurrence: number
}

/** What the racer did: its result and where it ran (`after`: once the call returned). */
export interface RacerOutcome {
  readonly result: ModelResult
  readonly ranAt: DispatchRacePoint | "after"
  readonly rules: ReadonlyArray<string>
  readonly why: string
}

/** The racer's rules: an external call (R11) whose write the pass's re-reads and conditions see. */
export const RACER_RULES: ReadonlyArray<string> = ["R22", "R23", "R25", "R27", "R26", "R11"]

/** Runs the racer at the dispatch's race points; `at` is called at each point the batch meets. */
export interface RaceInterjection {
  readonly at: (point: DispatchRacePoint) => void
  /** Runs the racer now if it has not run (the call returned), and returns its outcome. */
  readonly finish: () => RacerOutcome
}

/** The interjection of `racer` into the step `run`. */
export const makeRaceInterjection = (run: StepRun, racer: DispatchRacer): RaceInterjection => {
  const hits = new Map<DispatchRacePoint, number>()
  let outcome: RacerOutcome | undefined
  const runRacer = (ranAt: DispatchRacePoint | "after"): RacerOutcome => {
    // An external call: no pass (R11), its own transaction, its own reconcile (R6).
    const closed = runTransaction(run, `racer:${mutationTarget(racer.mutation)}`, null, (draft) => applyMutation(run, draft, null, racer.mutation))
    const result: ModelResult = closed.ok ? { _tag: "Success", value: null } : { _tag: "Failure", error: closed.error }
    return {
      result,
      ranAt,
      rules: closed.ok ? RACER_RULES : closed.rules,
      why: closed.ok ? `the external ${racer.mutation.kind} committed ${ranAt === "after" ? "after the call returned" : `at ${ranAt}`}` : closed.why
    }
  }
  return {
    at: (point) => {
      const seen = hits.get(point) ?? 0
      hits.set(point, seen + 1)
      if (outcome === undefined && point === racer.point && seen === racer.occurrence) outcome = runRacer(point)
    },
    finish: () => {
      if (outcome === undefined) outcome = runRacer("after")
      return outcome
    }
  }
}
