/**
 * The statement-level fault for clocks (`statementFails`, `harness/StatementFault.ts`), drawn after a
 * fault scenario's commands (`harness/StatementFaultDraws.ts`) so every command draw of the property
 * stays as it was:
 * - up to two of the drawn commands that take faults and carry none get one;
 * - a short targeted timeline is appended to every scenario: a read of a completed deferred, a
 *   completion, a schedule or a clock's fire, its transaction failing at one statement (C4: the step's
 *   rows, records and resume commit together or not at all; C7: the first read records its
 *   consumption; C11: a failed fire is retried with backoff). Appended, so a divergence the drawn
 *   commands show stays at the same step.
 */
import * as fc from "fast-check"
import { assignStatementFaults, type DrawnStatementFault, drawnStatementFaultsArbitrary, statementFault, statementOrdinalArbitrary } from "../../harness/StatementFaultDraws.ts"
import type { FaultedCommand, Json } from "../../models/clocks/index.ts"

/** Most commands the targeted timeline appends (a scenario has at most its shape's commands plus these). */
export const STATEMENT_TIMELINE_COMMANDS = 2

/** The statement faults of one scenario: a targeted timeline and faults on drawn commands. */
export interface DrawnStatementFaults {
  readonly timeline: ReadonlyArray<FaultedCommand>
  readonly onCommands: ReadonlyArray<DrawnStatementFault>
}

/** A completed deferred read (twice as often), completed, scheduled or fired (twice as often), with one statement of its transaction failing. */
const targetedTimeline: fc.Arbitrary<ReadonlyArray<FaultedCommand>> = fc.tuple(
  fc.constantFrom("read", "read", "complete", "schedule", "fire", "fire"),
  fc.constantFrom("e1", "e2"),
  fc.constantFrom<Json>(1, { a: 1, b: [1, 2] }),
  statementOrdinalArbitrary
).map(([kind, exec, value, statement]): ReadonlyArray<FaultedCommand> => {
  const fault = statementFault(1, statement)
  switch (kind) {
    case "read":
      return [{ op: "deferredDone", exec, deferred: "sig", value }, { op: "deferredResult", exec, deferred: "sig", fault }]
    case "complete":
      return [{ op: "deferredDone", exec, deferred: "sig", value, fault }, { op: "deferredResult", exec, deferred: "sig" }]
    case "schedule":
      return [{ op: "scheduleClock", exec, clock: "t1", durationMs: 1_000, fault }, { op: "advance", ms: 1_000 }]
    default:
      return [{ op: "scheduleClock", exec, clock: "t1", durationMs: 1_000 }, { op: "advance", ms: 1_000, fault }]
  }
})

/** The statement faults of one scenario, drawn after its commands. */
export const statementFaultsArbitrary: fc.Arbitrary<DrawnStatementFaults> = fc.record({
  timeline: targetedTimeline,
  onCommands: drawnStatementFaultsArbitrary(3, 2)
})

/** The drawn commands with their statement faults, then the targeted timeline. */
export const withStatementFaults = (
  commands: ReadonlyArray<FaultedCommand>,
  drawn: DrawnStatementFaults,
  takesFaults: (command: FaultedCommand) => boolean
): ReadonlyArray<FaultedCommand> => {
  if (drawn.timeline.length > STATEMENT_TIMELINE_COMMANDS) throw new Error("a statement-fault timeline is longer than STATEMENT_TIMELINE_COMMANDS")
  return [...assignStatementFaults(commands, drawn.onCommands, takesFaults), ...drawn.timeline]
}
