/**
 * CLK-023: each operation of the service runs in the span upstream names it (seed 003,
 * `DeferredPersistence.ts`: `Effect.fn("DeferredPersistence.<operation>")`). The session records the
 * span names a call opened (`harness/SpanRecorder.ts`); the check asks only that upstream's name is
 * among them, so an implementation may open any spans of its own around or inside it. Pure.
 */
import type { Check } from "../../harness/ModelBased.ts"
import { spanNamesCheck } from "../../harness/SpanCheck.ts"
import type { FaultedCommand } from "../../models/clocks/index.ts"
import { CLOCKS_SPAN_RULE } from "../../spec/clocks.ts"

/** Upstream's span of each command that calls one service operation. */
const UPSTREAM_SPANS: Partial<Readonly<Record<FaultedCommand["op"], string>>> = {
  scheduleClock: "DeferredPersistence.scheduleClock",
  scheduleRace: "DeferredPersistence.scheduleClock",
  deferredDone: "DeferredPersistence.deferredDone",
  deferredDoneIfWaiting: "DeferredPersistence.deferredDoneIfWaiting",
  deferredResult: "DeferredPersistence.deferredResult",
  sweep: "DeferredPersistence.sweepDue"
}

/**
 * The span check of one step, or undefined when the command calls no service operation.
 *
 * @example spanCheck({ op: "deferredDone", ... }, ["clocks.deferredDone"]) // a mismatch: expected ["DeferredPersistence.deferredDone"]
 */
export const spanCheck = (command: FaultedCommand, openedSpans: ReadonlyArray<string>): Check | undefined => {
  const expected = UPSTREAM_SPANS[command.op]
  return expected === undefined ? undefined : spanNamesCheck(command.op === "sweep" ? "sweepDue" : command.op === "scheduleRace" ? "scheduleClock" : command.op, [expected], openedSpans, CLOCKS_SPAN_RULE)
}
