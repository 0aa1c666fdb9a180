/**
 * The statement-level fault for clocks (`statementFails`, `harness/StatementFault.ts`), drawn after a
 * fault scenario's commands (`harness/StatementFaultDraws.ts`) so every command draw of the property
 * stays as it was: up to two of the drawn commands that take faults and carry none get one, and a
 * short targeted timeline is appended to every scenario: a read of a completed deferred, a completion,
 * a schedule or a clock's fire, its transaction failing at one statement (C4: the step's rows, records
 * and resume commit together or not at all; C7: the first read records its consumption; C11: a failed
 * fire is retried with backoff).
 */
import * as fc from "fast-check"
import { type DrawnStatementFaults, drawnStatementFaults, statementFault, statementOrdinalArbitrary } from "../../harness/StatementFaultDraws.ts"
import type { FaultedCommand, Json } from "../../models/clocks/index.ts"

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

/** The statement faults of one clocks scenario, drawn after its commands. */
export const clocksStatementFaults: fc.Arbitrary<DrawnStatementFaults<FaultedCommand>> = drawnStatementFaults(targetedTimeline, 3, 2)
