/**
 * Targeted generation for the statement-level fault (`statementFails`, `harness/StatementFault.ts`):
 * short runs of calls whose storage transaction has one of its statements fail, each at its own
 * ordinal across the whole range, so every statement of a schedule, a cancel, a transaction, an
 * acknowledgement and a failure write (R4, R6, R27) fails in some scenario, not only the first few
 * (which, in every scheduler transaction, ensure the tables: R3, R4). Only fault scenarios draw it.
 */
import * as fc from "fast-check"
import { statementFault } from "../../harness/StatementFaultDraws.ts"
import type { Command, RefSpec } from "./scenario.ts"

/**
 * Highest statement a `statementFails` fault names. Every scheduler transaction first ensures the
 * tables (R3, R4), so its own statements come late: the shipped scheduler runs 13 in a standalone
 * schedule, the reconcile's read 12th. A transaction that runs fewer is refused at COMMIT instead.
 */
export const ALARM_MAX_STATEMENT = 16

/** The calls a run breaks: the family decides which transactions a fault may name. */
type FaultedCall = "schedule" | "cancel" | "transaction" | "dispatchSucceeds" | "dispatchFails"

/** The commands of one faulted call on `ref`, with what it needs first (a row to cancel, a due row to dispatch). */
const faultedCall = (call: FaultedCall, ref: RefSpec, transaction: number, statement: number): ReadonlyArray<Command> => {
  const input = { tag: ref.tag, id: ref.id, payload: null, runInMs: 1_000 }
  switch (call) {
    case "schedule":
      return [{ op: "schedule", input, fault: statementFault(1, statement) }]
    case "cancel":
      return [{ op: "schedule", input }, { op: "cancel", ref, fault: statementFault(1, statement) }]
    case "transaction":
      return [{ op: "transaction", mutations: [{ kind: "scheduleAlarm", input }, { kind: "scheduleAlarm", input: { ...input, id: "3" } }], fault: statementFault(1, statement) }]
    case "dispatchSucceeds":
    case "dispatchFails":
      // Transaction 1 acknowledges or writes the failure; 2 reconciles after the batch.
      return [
        { op: "schedule", input: { ...input, runInMs: 0 } },
        { op: "dispatch", handlers: [{ tag: ref.tag, id: ref.id, script: { outcome: call === "dispatchFails" ? "fail" : "succeed" } }], fault: statementFault(transaction, statement) }
      ]
  }
}

/** One to three calls, each with one of its statements failing (a fresh ordinal each). */
export const statementFaultTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.array(
    fc.tuple(
      fc.constantFrom<FaultedCall>("schedule", "dispatchFails", "dispatchSucceeds", "cancel", "transaction"),
      fc.constantFrom<RefSpec>({ tag: "a", id: "1" }, { tag: "b", id: "2" }),
      fc.integer({ min: 1, max: 2 }),
      fc.integer({ min: 1, max: ALARM_MAX_STATEMENT })
    ),
    { minLength: 1, maxLength: 3 }
  ).map((calls) => calls.flatMap(([call, ref, transaction, statement]) => faultedCall(call, ref, transaction, statement)))
