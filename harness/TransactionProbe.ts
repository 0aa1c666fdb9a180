/**
 * A transaction-level activity probe over an `effect/sql` client, and a fast wait for quiet.
 *
 * Subjects with live timers (clocks; alarms' platform alarm delivery) do work in fibers the harness
 * does not own: a timer woken by the virtual clock starts a storage transaction and, on engines with
 * real I/O, finishes it later. `makeTransactionProbe` wraps the client the harness hands to the
 * implementation (over the storage boundary) and counts outermost transactions in flight and started;
 * its `probe` has the shape `Quiescence.ts` watches (`busy`, `activity`). `settleTransactions` waits
 * until every probe is idle and nothing new started across one event-loop turn: it waits on the
 * in-flight counter (no polling while a transaction runs) and uses `setImmediate` turns where the host
 * has them, so a step on an in-process engine costs microseconds, not timer ticks. It never decides an
 * order, and it gives up after a bounded number of turns (the caller reports a runaway). A transaction
 * the harness holds paused inside (`hold`, a race's) is left out of quiet until it is released.
 *
 * @example
 * ```ts
 * const tap = makeTransactionProbe(boundary.sql)
 * const service = yield* implementation.make({ sql: tap.sql, ... })
 * yield* TestClock.adjust(1_000)
 * const settled = yield* settleTransactions([tap])   // { quiet: true, turns: 1 }
 * ```
 */
import { Deferred, Effect, Exit, Option } from "effect"
import type { SqlClient } from "effect/sql"
import type { ActivityProbe } from "./Quiescence.ts"

/** Counts the transactions a client runs. */
export interface TransactionProbe {
  /** The client to hand over: the wrapped one, with every outermost `withTransaction` counted. */
  readonly sql: SqlClient.SqlClient
  /** The probe in the shape `Quiescence.awaitQuiet` watches. */
  readonly probe: ActivityProbe
  /** Outermost transactions currently running, less the ones the harness holds (`hold`). */
  readonly inFlight: () => number
  /** Outermost transactions started since the probe was made. */
  readonly started: () => number
  /** Completes when no transaction is in flight but the held ones (at once when idle). */
  readonly idle: Effect.Effect<void>
  /**
   * Counts one transaction in flight as held by the harness (paused at a point inside it until the
   * harness releases it), so quiet excludes it and the rest of the system can go quiet around it.
   * `release` undoes one `hold`, before the harness lets the transaction go on.
   */
  readonly hold: () => void
  /** Undoes one `hold`. */
  readonly release: () => void
}

/**
 * Wraps `inner`, counting outermost transactions (nested ones are savepoints of a counted one).
 * `beforeBegin`, when given, returns the point each outermost transaction reaches before it is counted
 * and begins: a race may hold a transaction there (`BoundaryPoints.BEFORE_BEGIN_POINT`) without the
 * probe counting it in flight, so the rest of the system can still go quiet.
 */
export const makeTransactionProbe = (inner: SqlClient.SqlClient, beforeBegin: () => Effect.Effect<void> = () => Effect.void): TransactionProbe => {
  let inFlight = 0
  let held = 0
  let started = 0
  let waiters: Array<Deferred.Deferred<void>> = []
  /** In flight and not held by the harness. */
  const running = () => inFlight - held
  const wakeIfIdle = () => {
    if (running() > 0) return
    const ready = waiters
    waiters = []
    for (const waiter of ready) Deferred.doneUnsafe(waiter, Exit.void)
  }
  const finished = Effect.sync(() => {
    inFlight--
    wakeIfIdle()
  })
  const hold = () => {
    if (held >= inFlight) throw new Error(`TransactionProbe.hold: ${held} of ${inFlight} transactions in flight are held already; hold only a transaction paused inside`)
    held++
    wakeIfIdle()
  }
  const release = () => {
    if (held === 0) throw new Error("TransactionProbe.release without a hold")
    held--
  }
  const withTransaction = <A, E, R>(body: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.serviceOption(inner.transactionService), (open) =>
      Option.isSome(open)
        ? inner.withTransaction(body)
        : Effect.andThen(Effect.suspend(beforeBegin), Effect.suspend(() => {
          inFlight++
          started++
          return inner.withTransaction(body).pipe(Effect.ensuring(finished))
        })))
  const sql: SqlClient.SqlClient = new Proxy(inner, {
    get(target, property) {
      if (property === "withTransaction") return withTransaction
      if (property === "safe") return sql
      return Reflect.get(target, property, target)
    }
  })
  const idle = Effect.suspend(() => {
    if (running() === 0) return Effect.void
    const waiter = Deferred.makeUnsafe<void>()
    waiters.push(waiter)
    return Deferred.await(waiter)
  })
  return { sql, probe: { busy: () => running() > 0, activity: () => started }, inFlight: running, started: () => started, idle, hold, release }
}

/** Bound on event-loop turns one `settleTransactions` waits (a busy loop in an implementation ends it). */
export const MAX_SETTLE_TURNS = 200

/** One turn of the host's event loop (`setImmediate` where it exists), so I/O callbacks and fibers run. */
export const eventLoopTurn: Effect.Effect<void> = Effect.callback<void>((resume) => {
  const immediate = (globalThis as { readonly setImmediate?: (callback: () => void) => unknown }).setImmediate
  if (immediate !== undefined) immediate(() => resume(Effect.void))
  else setTimeout(() => resume(Effect.void), 0)
})

/** How `settleTransactions` ended. */
export interface Settled {
  /** True when every probe went idle and stayed so across a turn; false when the turn bound ran out. */
  readonly quiet: boolean
  readonly turns: number
}

/** Waits until every probe is idle and no transaction started across one turn, at most `maxTurns` turns. */
export const settleTransactions = (probes: ReadonlyArray<TransactionProbe>, maxTurns: number = MAX_SETTLE_TURNS): Effect.Effect<Settled> =>
  Effect.gen(function*() {
    const startedNow = () => probes.reduce((sum, probe) => sum + probe.started(), 0)
    for (let turn = 1; turn <= maxTurns; turn++) {
      for (const probe of probes) yield* probe.idle
      const before = startedNow()
      yield* Effect.yieldNow
      yield* eventLoopTurn
      if (startedNow() === before && probes.every((probe) => probe.inFlight() === 0)) return { quiet: true, turns: turn }
    }
    return { quiet: false, turns: maxTurns }
  })

/**
 * Settles, and goes on settling until `reached()` holds, at most `maxTurns` more turns: for work the
 * model says is due but an implementation may start several turns late (a fire taken from a queue, a
 * read before its transaction), so latency in turns is not mistaken for work not done. Past the bound
 * it returns as `settleTransactions` would, and the comparison with the model decides.
 */
export const settleUntil = (probes: ReadonlyArray<TransactionProbe>, reached: () => boolean, maxTurns: number = MAX_SETTLE_TURNS): Effect.Effect<Settled> =>
  Effect.gen(function*() {
    let settled = yield* settleTransactions(probes, maxTurns)
    for (let turn = 1; turn <= maxTurns && !reached(); turn++) {
      yield* eventLoopTurn
      settled = yield* settleTransactions(probes, maxTurns)
    }
    return settled
  })
