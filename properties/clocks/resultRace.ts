/**
 * Two engine processes reading one deferred at once (models/clocks `resultRace`): C7 asks that a
 * deferred's first read records its consumption once, and that every later read changes nothing. An
 * engine reads the row, sees it unconsumed, then records the consumption in a transaction; a store
 * whose consumption is not conditional on the row still being unconsumed passes every sequential read
 * and fails only when two first reads interleave at different times: the later writer overwrites the
 * first consumption and records a second, conflicting one.
 *
 * The process other than `first` starts first and is held; virtual time moves on by the lag (timers
 * fire as in an advance); `first` reads to completion; then the held read is released. No hook point
 * of the implementation's is needed. Where it is held:
 * - **Before its transaction begins** (`BEFORE_BEGIN_POINT`, the transaction probe's), having made any
 *   read outside a transaction. This catches a store that checks the row outside its transaction.
 * - **Inside its transaction, before its first row write** (`BEFORE_FIRST_WRITE_POINT`, seen through
 *   the statement watch), where the engine has independent connections and row locks (a Postgres
 *   server) and the model says no timer fires during the lag: the held read's own connection is then
 *   needed by nothing else. This also catches a store that checks the row inside its transaction and
 *   then writes without the check. The transaction probe counts the held transaction as held
 *   (`TransactionProbe.hold`), so the lag's settle goes quiet around it. `first` runs into it: when
 *   `first` waits on the held transaction's lock (`pg_blocking_pids`), the held read is released first
 *   and commits first (`heldCommittedFirst`); when `first` has neither finished nor waited on a lock
 *   once the bound of polls ran out, the held read is released too, and either order is accepted
 *   (`orderUnknown`).
 *
 * A read that reaches neither point (it begins no transaction, or writes nothing in one) never pauses:
 * it ran through before time moved on, and the report says so (`held` false), so the step is judged
 * by that order.
 */
import { Effect, type Exit } from "effect"
import type { SqlClient } from "effect/sql"
import { BEFORE_BEGIN_POINT } from "../../harness/BoundaryPoints.ts"
import type { ScriptedHooks } from "../../harness/HookPoints.ts"
import { markTransactions } from "../../harness/MarkedTransactions.ts"
import { finish, startPaused, type StartedOperation } from "../../harness/PausedOperations.ts"
import { runIntoHeld } from "../../harness/PostgresLocks.ts"
import { isWriteStatement } from "../../harness/StatementWatch.ts"
import type { TransactionProbe } from "../../harness/TransactionProbe.ts"
import { type FaultedCommand, otherProcess, type ProcessName } from "../../models/clocks/index.ts"
import type { Json } from "../../models/clocks/types.ts"
import type { OverlapConnections } from "./race.ts"

/** A reading race command. */
export type ResultRaceCommand = Extract<FaultedCommand, { readonly op: "resultRace" }>

/** The operation label of the held read: only it pauses, never a timer or fire of its process. */
export const HELD_READ_LABEL = "clocks.heldRead"

/** The point the held read reaches inside its transaction, before that transaction's first row write. */
export const BEFORE_FIRST_WRITE_POINT = "storage.beforeFirstWrite"

/** What a reading race did. */
export interface ResultRaceReport {
  /** The held read paused (false: it ran through before time moved on). */
  readonly held: boolean
  /** It paused inside its open transaction, after its reads, while `first` ran on its own connection. */
  readonly overlapped: boolean
  /** Overlapped, `first` waited on the held transaction's lock (the server showed it), so the held read committed first. */
  readonly heldCommittedFirst: boolean
  /**
   * Overlapped, `first` had neither finished nor waited on a lock the server shows when the bound of
   * polls ran out (it was slow, or waited on something inside the process), so the held read was
   * released with `first` still running: either may have committed first.
   */
  readonly orderUnknown: boolean
}

/** What the race needs from the session. */
export interface ResultRaceContext {
  readonly hooks: ScriptedHooks
  /** Process `name`'s `deferredResult` of the command's deferred, unlabelled (the race labels the held one). */
  readonly readAs: (name: ProcessName) => Effect.Effect<Json, unknown>
  /** Runs `effect` as process `name`'s (its label, its logger). */
  readonly as: <A, E, R>(name: ProcessName, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Moves virtual time on by the command's lag, firing what falls due, and waits for quiet. */
  readonly lag: Effect.Effect<void, unknown>
  /** Runs `effect` with the transaction probe's point before BEGIN reaching the scripted controller. */
  readonly withBeginPoints: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Present where the held read may be held inside its transaction (see the module comment). */
  readonly overlap: OverlapConnections | undefined
  /** Process `name`'s transaction probe. */
  readonly probeOf: (name: ProcessName) => TransactionProbe
}

/** Both reads' values as `{A, B}`, or the first failure, `first`'s before the held one's. */
const bothOrFailure = (first: ProcessName, firstExit: Exit.Exit<Json, unknown>, heldExit: Exit.Exit<Json, unknown>): Effect.Effect<Json, unknown> =>
  Effect.gen(function*() {
    const firstValue = yield* firstExit
    const heldValue = yield* heldExit
    return first === "A" ? { A: firstValue, B: heldValue } : { A: heldValue, B: firstValue }
  })

/**
 * `read` reaching `BEFORE_FIRST_WRITE_POINT` right before the first row write it runs inside a
 * transaction. No points are set on the boundary, so the point is reached once for the whole read.
 */
const pausingBeforeFirstWrite = (hooks: ScriptedHooks, transactionService: SqlClient.SqlClient["transactionService"], read: Effect.Effect<Json, unknown>) =>
  Effect.suspend(() =>
    markTransactions({
      hooks,
      label: HELD_READ_LABEL,
      transactionService,
      // `text` is read only after `inTransaction`: reading it compiles the statement.
      marks: (statement) => statement.inTransaction && isWriteStatement(statement.text),
      beforeMarkPoint: BEFORE_FIRST_WRITE_POINT
    }).watched(read)
  )

/** The lag, then `first`'s read, then the held read released: both exits. */
const lagThenFirst = (context: ResultRaceContext, first: ProcessName, heldRead: StartedOperation<Json, unknown>) =>
  Effect.gen(function*() {
    yield* context.lag
    const firstExit = yield* Effect.exit(context.as(first, context.readAs(first)))
    return { firstExit, heldExit: yield* finish(context.hooks, heldRead) }
  })

/** The race's end where the held read was not held inside its transaction: the lag, `first`, then the held read. */
const ranInOrder = (context: ResultRaceContext, first: ProcessName, heldRead: StartedOperation<Json, unknown>, report: (done: ResultRaceReport) => void) =>
  Effect.gen(function*() {
    report({ held: heldRead.paused, overlapped: false, heldCommittedFirst: false, orderUnknown: false })
    const { firstExit, heldExit } = yield* lagThenFirst(context, first, heldRead)
    return yield* bothOrFailure(first, firstExit, heldExit)
  })

/**
 * The held read paused inside its transaction: counted as held while the lag runs, then `first` runs
 * into it on its own connection (`runIntoHeld`), and the held read is released once `first` finished
 * or waits on it. A failing poll of the server reads as "not seen waiting".
 */
const overlappedLagThenFirst = (context: ResultRaceContext, overlap: OverlapConnections, first: ProcessName, heldRead: StartedOperation<Json, unknown>) =>
  Effect.gen(function*() {
    const held = otherProcess(first)
    const probe = context.probeOf(held)
    let holding = true
    const stopHolding = Effect.sync(() => {
      if (holding) probe.release()
      holding = false
    })
    probe.hold()
    return yield* Effect.gen(function*() {
      yield* context.lag
      const pids = { waiter: overlap.pids[first], holder: overlap.pids[held] }
      const ran = yield* runIntoHeld(overlap.observer, pids, context.as(first, context.readAs(first)), Effect.andThen(stopHolding, finish(context.hooks, heldRead)), { pollFailureAsNotBlocked: true })
      return { firstExit: ran.waiterExit, heldExit: ran.released, heldCommittedFirst: ran.blocked, orderUnknown: !ran.blocked && !ran.endedBeforeRelease }
    }).pipe(Effect.ensuring(stopHolding))
  })

/**
 * Runs the race of `command` (see the module comment); its result is `{A, B}`, each read's value, or
 * the first failure. `report` receives what the race did before the result is returned.
 */
export const runResultRace = (context: ResultRaceContext, command: ResultRaceCommand, report: (done: ResultRaceReport) => void): Effect.Effect<Json, unknown> =>
  Effect.gen(function*() {
    const held = otherProcess(command.first)
    const overlap = context.overlap
    if (overlap === undefined) {
      const heldRead = yield* context.withBeginPoints(startPaused(context.hooks, HELD_READ_LABEL, BEFORE_BEGIN_POINT, context.readAs(held)))
      return yield* ranInOrder(context, command.first, heldRead, report)
    }
    const transactionService = context.probeOf(held).sql.transactionService
    const heldRead = yield* startPaused(context.hooks, HELD_READ_LABEL, BEFORE_FIRST_WRITE_POINT, pausingBeforeFirstWrite(context.hooks, transactionService, context.readAs(held)))
    // It wrote nothing inside a transaction: it ran through.
    if (!heldRead.paused) return yield* ranInOrder(context, command.first, heldRead, report)
    const { firstExit, heldExit, heldCommittedFirst, orderUnknown } = yield* overlappedLagThenFirst(context, overlap, command.first, heldRead)
    report({ held: true, overlapped: true, heldCommittedFirst, orderUnknown })
    return yield* bothOrFailure(command.first, firstExit, heldExit)
  })
