/**
 * ALM-054: each operation runs in the span upstream names it (seed 000, `DurableObjectAlarm.ts`:
 * `Effect.fn("DurableObjectAlarm.scheduleAlarm")`, `.cancelAlarm`, `.processDueAlarms`; typed
 * definitions `DefinedAlarms.scheduleAlarm`, `.cancelAlarm`). Upstream also names a
 * `DurableObjectAlarm.reconcileAlarm` span, but the seed does not show where the new version calls it,
 * so no check asks for it. The session
 * records the span names a call opened (`harness/SpanRecorder.ts`); only calls that succeeded are
 * checked, since a call that failed may have failed before upstream would have opened its span (a
 * storage fault in the transaction's first statements, say). Pure.
 */
import type { Check } from "../../harness/ModelBased.ts"
import type { Json } from "../../harness/Property.ts"
import { spanNamesCheck } from "../../harness/SpanCheck.ts"
import { ALARMS_SPAN_RULE } from "../../spec/alarms.ts"
import type { Command, MutationSpec } from "./scenario.ts"

/** Upstream's spans of one mutation, typed or not. */
const mutationSpans = (kind: MutationSpec["kind"], typed: boolean): ReadonlyArray<string> =>
  kind === "cancelAlarm"
    ? [...(typed ? ["DefinedAlarms.cancelAlarm"] : []), "DurableObjectAlarm.cancelAlarm"]
    : [...(typed ? ["DefinedAlarms.scheduleAlarm"] : []), "DurableObjectAlarm.scheduleAlarm"]

/** Whether a transaction's mutation uses its handle as it should (no `misuse`). */
const usedAsIs = (mutation: MutationSpec & { readonly misuse?: string }): boolean => mutation.misuse === undefined

/** The spans upstream opens for `command`, or undefined when it names none (status, clock, configuration). */
const upstreamSpans = (command: Command, typed: boolean): ReadonlyArray<string> | undefined => {
  switch (command.op) {
    case "schedule":
      return mutationSpans("scheduleAlarm", typed)
    case "cancel":
      return mutationSpans("cancelAlarm", typed)
    case "transaction":
      // A misused handle (another fiber, after the transaction) is refused before any span (R5).
      return [...new Set(command.mutations.filter(usedAsIs).flatMap((mutation) => mutationSpans(mutation.kind, typed)))]
    case "dispatch":
      return ["DurableObjectAlarm.processDueAlarms"]
    default:
      return undefined
  }
}

/**
 * The span check of one step, or undefined when the command names no span or the call did not
 * succeed.
 *
 * @example alarmSpanCheck({ op: "cancel", ref }, false, { _tag: "Success", value: null }, ["alarms.cancel"]) // a mismatch
 */
export const alarmSpanCheck = (command: Command, typed: boolean, result: Json, openedSpans: ReadonlyArray<string>): Check | undefined => {
  const expected = upstreamSpans(command, typed)
  const succeeded = (result as { readonly _tag?: unknown } | null)?._tag === "Success"
  return expected === undefined || expected.length === 0 || !succeeded ? undefined : spanNamesCheck(command.op, expected, openedSpans, ALARMS_SPAN_RULE)
}
