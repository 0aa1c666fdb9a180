/**
 * Dispatches one handle mutation (schedule, schedule-earlier, cancel) to its rule implementation.
 */
import { applyCancel } from "./cancel.ts"
import type { Mutation } from "./operations.ts"
import type { ClosureOutcome, Pass, StepRun, TransactionDraft } from "./run.ts"
import { applySchedule } from "./schedule.ts"

/** Applies `mutation` to the draft, in the context of `pass` (null outside a handler). */
export const applyMutation = (
  run: StepRun,
  draft: TransactionDraft,
  pass: Pass | null,
  mutation: Mutation
): ClosureOutcome<unknown> => {
  switch (mutation.kind) {
    case "scheduleAlarm":
      return applySchedule(run, draft, pass, mutation.input, false)
    case "scheduleAlarmEarlier":
      return applySchedule(run, draft, pass, mutation.input, true)
    case "cancelAlarm":
      return applyCancel(run, draft, mutation.ref)
  }
}

/** The storage id a mutation targets, for transaction labels. */
export const mutationTarget = (mutation: Mutation): string =>
  mutation.kind === "cancelAlarm" ? `${mutation.ref.tag}/${mutation.ref.id}` : `${mutation.input.tag}/${mutation.input.id}`
