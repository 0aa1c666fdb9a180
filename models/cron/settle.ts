/**
 * One settling phase of a runner's first claimed tick (N7, N8, the invariants): `claimed` runs
 * settleUnfired, `deliver` runs the delivery with its receipt, `fired` runs settleFired. Each phase is
 * one storage transaction; every settling write is fenced on the claim.
 */
import type { CronOutcome, TransactionRunner } from "./step.ts"
import type { CronModelState, CronOperation, InFlightTick, ModelEntry, ModelRunner } from "./state.ts"
import { deleteFenced, fencedRowIndex, nextOf, postponeFenced, rewriteFenced } from "./ticks.ts"

/**
 * Which branch of N7 (before delivery), the delivery (I2) or N8 (after the receipt) decided a settling
 * phase: `undeclaredDeleted`, `undeclaredReleased`, `staleRewritten`, `deliverEntryCommand`,
 * `deliverRetargeted`, `retargetRewritten` (a receipt exists: no delivery), `fired`, `replayed`,
 * `firedDeleted`, `firedRewritten`.
 */
export type SettleDecision =
  | "undeclaredDeleted"
  | "undeclaredReleased"
  | "staleRewritten"
  | "deliverEntryCommand"
  | "deliverRetargeted"
  | "retargetRewritten"
  | "fired"
  | "replayed"
  | "firedDeleted"
  | "firedRewritten"

interface PhaseBody {
  readonly state: CronModelState
  readonly value: unknown
  readonly rules: ReadonlyArray<string>
  readonly why: string
  readonly covered: ReadonlyArray<string>
  /** Rules deciding the rows, when not the phase's own (see `CronOutcome.rowRules`). */
  readonly rowRules?: ReadonlyArray<string>
  readonly rowWhy?: string
  /** The tick's next phase, or null when it is settled. */
  readonly nextTick: InFlightTick | null
  readonly decision: SettleDecision
}

const fenceRules = (state: CronModelState, tick: InFlightTick, rules: ReadonlyArray<string>): ReadonlyArray<string> =>
  fencedRowIndex(state, tick) < 0 ? ["B5", "N8", ...rules.filter((rule) => rule !== "N8")] : rules

const fenceCovered = (state: CronModelState, tick: InFlightTick): ReadonlyArray<string> => (fencedRowIndex(state, tick) < 0 ? ["CRN-016"] : [])

/** The entry keyed `timerKey` that `runner` declares now (undefined when it declares none, or no schedule). */
export const declaredEntry = (runner: ModelRunner, timerKey: string): ModelEntry | undefined =>
  runner.schedule?.entries.find((candidate) => candidate.key === timerKey)

/** Whether missed instants collapse here (I3): an instant after the scheduled one already passed by `nowMs`. */
export const collapses = (entry: ModelEntry, tick: InFlightTick, nowMs: number): boolean => nextOf(entry, tick.scheduledAtMs) <= nowMs

const settleUnfired = (state: CronModelState, runner: ModelRunner, tick: InFlightTick, nowMs: number): PhaseBody => {
  const entry = declaredEntry(runner, tick.timerKey)
  const stale = runner.schedule !== null && nowMs - tick.scheduledAtMs > runner.schedule.skipMs
  const settled = { value: { phase: "unfired", outcome: "settled" }, nextTick: null }
  if (entry === undefined) {
    return stale
      ? { ...settled, decision: "undeclaredDeleted", state: deleteFenced(state, tick), rules: fenceRules(state, tick, ["N7"]), why: "a stale tick whose entry is not declared here is deleted", covered: ["CRN-007", ...fenceCovered(state, tick)] }
      : { ...settled, decision: "undeclaredReleased", state: postponeFenced(state, tick, nowMs + state.timing.backoffMs), rules: fenceRules(state, tick, ["N7"]), why: "a tick whose entry is not declared here is released with backoff", covered: ["CRN-007", ...fenceCovered(state, tick)] }
  }
  if (stale) {
    return { ...settled, decision: "staleRewritten", state: rewriteFenced(state, tick, entry, nowMs), rules: fenceRules(state, tick, ["I3", "N7"]), why: "a tick older than the skip window is rewritten to the next tick without delivery", covered: ["CRN-007", "CRN-011", ...fenceCovered(state, tick)] }
  }
  const deliver = (decision: SettleDecision, command: string, payload: string, rules: ReadonlyArray<string>, why: string, covered: ReadonlyArray<string>): PhaseBody => ({
    decision, state, value: { phase: "unfired", outcome: "deliver", command, payload }, rules, why, covered,
    nextTick: { ...tick, phase: "deliver", delivery: { command, payload } }
  })
  if (tick.command === entry.command) return deliver("deliverEntryCommand", tick.command, tick.payload, ["N7"], "a fresh tick whose command is the entry's is delivered", ["CRN-007"])
  const firedBefore = state.receipts.some((receipt) => receipt.actorId === tick.actorId && receipt.commandId === tick.intentId)
  if (firedBefore) {
    return {
      ...settled,
      decision: "retargetRewritten",
      state: rewriteFenced(state, tick, entry, nowMs),
      rules: fenceRules(state, tick, ["I4", "N7", "B1"]),
      why: "a retargeted tick with a receipt for its id already fired: it is rewritten without delivering",
      // Not delivering is I4/B1; the rewrite itself is the one after any receipt (N8), collapsing missed instants (I3).
      rowRules: collapses(entry, tick, nowMs) ? ["I3", "N8"] : ["N8"],
      rowWhy: "a retargeted tick with a receipt is rewritten in place to next(now) with a fresh id, as after any receipt",
      covered: ["CRN-007", "CRN-012", ...fenceCovered(state, tick)]
    }
  }
  return deliver("deliverRetargeted", entry.command, entry.payload, ["I4", "N7"], "a retargeted tick without a receipt delivers the entry's current command under the same id", ["CRN-007", "CRN-012"])
}

/**
 * The delivery: a receipt of the tick's id replays instead of running again (I2). Canonically the
 * receipt must also be of the same command (B1's premise: a changed command under an old id runs);
 * with `keyedById` any receipt of the id replays (the Rows sentence read literally).
 */
const deliver = (state: CronModelState, tick: InFlightTick, nowMs: number, keyedById: boolean): PhaseBody => {
  const delivery = tick.delivery!
  const replayed = state.receipts.some((receipt) =>
    receipt.actorId === tick.actorId && receipt.commandId === tick.intentId && (keyedById || receipt.command === delivery.command))
  if (replayed) {
    return { decision: "replayed", state, value: { phase: "deliver", outcome: "replayed" }, rules: ["I2", "N8"], why: "a redelivered command id replays its receipt instead of running again", covered: ["CRN-010"], nextTick: { ...tick, phase: "fired" } }
  }
  return {
    state: {
      ...state,
      fired: [...state.fired, { commandId: tick.intentId, actorId: tick.actorId, timerKey: tick.timerKey, command: delivery.command, payload: delivery.payload, atMs: nowMs }],
      receipts: [...state.receipts, { actorId: tick.actorId, commandId: tick.intentId, command: delivery.command }]
    },
    decision: "fired",
    value: { phase: "deliver", outcome: "fired" },
    rules: ["I2"],
    why: "a delivered command commits its receipt with the handler's writes",
    covered: ["CRN-010"],
    nextTick: { ...tick, phase: "fired" }
  }
}

const settleFired = (state: CronModelState, runner: ModelRunner, tick: InFlightTick, nowMs: number): PhaseBody => {
  const entry = declaredEntry(runner, tick.timerKey)
  const value = { phase: "fired", outcome: "settled" }
  if (entry === undefined) {
    return { decision: "firedDeleted", state: deleteFenced(state, tick), value, rules: fenceRules(state, tick, ["N8"]), why: "a delivered tick whose entry is gone is deleted", covered: ["CRN-008", ...fenceCovered(state, tick)], nextTick: null }
  }
  const collapsed = collapses(entry, tick, nowMs)
  return {
    decision: "firedRewritten",
    state: rewriteFenced(state, tick, entry, nowMs),
    value,
    rules: fenceRules(state, tick, collapsed ? ["I3", "N8"] : ["N8"]),
    why: collapsed ? "the rewrite goes to next(now), so the instants missed since the scheduled one collapse into this delivery" : "a delivered tick is rewritten in place to next(now) with a fresh id",
    covered: ["CRN-008", "CRN-003", ...(collapsed ? ["CRN-011"] : []), ...fenceCovered(state, tick)],
    nextTick: null
  }
}

/** The `settle` operation: one phase of the runner's first claimed tick. */
export const settle = (state: CronModelState, operation: Extract<CronOperation, { kind: "settle" }>, transaction: TransactionRunner): CronOutcome => {
  const runner = state.runners[operation.runner]!
  const tick = runner.inFlight[0]
  if (tick === undefined) return { state, result: { _tag: "Success", value: { phase: "idle" } }, rules: ["N7"], why: "the runner holds no claimed tick", covered: [] }
  const body = tick.phase === "claimed"
    ? settleUnfired(state, runner, tick, operation.atMs)
    : tick.phase === "deliver"
    ? deliver(state, tick, operation.atMs, operation.receiptsKeyedById === true)
    : settleFired(state, runner, tick, operation.atMs)
  // A settling write of a runner whose lease has passed changes nothing: the rows are decided by the fence (B5, N8).
  const fenced = body.nextTick === null && fencedRowIndex(state, tick) < 0
  const rowRules = fenced ? ["B5", "N8"] : body.rowRules
  const rowWhy = fenced ? "the runner's lease has passed, so its settling write is fenced on the claim and changes nothing" : body.rowWhy
  const rest = runner.inFlight.slice(1)
  const inFlight = body.nextTick === null ? rest : [body.nextTick, ...rest]
  const after = { ...body.state, runners: body.state.runners.map((current, index) => (index === operation.runner ? { ...current, inFlight } : current)) }
  const outcome = transaction(state, operation.runner, operation.fault, {
    state: after,
    value: body.value,
    rules: body.rules,
    why: body.why,
    covered: body.covered,
    ...(rowRules === undefined ? {} : { rowRules, rowWhy: rowWhy ?? body.why })
  }, true)
  return { ...outcome, settled: body.decision }
}
