/**
 * Targeted generation for the statement-level fault (`statementFails`, `harness/StatementFault.ts`):
 * short runs of calls whose storage transaction has one of its statements fail, each at its own
 * ordinal drawn over that transaction's statements (`statementOrdinals.ts`), so every statement of a
 * schedule, a cancel, a transaction, an acknowledgement, a failure write and the after-batch reconcile
 * (R4, R6, R27) fails in some scenario, about equally often, not only the first few (which, in every
 * scheduler transaction, take the lock and ensure the tables: R3, R4). Only fault scenarios draw it:
 * as a chunk, and as a unit appended after every other draw (`alarmsScenario`).
 */
import * as fc from "fast-check"
import { statementFault } from "../../harness/StatementFaultDraws.ts"
import type { Command, RefSpec } from "./scenario.ts"
import { type FaultedTransaction, ordinalOf, ORDINAL_DRAWS } from "./statementOrdinals.ts"

/** The calls a run breaks: the family decides which transactions a fault may name. */
type FaultedCall = "schedule" | "cancel" | "transaction" | "dispatchSucceeds" | "dispatchFails"

/** The kind of each transaction of a faulted call, in order (a dispatch's second reconciles after the batch). */
const TRANSACTIONS_OF: Readonly<Record<FaultedCall, readonly [FaultedTransaction, ...ReadonlyArray<FaultedTransaction>]>> = {
  schedule: ["schedule"],
  cancel: ["cancel"],
  transaction: ["timelineTransaction"],
  dispatchSucceeds: ["acknowledge", "afterBatch"],
  dispatchFails: ["failureWrite", "afterBatch"]
}

/** Most transactions a faulted call runs. */
const MAX_CALL_TRANSACTIONS = 2

/** One faulted call as drawn: the call, its ref, the transaction the fault names and the ordinal draw (`ordinalOf`). */
export interface FaultedCallDraw {
  readonly call: FaultedCall
  readonly ref: RefSpec
  /** 1 to `MAX_CALL_TRANSACTIONS`; a call that runs fewer transactions faults its last. */
  readonly transaction: number
  readonly ordinalDraw: number
}

/** One to three faulted calls (the draws of the uniform ordinals this replaced, in the same order). */
export const statementFaultDraws: fc.Arbitrary<ReadonlyArray<FaultedCallDraw>> = fc.array(
  fc.tuple(
    fc.constantFrom<FaultedCall>("schedule", "dispatchFails", "dispatchSucceeds", "cancel", "transaction"),
    fc.constantFrom<RefSpec>({ tag: "a", id: "1" }, { tag: "b", id: "2" }),
    fc.integer({ min: 1, max: MAX_CALL_TRANSACTIONS }),
    fc.integer({ min: 0, max: ORDINAL_DRAWS - 1 })
  ).map(([call, ref, transaction, ordinalDraw]): FaultedCallDraw => ({ call, ref, transaction, ordinalDraw })),
  { minLength: 1, maxLength: 3 }
)

/** The commands of one faulted call on `ref`, with what it needs first (a row to cancel, a due row to dispatch). */
const faultedCall = (draw: FaultedCallDraw, ref: RefSpec): ReadonlyArray<Command> => {
  const kinds = TRANSACTIONS_OF[draw.call]
  const transaction = Math.min(draw.transaction, kinds.length)
  const fault = statementFault(transaction, ordinalOf(kinds[transaction - 1]!, draw.ordinalDraw))
  const input = { tag: ref.tag, id: ref.id, payload: null, runInMs: 1_000 }
  switch (draw.call) {
    case "schedule":
      return [{ op: "schedule", input, fault }]
    case "cancel":
      return [{ op: "schedule", input }, { op: "cancel", ref, fault }]
    case "transaction":
      return [{ op: "transaction", mutations: [{ kind: "scheduleAlarm", input }, { kind: "scheduleAlarm", input: { ...input, id: "3" } }], fault }]
    case "dispatchSucceeds":
    case "dispatchFails":
      // Transaction 1 acknowledges or writes the failure; 2 reconciles after the batch.
      return [
        { op: "schedule", input: { ...input, runInMs: 0 } },
        { op: "dispatch", handlers: [{ tag: ref.tag, id: ref.id, script: { outcome: draw.call === "dispatchFails" ? "fail" : "succeed" } }], fault }
      ]
  }
}

/**
 * The commands of `draws`, each call on its drawn ref with the tag `tagOf` gives its id (default: the
 * drawn tag; an appended unit passes a tag the scenario's final typed definitions declare).
 */
export const statementFaultCommands = (draws: ReadonlyArray<FaultedCallDraw>, tagOf: (ref: RefSpec) => string = (ref) => ref.tag): ReadonlyArray<Command> =>
  draws.flatMap((draw) => faultedCall(draw, { tag: tagOf(draw.ref), id: draw.ref.id }))

/** One to three calls, each with one of its statements failing (a fresh ordinal each). */
export const statementFaultTimeline = (): fc.Arbitrary<ReadonlyArray<Command>> => statementFaultDraws.map((draws) => statementFaultCommands(draws))
