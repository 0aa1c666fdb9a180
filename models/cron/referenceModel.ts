/**
 * The cron reference model as a `ReferenceModel` (porcupine's five functions): pure, synchronous,
 * plain JSON, no Effect and no I/O. It follows akter's cron ticks in an outbox (seed 001) and the
 * reference page `cron.md` (N1-N8, the four invariants).
 */
import type { ReferenceModel } from "../../harness/ReferenceModel.ts"
import { type CronOutcome, step } from "./step.ts"
import { type CronInitOptions, type CronModelState, type CronOperation, type ModelFired, type ModelReceipt, type ModelRow, sortRows } from "./state.ts"

/** What an implementation is compared on: rows by (actor, key), deliveries in order, receipts. */
export interface CronObservable {
  readonly rows: ReadonlyArray<ModelRow>
  readonly fired: ReadonlyArray<ModelFired>
  readonly receipts: ReadonlyArray<ModelReceipt>
}

const DEFAULT_INIT: CronInitOptions = { runners: 2, timing: { retryWindowMs: 3_600_000, leaseMs: 30_000, backoffMs: 10_000 } }

/** The initial state: no rows, `runners` runners declaring nothing. */
export const initCron = (options: CronInitOptions = DEFAULT_INIT): CronModelState => ({
  timing: options.timing,
  rows: [],
  receipts: [],
  fired: [],
  generations: [],
  runners: Array.from({ length: options.runners }, () => ({ schedule: null, inFlight: [] })),
  uuids: 0
})

const describeOperation = (operation: CronOperation): string => {
  const at = new Date(operation.atMs).toISOString()
  const fault = "fault" in operation && operation.fault !== undefined ? ` (fault ${operation.fault.phase} in transaction ${operation.fault.transaction})` : ""
  switch (operation.kind) {
    case "declare":
      return `runner ${operation.runner} declares ${operation.schedule === null ? "nothing" : `${operation.schedule.entries.length} entries`} at ${at}`
    case "turn":
      return `runner ${operation.runner} runs a ${operation.rejected ? "rejected " : ""}turn of ${operation.actorId} admitted at ${at} lasting ${operation.turnMs} ms${fault}`
    case "bootstrap":
      return `runner ${operation.runner} bootstraps at ${at}${fault}`
    case "bootstrapAll":
      return `every runner bootstraps at once at ${at}`
    case "claim":
      return `runner ${operation.runner} claims due ticks at ${at}${fault}`
    case "settle":
      return `runner ${operation.runner} settles one phase of its first claimed tick at ${at}${fault}`
    case "restart":
      return `runner ${operation.runner} restarts at ${at}`
    case "race":
      return `${operation.ops.map((op) => `runner ${op.runner} ${op.kind === "claim" ? "claims" : "settles a phase"}`).join(" while ")}, overlapping, committing in order ${operation.order.join(", ")} at ${at}`
  }
}

/** The cron reference model. */
export const cronModel: ReferenceModel<CronModelState, CronOperation, CronOutcome, CronInitOptions, CronObservable> = {
  name: "cron-model",
  description: "akter cron ticks in an outbox (seed 001), reference page cron.md N1-N8 and its invariants",
  init: initCron,
  step,
  describeOperation,
  describeState: (state) =>
    [
      ...sortRows(state.rows).map((row) => `${row.actorId} ${row.timerKey}: ${row.command} due ${new Date(row.dueAtMs).toISOString()}`),
      `${state.fired.length} deliveries, ${state.receipts.length} receipts`,
      ...state.runners.map((runner, index) => `runner ${index}: ${runner.schedule === null ? "declares nothing" : `${runner.schedule.entries.length} entries`}, ${runner.inFlight.length} claimed`)
    ].join("\n"),
  observableState: (state) => ({ rows: sortRows(state.rows), fired: state.fired, receipts: state.receipts })
}
