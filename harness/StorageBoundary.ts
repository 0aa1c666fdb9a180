/**
 * The storage boundary the harness owns. Every implementation gets its `SqlClient` and platform alarm
 * from here, so the harness sees every outermost transaction begin and commit, and injects storage
 * faults there (`Faults.ts`) without any help from the implementation: no hook point, no error value
 * the implementation could recognise.
 *
 * A crash ends the process. When a crash point is reached, the fiber that reached it stops there
 * (interruptibly), and `run` — which the harness wraps around every operation — interrupts the whole
 * operation from outside. An interrupted Effect fiber cannot catch that as an error or defect
 * (`Effect.exit` and `catchCause` do not see an external interruption), so no implementation can go on
 * with its flow after a crash; an open transaction rolls back, as a dead process's would. Work an
 * implementation deliberately runs uninterruptibly past the crash point does land and is compared with
 * the model, which predicts that nothing happens after a crash. The harness then rebuilds the service
 * from storage.
 *
 * A lost reply lets the commit happen and then fails the transaction with a connection error, which
 * the implementation sees and handles like any storage failure. A refused commit lets the body run to
 * its end, then fails the transaction with a serialization failure instead of committing it, so it
 * rolls back (platform alarm included) and the implementation goes on with the error in hand. A failed
 * statement (`StatementFault.ts`) fails one statement of the transaction with the backend's meaning:
 * on Postgres it aborts the transaction, on SQLite it undoes that statement alone and the transaction
 * goes on; a transaction that runs fewer statements than the fault names is refused at COMMIT instead.
 *
 * A write the implementation runs outside any transaction is a transaction of one statement
 * (`AutoCommittedWrites.ts`): it is counted among the outermost transactions, reaches the point before
 * a transaction begins, and meets every fault: before it runs (`inside`, `commitRefused`, a failed
 * statement) nothing lands; after it ran (`afterCommit`, `lostReply`) it landed. A subject whose model
 * gives such a write no meaning yet turns this off (`BoundaryOptions`), and says why.
 */
import { Context, Deferred, Effect, Exit, Fiber, Option } from "effect"
import type { SqlClient } from "effect/sql"
import { SerializationError, SqlError, UnknownError } from "effect/sql/SqlError"
import type { PlatformAlarm } from "../adapters/contract.ts"
import type { StorageFault } from "./Faults.ts"
import { type AutoCommittedWrite, autoCommittedWriteTransformer } from "./AutoCommittedWrites.ts"
import { keepRolledBackValue, type RolledBack, rollBackWith } from "./RolledBackTransaction.ts"
import { failedStatementError, readFailedError, statementFailureMeaningOf, type StatementFaultWatch, statementFaultTransformer, withStatementFaults } from "./StatementFault.ts"

/** A crash the boundary performed in the current operation. */
export interface StorageCrash {
  readonly transaction: number
  readonly phase: "inside" | "afterCommit"
}

/** How one operation ended under the boundary. */
export type BoundedOutcome<A, E> =
  | { readonly _tag: "Completed"; readonly exit: Exit.Exit<A, E> }
  | { readonly _tag: "Crashed"; readonly crash: StorageCrash }

/**
 * How a `statementFails` fault ended: the named statement failed (`statementFailed`), or it failed
 * and the body went on past it to its end and committed, as a transaction still open after a failed
 * statement may (SQLite's meaning: `statementFailedThenCommitted`), the transaction ran fewer
 * statements so its COMMIT was refused instead (`commitRefusedInstead`), or its body failed on its own
 * before the named statement (`bodyFailedFirst`).
 */
export type StatementFaultOutcome = "statementFailed" | "statementFailedThenCommitted" | "commitRefusedInstead" | "bodyFailedFirst"

/** Bound on outermost transactions one operation may start before the boundary calls it a runaway. */
export const MAX_TRANSACTIONS_PER_OPERATION = 10_000

/** The harness side of the boundary for one run. */
export interface StorageBoundary {
  /** The client to hand to the implementation: the adapter's, with outermost transactions observed. */
  readonly sql: SqlClient.SqlClient
  /**
   * `effect` with its writes outside any transaction counted, paused before and faulted as transactions,
   * as `run` does for its operation: for an operation a race runs without `run` (`withBoundaryPoints`).
   */
  readonly withAutoCommittedWrites: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The platform alarm to hand to the implementation: the adapter's, failing when a fault says so. */
  readonly platformAlarm: PlatformAlarm
  /** Starts an operation: resets the transaction count and arms `fault` (or nothing). */
  readonly arm: (fault: StorageFault | undefined) => void
  /** Runs one operation of the implementation; a crash point reached inside it ends it from outside. */
  readonly run: <A, E, R>(operation: Effect.Effect<A, E, R>) => Effect.Effect<BoundedOutcome<A, E>, never, R>
  /** The crash performed since the last `arm`, if any. */
  readonly crashed: () => StorageCrash | null
  /** Outermost storage transactions started since the last `arm`. */
  readonly transactionsStarted: () => number
  /** Outermost storage transactions committed since the last `arm` (a write outside one counts once it is sent). */
  readonly transactionsCommitted: () => number
  /** How the armed `statementFails` fault ended, once its transaction ended (null before, or for other faults). */
  readonly statementFaultOutcome: () => StatementFaultOutcome | null
  /** Reads run outside any transaction since the last `arm` (counted for `readFails`), and whether one was failed. */
  readonly readsOutside: () => { readonly started: number; readonly failed: boolean }
  /**
   * Sets the scheduling points the boundary places itself around every outermost transaction (none:
   * `undefined`). A race can pause an implementation there with no hook point of the implementation's,
   * which cannot skip them (`TransactionPoints`).
   */
  readonly setTransactionPoints: (points: TransactionPoints | undefined) => void
}

/**
 * Effects an outermost transaction runs at the boundary's own scheduling points, in the fiber that runs
 * it (so under that operation's label). Neither changes the fault ordinals or what commits.
 */
export interface TransactionPoints {
  /** Just before the transaction begins (before it is counted): between an operation's transactions. */
  readonly beforeBegin?: Effect.Effect<void>
  /** First thing inside the transaction, after BEGIN and before its body: it is open and has run nothing yet. */
  readonly afterBegin?: Effect.Effect<void>
  /** After its body succeeded, before COMMIT: the transaction holds every lock its body took. */
  readonly beforeCommit?: Effect.Effect<void>
}

const lostReplyError = () =>
  new SqlError({
    reason: new UnknownError({
      cause: new Error("connection reset before the COMMIT reply arrived"),
      message: "the connection was lost after COMMIT was sent; the outcome is unknown to the caller",
      operation: "commit"
    })
  })

/** What a database answers when it refuses a COMMIT under contention (Postgres SQLSTATE 40001). */
const commitRefusedError = () =>
  new SqlError({
    reason: new SerializationError({
      cause: new Error("could not serialize access due to concurrent update (SQLSTATE 40001)"),
      message: "the database refused the COMMIT: a serialization failure; the transaction rolled back",
      operation: "commit"
    })
  })

const platformAlarmError = (operation: string) =>
  new SqlError({
    reason: new UnknownError({
      cause: new Error("platform alarm write refused"),
      message: `the platform alarm ${operation} failed`,
      operation: `platformAlarm.${operation}`
    })
  })


/**
 * Per client, the boundary whose operation the current fiber runs (the innermost, when two over one
 * client nest): its statements on that client are the ones it counts. Boundaries over other clients
 * (a racer's connection) nest without hiding each other.
 */
const ActiveBoundaries = Context.Reference<ReadonlyMap<SqlClient.SqlClient, object>>("durable-conformance/ActiveBoundaries", { defaultValue: () => new Map() })

/** The defect of an operation past `MAX_TRANSACTIONS_PER_OPERATION` (a runaway loop, not a storage failure). */
const runaway = (): Effect.Effect<never> =>
  Effect.die(new Error(`an operation started more than ${MAX_TRANSACTIONS_PER_OPERATION} storage transactions`))

/** Mutable bookkeeping of one operation. */
interface OperationState {
  fault: StorageFault | undefined
  started: number
  committed: number
  crash: StorageCrash | null
  crashFiber: Fiber.Fiber<unknown, unknown> | null
  /** The outcome of the running operation: completed by its fiber ending or by a crash point, whichever is first. */
  signal: Deferred.Deferred<BoundedOutcome<unknown, unknown>> | null
  /** The transaction a `statementFails` fault is armed for, while it runs. */
  watch: StatementFaultWatch | null
  statementFaultOutcome: StatementFaultOutcome | null
  /** The boundary's scheduling points (`setTransactionPoints`). */
  points: TransactionPoints | undefined
  /** Reads outside any transaction, and whether the armed `readFails` fault failed one. */
  reads: number
  readFailed: boolean
}

/** Options of `makeStorageBoundary`. */
export interface BoundaryOptions {
  /**
   * Whether a write outside any transaction counts, pauses and is faulted as a transaction of one
   * statement (`AutoCommittedWrites.ts`). Default true. Off, such a write passes unseen: no fault can
   * strike it, so a subject turns it off only with a recorded reason. Reads outside a transaction are
   * seen either way (`readFails`).
   */
  readonly autoCommittedWrites?: boolean
}

/**
 * Builds the boundary over the adapter's client and platform alarm. One boundary serves a whole run,
 * including the services rebuilt after crashes.
 *
 * @example
 * ```ts
 * const boundary = makeStorageBoundary(database.sql, database.platformAlarm)
 * boundary.arm({ transaction: 2, phase: "inside" })
 * const outcome = yield* boundary.run(scheduler.processDueAlarms(handle))
 * ```
 */
export const makeStorageBoundary = (inner: SqlClient.SqlClient, platformAlarm: PlatformAlarm, options: BoundaryOptions = {}): StorageBoundary => {
  const failureMeaning = statementFailureMeaningOf(inner)
  const state: OperationState = {
    fault: undefined,
    started: 0,
    committed: 0,
    crash: null,
    crashFiber: null,
    signal: null,
    watch: null,
    statementFaultOutcome: null,
    points: undefined,
    reads: 0,
    readFailed: false
  }

  /** Stops the calling fiber for good and tells `run` to interrupt the operation. */
  const crashHere = (transaction: number, phase: StorageCrash["phase"]): Effect.Effect<never> =>
    Effect.withFiber((fiber) => {
      if (state.crash === null) {
        state.crash = { transaction, phase }
        state.crashFiber = fiber
        if (state.signal !== null) Deferred.doneUnsafe(state.signal, Exit.succeed({ _tag: "Crashed", crash: state.crash }))
      }
      return Effect.interruptible(Effect.never)
    })

  const faultOf = (ordinal: number) => state.fault !== undefined && state.fault.transaction === ordinal ? state.fault.phase : undefined

  /**
   * Arms the statement fault for the transaction `body` runs in, and decides its end: a failed
   * statement the body swallowed rolls back silently under Postgres's meaning (its COMMIT of an aborted
   * transaction), the body's value handed to the caller (`RolledBackTransaction.ts`), and commits under
   * SQLite's; a body that ran fewer statements than the fault names is refused at COMMIT; a body's own
   * error stands.
   */
  const watchStatements = <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError | RolledBack<A>, R> =>
    Effect.flatMap(Effect.serviceOption(inner.transactionService), (level) => {
      const watch: StatementFaultWatch = {
        connection: Option.isSome(level) ? level.value[0] : undefined,
        statement: Math.max(1, state.fault?.statement ?? 1),
        meaning: failureMeaning,
        statementsRun: 0,
        struck: false
      }
      state.watch = watch
      // Every statement the body runs, on any fiber that inherits the transaction, passes the transformer.
      const watched = withStatementFaults(body, (outer) => statementFaultTransformer(inner.transactionService, () => state.watch, outer))
      return Effect.matchCauseEffect(watched, {
        onFailure: (cause) => {
          state.statementFaultOutcome = watch.struck ? "statementFailed" : "bodyFailedFirst"
          return Effect.failCause(cause)
        },
        onSuccess: (value): Effect.Effect<A, SqlError | RolledBack<A>> => {
          if (watch.struck && watch.meaning === "statementOnly") {
            state.statementFaultOutcome = "statementFailedThenCommitted"
            return Effect.succeed(value)
          }
          state.statementFaultOutcome = watch.struck ? "statementFailed" : "commitRefusedInstead"
          return watch.struck ? rollBackWith(value) : Effect.fail(commitRefusedError())
        }
      })
    })

  const outermost = <A, E, R>(unpaused: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.suspend(() => {
      const afterBegin = state.points?.afterBegin
      const beforeCommit = state.points?.beforeCommit
      const begun = afterBegin === undefined ? unpaused : Effect.andThen(afterBegin, unpaused)
      const body = beforeCommit === undefined ? begun : Effect.tap(begun, () => beforeCommit)
      if (state.started >= MAX_TRANSACTIONS_PER_OPERATION) return runaway()
      const ordinal = ++state.started
      const fault = faultOf(ordinal)
      // Inside: whatever the body did, the process dies before COMMIT, so the transaction rolls back.
      // Refused: the body ran to its end, then COMMIT fails instead, so the transaction rolls back; a
      // body that failed by itself never reaches COMMIT, and its own error stands.
      const guarded: Effect.Effect<A, E | SqlError | RolledBack<A>, R> = fault === "inside"
        ? Effect.flatMap(Effect.exit(body), () => crashHere(ordinal, "inside"))
        : fault === "commitRefused"
        ? Effect.flatMap(body, () => Effect.fail(commitRefusedError()))
        : fault === "statementFails"
        ? watchStatements(body)
        : body
      const committed = inner.withTransaction(guarded).pipe(
        Effect.tap(() => {
          state.committed++
          if (fault === "afterCommit") return crashHere(ordinal, "afterCommit")
          if (fault === "lostReply") return Effect.fail(lostReplyError())
          return Effect.void
        })
      )
      return keepRolledBackValue(committed).pipe(
        Effect.ensuring(Effect.sync(() => {
          state.watch = null
        }))
      ) as Effect.Effect<A, E | SqlError, R>
    })

  /** Counts and faults a write outside any transaction as a transaction of one statement (see the module doc). */
  const autoCommitted: AutoCommittedWrite = (execute) =>
    Effect.andThen(
      Effect.suspend(() => state.points?.beforeBegin ?? Effect.void),
      Effect.suspend(() => {
        if (state.started >= MAX_TRANSACTIONS_PER_OPERATION) return runaway()
        const ordinal = ++state.started
        const landed = Effect.sync(() => void state.committed++)
        switch (faultOf(ordinal)) {
          case "inside":
            return crashHere(ordinal, "inside")
          case "commitRefused":
            return Effect.fail(commitRefusedError())
          case "statementFails": {
            // Its one statement is the first; a fault naming a later one refuses its COMMIT instead.
            const first = (state.fault?.statement ?? 1) <= 1
            state.statementFaultOutcome = first ? "statementFailed" : "commitRefusedInstead"
            return Effect.fail(first ? failedStatementError(failureMeaning) : commitRefusedError())
          }
          case "afterCommit":
            return execute.pipe(Effect.andThen(landed), Effect.andThen(crashHere(ordinal, "afterCommit")))
          case "lostReply":
            return execute.pipe(Effect.andThen(landed), Effect.andThen(Effect.fail(lostReplyError())))
          default:
            return landed
        }
      })
    )

  /** A write outside any transaction the subject's model gives no meaning: it runs as usual, not counted, paused or faulted. */
  const passUnseen: AutoCommittedWrite = () => Effect.void

  /** Counts a read outside any transaction and fails the one an armed `readFails` fault names, before it runs. */
  const readOutside: Effect.Effect<void, SqlError> = Effect.suspend(() => {
    if (state.fault?.phase !== "readFails") return Effect.void
    state.reads++
    if (state.reads !== Math.max(1, state.fault.statement ?? 1)) return Effect.void
    state.readFailed = true
    return Effect.fail(readFailedError())
  })

  const withTransaction = <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(Effect.serviceOption(inner.transactionService), (open) =>
      // A nested call is a savepoint of the open transaction: not a transaction of its own.
      Option.isSome(open) ? inner.withTransaction(body) : Effect.andThen(Effect.suspend(() => state.points?.beforeBegin ?? Effect.void), outermost(body)))

  const sql: SqlClient.SqlClient = new Proxy(inner, {
    get(target, property) {
      if (property === "withTransaction") return withTransaction
      if (property === "safe") return sql
      return Reflect.get(target, property, target)
    }
  })

  const alarmWrite = <A>(operation: string, write: Effect.Effect<A, SqlError>): Effect.Effect<A, SqlError> =>
    Effect.suspend(() => (faultOf(state.started) === "setAlarmFails" ? Effect.fail(platformAlarmError(operation)) : write))

  /** `operation` with its auto-committed writes handed to `autoCommitted` (unless turned off) and its reads outside a transaction to `readOutside`; `token` tells its statements from a nested run's. */
  const withAutoCommittedWrites = <A, E, R>(operation: Effect.Effect<A, E, R>, token: object): Effect.Effect<A, E, R> =>
    withStatementFaults(
      Effect.withFiber((fiber) => Effect.provideService(operation, ActiveBoundaries, new Map(fiber.getRef(ActiveBoundaries)).set(inner, token))),
      (outer) =>
        autoCommittedWriteTransformer({
          transactionService: inner.transactionService,
          owns: (fiber, client) => client === inner && fiber.getRef(ActiveBoundaries).get(inner) === token,
          write: options.autoCommittedWrites === false ? passUnseen : autoCommitted,
          read: readOutside,
          // With writes unseen, only an armed read fault needs a statement told apart.
          ...(options.autoCommittedWrites === false ? { sees: () => state.fault?.phase === "readFails" } : {})
        }, outer)
    )

  // One fiber per operation: its end and a crash point both complete `signal`, and the first wins.
  const run = <A, E, R>(operation: Effect.Effect<A, E, R>): Effect.Effect<BoundedOutcome<A, E>, never, R> =>
    Effect.gen(function*() {
      const signal = yield* Deferred.make<BoundedOutcome<A, E>>()
      state.signal = signal as Deferred.Deferred<BoundedOutcome<unknown, unknown>>
      const fiber = yield* Effect.forkChild(withAutoCommittedWrites(operation, signal))
      const stopObserving = fiber.addObserver((exit) => void Deferred.doneUnsafe(signal, Exit.succeed({ _tag: "Completed", exit })))
      const outcome = yield* Deferred.await(signal)
      stopObserving()
      state.signal = null
      if (outcome._tag === "Crashed") {
        yield* Fiber.interrupt(fiber)
        // The fiber that reached the crash point may be one the operation detached.
        if (state.crashFiber !== null && state.crashFiber !== fiber) yield* Fiber.interrupt(state.crashFiber)
      }
      return outcome
    })

  return {
    sql,
    withAutoCommittedWrites: (effect) => Effect.suspend(() => withAutoCommittedWrites(effect, {})),
    platformAlarm: {
      get: platformAlarm.get,
      set: (epochMs) => alarmWrite("set", platformAlarm.set(epochMs)),
      delete: alarmWrite("delete", platformAlarm.delete)
    },
    arm: (fault) => {
      state.fault = fault
      state.started = 0
      state.committed = 0
      state.crash = null
      state.crashFiber = null
      state.watch = null
      state.statementFaultOutcome = null
      state.reads = 0
      state.readFailed = false
    },
    run,
    crashed: () => state.crash,
    transactionsStarted: () => state.started,
    transactionsCommitted: () => state.committed,
    statementFaultOutcome: () => state.statementFaultOutcome,
    readsOutside: () => ({ started: state.reads, failed: state.readFailed }),
    setTransactionPoints: (points) => {
      state.points = points
    }
  }
}
