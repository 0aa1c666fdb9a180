/**
 * Allowed variants of the clocks engine: the shipped engine with one choice changed that
 * `reference/clocks.md` leaves to the implementation. Every clocks suite must pass each of them
 * (`passes.test.ts`); a verdict that fails one checks something no rule requires.
 */
import { Effect } from "effect"
import { type AllowedVariant, buildAllowedVariant, wrappedAllowedVariant } from "../../../harness/allowedVariant.ts"
import type { ClocksImplementation } from "../../../subjects/clocks/api.ts"
import { makeClocks } from "../../../subjects/clocks/make.ts"
import { type ClockPieces, defaultClockPieces } from "../../../subjects/clocks/pieces.ts"
import * as Records from "../../../subjects/clocks/records.ts"
import { clocksPieceKit } from "../../known-bad/clocks/kit.ts"
import { descendingOrderSql } from "./descendingOrderSql.ts"
import { eventLoopTurn } from "../../../harness/TransactionProbe.ts"
import { shippedClocks } from "../../../subjects/clocks/index.ts"
import { hooklessOf } from "../../support/withoutHookPoints.ts"

/** The key columns the store orders its pending clocks by (`pendingClocks`). */
export const CLOCK_ORDER_COLUMNS = ["flow_name", "execution_id", "clock_name"] as const
/** The key columns the store orders a flow's unconsumed completions by (`completedDeferreds`). */
export const COMPLETION_ORDER_COLUMNS = ["flow_name", "execution_id", "deferred_name"] as const

/** The shipped engine over a client that sends the store's `ORDER BY columns` descending. */
const descendingStore = (name: string, columns: ReadonlyArray<string>): ClocksImplementation => ({
  name,
  make: (environment) => makeClocks(defaultClockPieces)({ ...environment, sql: descendingOrderSql(environment.sql, columns) })
})

/** The sweep wakes a flow's completions in reverse of the store's order. */
export const reversedSweepWakes: ClockPieces["sweepWakes"] = (completions) => [...completions].reverse()

/** First writer wins by reading first: the INSERT is sent only when no completion is stored (no no-op write). */
export const readFirstCompleteDeferredRow: ClockPieces["completeDeferredRow"] = (store, row) =>
  Effect.flatMap(store.deferred(row), (stored) =>
    stored !== undefined
      ? Effect.succeed({ _tag: "Existing" as const, row: stored })
      : defaultClockPieces.completeDeferredRow(store, row))

/** Stores the clock and, when this call inserted it, returns the requested row without reading it back. */
export const unreadInsertedStoreClock: ClockPieces["storeClock"] = (store, row, owner) =>
  Effect.flatMap(store.insertClockIfAbsent(row, owner), (inserted) =>
    inserted ? Effect.succeed(row) : Effect.map(store.clock(row), (stored) => stored ?? row))

/** The CAS of completedAt preceded by a read: a clock already completed gets no (no-op) UPDATE. */
export const readFirstCompleteClock: ClockPieces["completeClock"] = (store, row, completedAtMs) =>
  Effect.flatMap(store.clock(row), (stored) =>
    stored !== undefined && stored.completedAtMs !== null ? Effect.succeed(false) : store.completeClockIfPending(row, completedAtMs))

/** Logs a failed lossy flush at level Error (the shipped engine logs a warning). */
export const errorLoggedFlushLossy: ClockPieces["flushLossy"] = (journal) =>
  journal.flush.pipe(Effect.catchCause((cause) => Effect.logError("clocks: lossy journal flush failed; the durable write stands", cause)))

/** Each effect-boundary record goes to the durable channel with no transaction around it (the journal opens its own). */
export const ownTransactionEffectBoundary: ClockPieces["effectBoundary"] = (runtime, descriptor, effect) =>
  Effect.gen(function*() {
    yield* runtime.emit(Records.effectBoundary(descriptor, "intended"))
    const exit = yield* Effect.exit(effect)
    yield* runtime.emit(Records.effectBoundary(descriptor, exit._tag === "Success" ? "succeeded" : "unknown", exit._tag === "Success" ? exit.value : undefined))
    return yield* exit
  })

/**
 * A `retryFire` that starts every other fire one scheduler turn late (the first armed of each pair
 * waits, the second does not), so of two timers due at the same instant the later-armed one fires
 * first; no virtual time passes. The count is per engine process, so a scenario replays alike.
 */
export const pairReversingRetryFire = (): ClockPieces["retryFire"] => {
  let timersArmed = 0
  return (fire, policy) => {
    const late = timersArmed++ % 2 === 0
    const shipped = defaultClockPieces.retryFire(fire, policy)
    return late ? Effect.andThen(Effect.yieldNow, shipped) : shipped
  }
}

/**
 * Event-loop turns `lateFire` waits before each fire starts: three quarters of the turns a step's settle
 * and the liveness phase's quiet rounds give late work (about 200). Measured 2026-12-05 on sqlite: 150
 * turns pass, 250 fail CLK-020.
 */
export const FIRE_LATENCY_TURNS = 150

/**
 * A `retryFire` that starts every fire `FIRE_LATENCY_TURNS` event-loop turns late, with no virtual time
 * passing (an engine that takes due timers from a queue, or reads before its fire's transaction).
 */
export const lateFire: ClockPieces["retryFire"] = (fire, policy) =>
  Effect.andThen(Effect.forEach(Array.from({ length: FIRE_LATENCY_TURNS }), () => eventLoopTurn, { discard: true }), defaultClockPieces.retryFire(fire, policy))

/** Reads the pending clocks again once when the read fails, and fails the sweep only when both fail. */
export const rereadSweepPending: ClockPieces["sweepPending"] = (store, flowName) => store.pendingClocks(flowName).pipe(Effect.retry({ times: 1 }), Effect.orDie)

/** The shipped engine whose processes each fire same-instant timers with `pairReversingRetryFire`. */
const sameInstantReordered = (name: string): ClocksImplementation => ({
  name,
  make: (environment) => makeClocks({ ...defaultClockPieces, retryFire: pairReversingRetryFire() })(environment)
})

/** The allowed variants of the clocks engine. */
export const clocksAllowedVariants: ReadonlyArray<AllowedVariant<ClocksImplementation>> = [
  wrappedAllowedVariant(
    { name: "pending-clocks-descending", freedom: "C12 re-announces and arms every pending clock and fixes no order: the sweep takes them in descending key order" },
    (name) => descendingStore(name, CLOCK_ORDER_COLUMNS)
  ),
  wrappedAllowedVariant(
    { name: "completions-descending", freedom: "C12 wakes every completed deferred of the flow and fixes no order: the store reads them in descending key order" },
    (name) => descendingStore(name, COMPLETION_ORDER_COLUMNS)
  ),
  buildAllowedVariant(clocksPieceKit, {
    name: "wakes-reversed",
    freedom: "C12 fixes the wake's identity (src:wake:K), not the order of a sweep's wakes: they go in reverse of the store's order",
    pieces: { sweepWakes: reversedSweepWakes }
  }),
  buildAllowedVariant(clocksPieceKit, {
    name: "completion-read-first",
    freedom: "C5 says insert the completion if absent, else the stored row stands; how absence is found is free: read first, INSERT only when absent",
    pieces: { completeDeferredRow: readFirstCompleteDeferredRow }
  }),
  buildAllowedVariant(clocksPieceKit, {
    name: "clock-insert-unread",
    freedom: "C8 returns the stored row when the clock exists; a row this call just inserted is the requested one, so it is not read back",
    pieces: { storeClock: unreadInsertedStoreClock }
  }),
  buildAllowedVariant(clocksPieceKit, {
    name: "cas-read-first",
    freedom: "C10(c) sets completedAt only if still null; reading it first and skipping the no-op UPDATE of a completed clock is the same CAS",
    pieces: { completeClock: readFirstCompleteClock }
  }),
  buildAllowedVariant(clocksPieceKit, {
    name: "flush-failure-logged-as-error",
    freedom: "C3 says a flush failure is logged and ignored, fixing neither the level nor the text: logged at Error",
    pieces: { flushLossy: errorLoggedFlushLossy }
  }),
  buildAllowedVariant(clocksPieceKit, {
    name: "effect-records-own-transaction",
    freedom: "C13 fixes the records and their order around the effect, not a transaction around each: the journal writes each in its own (C2's durable channel)",
    pieces: { effectBoundary: ownTransactionEffectBoundary }
  }),
  wrappedAllowedVariant(
    { name: "same-instant-fires-reordered", freedom: "C9 fires each clock at its dueAt and no rule orders the fires of clocks due at one instant: of each pair armed, the later fires first" },
    sameInstantReordered
  ),
  buildAllowedVariant(clocksPieceKit, {
    name: "fires-started-late",
    freedom: "C9 fires each clock at its dueAt in virtual time; no rule bounds how many event-loop turns later the fire starts",
    pieces: { retryFire: lateFire }
  }),
  buildAllowedVariant(clocksPieceKit, {
    name: "pending-read-retried",
    freedom: "C12 re-arms every pending clock; a sweep whose read of them fails may read again and re-arm them all rather than fail",
    pieces: { sweepPending: rereadSweepPending }
  }),
  wrappedAllowedVariant(
    { name: "without-hook-points", freedom: "hook points are optional refinements (DESIGN.md: an implementation faithful to upstream, without our hook points, must pass); fibers the engine forks inherit the no-op" },
    (name) => hooklessOf(shippedClocks, name)
  )
]
