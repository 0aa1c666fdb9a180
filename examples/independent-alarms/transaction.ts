/**
 * One scheduler transaction (R4-R6): lock, migrate, run the closure with a confined handle,
 * reconcile the platform alarm, commit, then report new parked episodes.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { PlatformAlarm } from "../../adapters/contract.ts"
import { StorageOperationError } from "../../subjects/alarms/api.ts"
import type { AlarmRef, AlarmTransaction, InvalidAlarmRefError, ScheduleAlarmInput, ScheduleAlarmError } from "../../subjects/alarms/api.ts"
import type { DialectSql } from "./dialect.ts"
import { reportParked } from "./reports.ts"
import type { ParkQueue } from "./reports.ts"
import { migrate } from "./schema.ts"
import { storage } from "./store.ts"
import type { Store } from "./store.ts"

/** What a transaction needs from the scheduler. */
export interface TransactionContext {
  readonly sql: SqlClient.SqlClient
  readonly dialect: DialectSql
  readonly store: Store
  readonly platformAlarm: PlatformAlarm
  readonly schedule: (input: ScheduleAlarmInput, earlier: boolean, queue: ParkQueue) => Effect.Effect<void, ScheduleAlarmError>
  readonly cancel: (input: AlarmRef) => Effect.Effect<void, AlarmCancelError>
}

type AlarmCancelError = InvalidAlarmRefError | StorageOperationError

/** Wraps a failure of the caller's closure so it passes the transaction boundary unchanged. */
class ClosureFailure {
  constructor(readonly error: unknown) {}
}

/** R6: the platform alarm becomes the smallest wake, or is deleted when nothing is stored. */
const reconcile = (ctx: TransactionContext): Effect.Effect<void, StorageOperationError> =>
  Effect.gen(function*() {
    const next = yield* ctx.store.nextWake
    if (next === undefined) yield* ctx.platformAlarm.delete.pipe(storage("deleteAlarm"))
    else yield* ctx.platformAlarm.set(next).pipe(storage("setAlarm"))
  }).pipe(Effect.withSpan("DurableObjectAlarm.reconcileAlarm"))

const refused = (operation: string) =>
  Effect.fail(new StorageOperationError({
    operation,
    cause: new Error("alarm handle used outside its transaction closure (another fiber, or after it ended)")
  }))

/** Builds the handle of one closure: usable only on `owner`'s fiber while `isActive()` (R5). */
const makeHandle = (ctx: TransactionContext, queue: ParkQueue, owner: unknown, isActive: () => boolean): AlarmTransaction => {
  const guard = <A, E>(operation: string, effect: () => Effect.Effect<A, E>) =>
    Effect.withFiber<A, E | StorageOperationError>((fiber) =>
      isActive() && fiber === owner ? Effect.suspend(effect) : refused(operation)
    )
  return {
    scheduleAlarm: (input) => guard("alarm.schedule", () => ctx.schedule(input, false, queue)),
    scheduleAlarmEarlier: (input) => guard("alarm.scheduleEarlier", () => ctx.schedule(input, true, queue)),
    cancelAlarm: (input) => guard("alarm.cancel", () => ctx.cancel(input))
  }
}

/** Runs `closure` with a handle, on its own fiber, marking the handle inactive when it exits. */
const runClosure = <A, E, R>(
  ctx: TransactionContext,
  queue: ParkQueue,
  closure: (alarms: AlarmTransaction, queue: ParkQueue) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.withFiber((owner) => {
    let active = true
    const handle = makeHandle(ctx, queue, owner, () => active)
    return Effect.suspend(() => closure(handle, queue)).pipe(Effect.ensuring(Effect.sync(() => {
      active = false
    })))
  })

/**
 * R4: the whole of `closure` plus migration and reconcile in one storage transaction; park reports
 * only after commit. Closure failures pass through unchanged; storage failures (including a refused
 * commit) become `StorageOperationError`. The closure also gets the transaction's park queue.
 */
export const runTransaction = <A, E, R>(
  ctx: TransactionContext,
  closure: (alarms: AlarmTransaction, queue: ParkQueue) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StorageOperationError, R> =>
  Effect.gen(function*() {
    const queue: ParkQueue = new Set()
    const body = Effect.gen(function*() {
      if (ctx.dialect.transactionLock !== undefined) {
        yield* ctx.sql.unsafe(ctx.dialect.transactionLock).pipe(storage("alarm.lock"))
      }
      yield* migrate(ctx.sql, ctx.dialect)
      const value = yield* runClosure(ctx, queue, closure).pipe(Effect.mapError((error) => new ClosureFailure(error)))
      yield* reconcile(ctx)
      return value
    })
    const value = yield* ctx.sql.withTransaction(body).pipe(
      Effect.mapError((error): E | StorageOperationError =>
        error instanceof ClosureFailure
          ? (error.error as E)
          : error instanceof StorageOperationError
          ? error
          : new StorageOperationError({ operation: "transaction", cause: error })
      )
    )
    yield* reportParked(ctx.store, queue)
    return value
  })
