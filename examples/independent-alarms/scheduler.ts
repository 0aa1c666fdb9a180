/**
 * Assembles the `AlarmScheduler` over one database: standalone calls are one-mutation transactions
 * (R7), status reads (R28), dispatch (R20-R26).
 */
import { DateTime, Effect } from "effect"
import { ScheduleConfiguration } from "../../subjects/alarms/api.ts"
import type { AlarmRef, AlarmScheduler, AlarmsDependencies, AlarmStatus } from "../../subjects/alarms/api.ts"
import { dialectSql } from "./dialect.ts"
import { makeProcessDueAlarms } from "./dispatch.ts"
import { scheduleInTransaction } from "./schedule.ts"
import { migrate } from "./schema.ts"
import { makeStore } from "./store.ts"
import type { TransactionContext } from "./transaction.ts"
import { runTransaction } from "./transaction.ts"
import { validateRef } from "./validate.ts"

/**
 * Builds a scheduler. The configuration present now becomes the defaults that each call's
 * `ScheduleConfiguration` overlays (R1); storage is touched only by the calls themselves.
 */
export const makeScheduler = (deps: AlarmsDependencies): Effect.Effect<AlarmScheduler> =>
  Effect.gen(function*() {
    const defaults = { ...(yield* ScheduleConfiguration) }
    const dialect = dialectSql(deps.dialect)
    const store = makeStore(deps.sql, dialect)
    const ctx: TransactionContext = {
      sql: deps.sql,
      dialect,
      store,
      platformAlarm: deps.platformAlarm,
      schedule: scheduleInTransaction(store, defaults),
      cancel: (input: AlarmRef) =>
        Effect.flatMap(validateRef(input), store.remove).pipe(Effect.withSpan("DurableObjectAlarm.cancelAlarm"))
    }
    const getAlarmStatus = (input: AlarmRef) =>
      Effect.gen(function*() {
        const storageId = yield* validateRef(input)
        yield* migrate(deps.sql, dialect)
        const row = yield* store.read(storageId)
        if (row === undefined) return undefined
        const status: AlarmStatus = {
          attempts: row.attempts,
          parked: row.parked,
          runAt: DateTime.makeUnsafe(row.runAt),
          retryAt: row.retryAt === null ? undefined : DateTime.makeUnsafe(row.retryAt)
        }
        return status
      })
    const scheduler: AlarmScheduler = {
      scheduleAlarm: (input) => runTransaction(ctx, (alarms) => alarms.scheduleAlarm(input)),
      scheduleAlarmEarlier: (input) => runTransaction(ctx, (alarms) => alarms.scheduleAlarmEarlier(input)),
      cancelAlarm: (input) => runTransaction(ctx, (alarms) => alarms.cancelAlarm(input)),
      getAlarmStatus,
      transaction: (closure) => runTransaction(ctx, (alarms) => closure(alarms)),
      processDueAlarms: makeProcessDueAlarms(ctx, defaults)
    }
    return scheduler
  })
