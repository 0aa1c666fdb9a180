/**
 * `makeAlarmScheduler(pieces)`: the alarm scheduler skeleton over effect/sql (R1-R28).
 *
 * The skeleton owns the control flow (transactions and handles, validation order, the dispatch loop,
 * report delivery); every decision a historical bug got wrong is a named piece (pieces.ts). With
 * `defaultAlarmPieces` this is the shipped implementation.
 *
 * Hook points (`ALARM_HOOK_POINTS`) sit between statements so the harness can pause an operation
 * there or crash it (the open transaction rolls back).
 */
import { Clock, Context, DateTime, Effect, Exit, Random } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { isSqlError } from "effect/sql/SqlError"
import { hookPoint } from "../../harness/HookPoints.ts"
import type {
  AlarmEvent,
  AlarmParked as AlarmParkedValue,
  AlarmRef,
  AlarmScheduler,
  AlarmsDependencies,
  AlarmStatus,
  AlarmTransaction,
  ProcessDueAlarmsFailure,
  ProcessDueAlarmsHandler,
  ProcessDueAlarmsOptions,
  ProcessDueAlarmsResult,
  ResolvedScheduleConfiguration,
  ScheduleAlarmInput,
  ScheduleConfiguration as ScheduleConfigurationShape
} from "./api.ts"
import {
  AlarmParked,
  AlarmReporter,
  InvalidAlarmPayloadError,
  InvalidAlarmRefError,
  InvalidProcessDueAlarmsOptionsError,
  InvalidRepeatEveryError,
  InvalidScheduleConfigurationError,
  ScheduleConfiguration,
  StorageOperationError,
  StoredAlarmDecodeError
} from "./api.ts"
import { alarmsDialect } from "./dialect.ts"
import type { AlarmPieces, AttemptWrite, MutationKind, PieceRuntime, TransactionSteps } from "./pieces.ts"
import { ensureTables, storageIdOf } from "./schema.ts"
import type { StoredAlarm } from "./store.ts"
import { makeAlarmStore } from "./store.ts"
import {
  encodePayload,
  runAtToMs,
  validateAlarmRef,
  validateFailureDelayMs,
  validateLimit,
  validateProgress
} from "./validation.ts"

/** Every hook point the scheduler passes, in the order a typical operation meets them. */
export const ALARM_HOOK_POINTS = [
  "alarms.transaction.begin",
  "alarms.afterReadExisting",
  "alarms.afterReplaceRow",
  "alarms.afterWriteAttempts",
  "alarms.afterDeleteRow",
  "alarms.beforeReconcile",
  "alarms.afterReconcile",
  "alarms.afterCommitBeforeReport",
  "alarms.dispatch.afterSelectDue",
  "alarms.dispatch.beforeHandler",
  "alarms.dispatch.afterHandler",
  "alarms.dispatch.beforeAcknowledge",
  "alarms.dispatch.afterAcknowledge",
  "alarms.dispatch.beforeFailureWrite"
] as const

/** The handler pass a fiber runs in (R9, R12, R13); undefined outside `processDueAlarms` handlers. */
interface AlarmPass {
  /** Pass-start snapshot of the row being handled. */
  readonly row: StoredAlarm
  /** The batch's `parked` list. */
  readonly parked: Array<AlarmParkedValue>
  active: boolean
}

const CurrentAlarmPass = Context.Reference<AlarmPass | undefined>("effect-cf/DurableObjectAlarm/CurrentAlarmPass", {
  defaultValue: () => undefined
})

/** Per-transaction bookkeeping. */
interface TransactionState {
  /** Storage ids whose new parked episode must be reported after commit. */
  readonly reports: Array<string>
  readonly mutations: Array<MutationKind>
}

/** Marks a failure of the caller's closure so SQL failures of our own statements are told apart. */
class ClosureFailure<E> {
  readonly _tag = "ClosureFailure"
  constructor(readonly error: E) {}
}

/** Upper bound on distinct parked reports queued in one transaction (one per mutated row). */
const MAX_REPORTS_PER_TRANSACTION = 100_000

const storageError = (operation: string) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError> | StorageOperationError, R> =>
  Effect.mapError(effect, (error) =>
    isSqlError(error)
      ? new StorageOperationError({ operation, cause: error })
      : (error as Exclude<E, SqlError>))

/** A 128-bit revision from Effect's `Random` (deterministic under `Random.withSeed`). */
const newRevision: Effect.Effect<string> = Effect.gen(function*() {
  let revision = ""
  for (let word = 0; word < 4; word++) {
    const value = Math.floor((yield* Random.next) * 0x1_0000_0000)
    revision += value.toString(16).padStart(8, "0")
  }
  return revision
})

const decodeEvent = (row: StoredAlarm): Exit.Exit<AlarmEvent, StoredAlarmDecodeError> => {
  try {
    return Exit.succeed({
      id: row.alarmId,
      tag: row.tag,
      payload: JSON.parse(row.payloadJson),
      scheduledAt: DateTime.makeUnsafe(row.runAtMs)
    })
  } catch (cause) {
    return Exit.fail(new StoredAlarmDecodeError({ cause, storageId: row.storageId, tag: row.tag, id: row.alarmId }))
  }
}

/**
 * Builds an `AlarmsImplementation.make` from pieces. `make` captures `ScheduleConfiguration` as the
 * defaults (R1) and touches no storage: every storage transaction first creates or migrates the tables
 * (R3, R4), and so do `processDueAlarms` and `getAlarmStatus` before they read.
 *
 * @example
 * ```ts
 * const make = makeAlarmScheduler(defaultAlarmPieces)
 * const alarms = yield* make({ sql, dialect: "sqlite", platformAlarm })
 * ```
 */
export const makeAlarmScheduler = (pieces: AlarmPieces) =>
(
  deps: AlarmsDependencies
): Effect.Effect<AlarmScheduler, InvalidScheduleConfigurationError | StorageOperationError> =>
  Effect.gen(function*() {
    const sql: SqlClient.SqlClient = deps.sql
    const dialect = alarmsDialect(deps.dialect)
    const store = makeAlarmStore(sql, dialect)
    const configurationDefaults: ScheduleConfigurationShape = { ...(yield* ScheduleConfiguration) }
    // No storage access here: the tables are created or migrated (R3) at the start of every storage
    // transaction, so a transaction that fails leaves an older layout untouched (R4).
    const migrate: Effect.Effect<void, StorageOperationError> = ensureTables(sql, dialect).pipe(
      storageError("ensureTables")
    )

    const writeAttemptState = (storageId: string, state: AttemptWrite, runAtMs: number) =>
      Effect.gen(function*() {
        const revision = yield* newRevision
        yield* store.writeAttempts({ storageId, revision, ...state })
        yield* hookPoint("alarms.afterWriteAttempts")
        yield* store.setWakeAt(storageId, pieces.effectiveWakeMs(runAtMs, state.retryAtMs))
      })

    const runtime: PieceRuntime = { store, platformAlarm: deps.platformAlarm, writeAttemptState }

    /** Serializes scheduler transactions across connections (a Durable Object runs one at a time). */
    const serializeTransactions: Effect.Effect<void, StorageOperationError> = Effect.suspend(() =>
      pieces.transactionLock(runtime, dialect.transactionLockSql)
    ).pipe(storageError("alarm.lock"))

    const currentConfiguration: Effect.Effect<ResolvedScheduleConfiguration, InvalidScheduleConfigurationError> =
      Effect.flatMap(
        Effect.service(ScheduleConfiguration),
        (overlay) =>
          Effect.try({
            try: () => pieces.resolveConfiguration({ ...configurationDefaults, ...overlay }),
            catch: (cause) => new InvalidScheduleConfigurationError({ cause })
          })
      )

    const decodeRef = (input: AlarmRef) =>
      Effect.try({ try: () => validateAlarmRef(input), catch: (cause) => new InvalidAlarmRefError({ cause }) })

    // ---- reporting (R27) ----

    const reportParked = (storageIds: ReadonlyArray<string>): Effect.Effect<void, SqlError> =>
      Effect.gen(function*() {
        if (storageIds.length === 0) return
        const pass = yield* CurrentAlarmPass
        const report = yield* AlarmReporter
        for (const storageId of new Set(storageIds)) {
          const row = yield* store.readRow(storageId)
          // Cancelled or progressed later in the same transaction: the tentative parking is gone.
          if (row === undefined || !row.parked || row.retryAtMs === null) continue
          const event = AlarmParked({
            attempts: row.attempts,
            retryAt: DateTime.makeUnsafe(Math.max(row.runAtMs, row.retryAtMs))
          })
          pass?.parked.push(event)
          // A failing reporter cannot undo the committed parking; its failure is swallowed.
          yield* Effect.exit(Effect.suspend(() => report(event)))
        }
      })

    // ---- transactions (R4-R7) ----

    /** Runs `body` in one storage transaction, then reconciles, commits and reports (via the piece). */
    const runTransaction = <A, E, R>(
      body: (state: TransactionState) => Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | StorageOperationError, R> =>
      Effect.suspend(() => {
        const state: TransactionState = { reports: [], mutations: [] }
        const steps: TransactionSteps<A, ClosureFailure<E | StorageOperationError>, R> = {
          transact: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => sql.withTransaction(effect),
          // The lock needs no table, so it also serializes the transactions that create or migrate them.
          body: hookPoint("alarms.transaction.begin").pipe(
            Effect.andThen(serializeTransactions),
            Effect.andThen(migrate),
            Effect.flatMap(() => body(state)),
            Effect.mapError((error) => new ClosureFailure(error))
          ),
          reconcile: hookPoint("alarms.beforeReconcile").pipe(
            Effect.andThen(Effect.suspend(() => pieces.reconcile(runtime, state.mutations)).pipe(Effect.withSpan("DurableObjectAlarm.reconcileAlarm"))),
            Effect.andThen(hookPoint("alarms.afterReconcile"))
          ),
          afterCommit: hookPoint("alarms.afterCommitBeforeReport"),
          report: Effect.suspend(() => reportParked(state.reports))
        }
        return pieces.commitThenReport<A, ClosureFailure<E | StorageOperationError>, R>(steps).pipe(
          Effect.mapError((error): E | StorageOperationError =>
            error instanceof ClosureFailure
              ? error.error
              : new StorageOperationError({ operation: "transaction", cause: error })
          )
        )
      })

    const queueReport = (state: TransactionState, storageId: string) => {
      if (state.reports.length < MAX_REPORTS_PER_TRANSACTION) state.reports.push(storageId)
    }

    // Upstream's span names (seed: `Effect.fn("DurableObjectAlarm.scheduleAlarm")`, ...): traces key on them.
    const scheduleOne = Effect.fn("DurableObjectAlarm.scheduleAlarm")(function*(input: ScheduleAlarmInput, earlier: boolean, state: TransactionState) {
      const configuration = yield* currentConfiguration
      const ref = yield* decodeRef(input)
      const repeatEveryMs = yield* Effect.try({
        try: () => pieces.repeatEveryMs(input.repeatEvery, configuration),
        catch: (cause) => new InvalidRepeatEveryError({ cause })
      })
      const payloadJson = yield* Effect.try({
        try: () => encodePayload(input.payload),
        catch: (cause) => new InvalidAlarmPayloadError({ cause })
      })
      const runAtMs = yield* Effect.try({
        try: () => runAtToMs(input.runAt),
        catch: (cause) => new InvalidAlarmRefError({ cause })
      })
      const storageId = storageIdOf(ref)
      const existing = yield* store.readRow(storageId).pipe(storageError("alarm.readRow"))
      yield* hookPoint("alarms.afterReadExisting")
      const pass = yield* CurrentAlarmPass
      const source = pass?.row
      const progress = existing?.progress ?? source?.progress ?? -1

      if (pass !== undefined && !pieces.passAllowsSchedule(pass)) {
        return yield* Effect.fail(
          new StorageOperationError({
            operation: "alarm.schedule",
            cause: new Error("Alarm handlers cannot schedule detached work after their pass ends")
          })
        )
      }
      if (input.progress !== undefined) {
        yield* Effect.try({
          try: () => validateProgress(input.progress!),
          catch: (cause) => new InvalidAlarmRefError({ cause })
        })
      }
      // R11: a replayed cursor from outside a pass cannot refill a budget or replace newer state.
      if (source === undefined && input.progress !== undefined && !pieces.cursorAdvances(input.progress, progress)) {
        return
      }
      const progressed = input.progress !== undefined && pieces.cursorAdvances(input.progress, progress)
      const sourceProgressed = source !== undefined && storageId === source.storageId && progress > source.progress
      const budget = configuration.unchangedAttemptBudget
      const attempts = pieces.scheduleAttempts({
        source,
        existing,
        fresh: source === undefined || progressed || sourceProgressed,
        budget
      })
      const parked = pieces.isParked({
        attempts,
        budget,
        wasParked: source?.parked === true || existing?.parked === true
      })
      const nowMs = yield* Clock.currentTimeMillis
      const retryAtMs = attempts === 0
        ? null
        : nowMs + pieces.retryDelayMs(attempts, parked, configuration.minimumRetryDelayMs, configuration)
      const keepEarlier = earlier && existing !== undefined && existing.runAtMs <= runAtMs
      const scheduledAtMs = keepEarlier ? existing.runAtMs : runAtMs

      yield* store.replaceRow({
        storageId,
        alarmId: ref.id,
        tag: ref.tag,
        runAtMs: scheduledAtMs,
        repeatEveryMs: keepEarlier ? existing.repeatEveryMs : repeatEveryMs,
        payloadJson: keepEarlier ? existing.payloadJson : payloadJson
      }).pipe(storageError("alarm.replaceRow"))
      yield* hookPoint("alarms.afterReplaceRow")
      yield* writeAttemptState(storageId, {
        attempts,
        parked,
        retryAtMs,
        progress: Math.max(progress, input.progress ?? -1)
      }, scheduledAtMs).pipe(storageError("alarm.writeAttempts"))
      state.mutations.push("schedule")
      const wasParkedBefore = existing?.parked ?? source?.parked ?? false
      if (parked && retryAtMs !== null && pieces.opensParkedEpisode(wasParkedBefore, parked)) {
        queueReport(state, storageId)
      }
    })

    const cancelOne = Effect.fn("DurableObjectAlarm.cancelAlarm")(function*(input: AlarmRef, state: TransactionState) {
      const ref = yield* decodeRef(input)
      const storageId = storageIdOf(ref)
      yield* store.deleteRow(storageId).pipe(storageError("alarm.cancel"))
      yield* hookPoint("alarms.afterDeleteRow")
      yield* store.deleteAttempts(storageId).pipe(storageError("alarm.cancel"))
      state.mutations.push("cancel")
    })

    const transaction: AlarmScheduler["transaction"] = (closure) =>
      runTransaction((state) =>
        Effect.withFiber((owner) => {
          let active = true
          const guard = <A, E>(operation: string, effect: Effect.Effect<A, E>) =>
            Effect.withFiber<A, E | StorageOperationError>((fiber) =>
              pieces.handleAllowsMutation({ active, onOwnerFiber: fiber === owner })
                ? effect
                : Effect.fail(
                  new StorageOperationError({
                    operation,
                    cause: new Error(
                      "This alarm transaction handle is no longer usable: it was used from a forked fiber or after its closure ended"
                    )
                  })
                )
            )
          const handle: AlarmTransaction = {
            scheduleAlarm: (input) => guard("alarm.schedule", scheduleOne(input, false, state)),
            scheduleAlarmEarlier: (input) => guard("alarm.scheduleEarlier", scheduleOne(input, true, state)),
            cancelAlarm: (input) => guard("alarm.cancel", cancelOne(input, state))
          }
          return Effect.suspend(() => closure(handle)).pipe(
            Effect.ensuring(Effect.sync(() => {
              active = false
            }))
          )
        })
      )

    // ---- dispatch (R20-R26) ----

    const rescheduleFailed = (
      row: StoredAlarm,
      baseDelayMs: number,
      configuration: ResolvedScheduleConfiguration,
      state: TransactionState
    ) =>
      Effect.gen(function*() {
        const current = yield* store.readRow(row.storageId).pipe(storageError("alarm.readRow"))
        // Gone, or a self-rearm already charged this pass: a newer schedule survives a stale failure.
        if (current === undefined || current.revision !== row.revision) return
        const plan = pieces.planFailureRetry(row, {
          configuration,
          baseDelayMs,
          nowMs: yield* Clock.currentTimeMillis,
          isParked: pieces.isParked,
          retryDelayMs: pieces.retryDelayMs
        })
        if (plan.runAtMs !== row.runAtMs) {
          yield* store.setRunAt(row.storageId, plan.runAtMs).pipe(storageError("alarm.rescheduleFailed"))
        }
        yield* writeAttemptState(row.storageId, {
          attempts: plan.attempts,
          parked: plan.parked,
          retryAtMs: plan.retryAtMs,
          progress: row.progress
        }, plan.runAtMs).pipe(storageError("alarm.rescheduleFailed"))
        state.mutations.push("reschedule")
        if (plan.parked && pieces.opensParkedEpisode(row.parked, plan.parked)) queueReport(state, row.storageId)
      })

    const acknowledge = (row: StoredAlarm, configuration: ResolvedScheduleConfiguration, state: TransactionState) =>
      Effect.flatMap(hookPoint("alarms.dispatch.beforeAcknowledge"), () =>
        pieces.acknowledge(runtime, row, configuration).pipe(
          Effect.tap(() => Effect.sync(() => state.mutations.push("acknowledge"))),
          storageError("alarm.acknowledge")
        ))

    const processDueAlarms: AlarmScheduler["processDueAlarms"] = <R, E, OnFailureR, OnFailureE>(
      handle: ProcessDueAlarmsHandler<R, E>,
      options?: ProcessDueAlarmsOptions<OnFailureR, OnFailureE>
    ) =>
      Effect.gen(function*() {
        const configuration = yield* currentConfiguration
        // As upstream: tables and migration (R3) outside a transaction, before the due rows are read.
        yield* migrate
        const limit = yield* Effect.try({
          try: () => validateLimit(options?.limit),
          catch: (cause) => new InvalidProcessDueAlarmsOptionsError({ cause })
        })
        const baseDelayMs = yield* Effect.try({
          try: () =>
            validateFailureDelayMs(
              options?.retryFailedAfter ?? configuration.minimumRetryDelayMs,
              configuration.minimumRetryDelayMs
            ),
          catch: (cause) => new InvalidProcessDueAlarmsOptionsError({ cause })
        })
        const nowMs = yield* Clock.currentTimeMillis
        const dueRows = yield* pieces.selectDue(runtime, nowMs, limit).pipe(storageError("alarm.selectDue"))
        yield* hookPoint("alarms.dispatch.afterSelectDue")
        const handled: Array<AlarmEvent> = []
        const failed: Array<ProcessDueAlarmsFailure> = []
        const parked: Array<AlarmParkedValue> = []

        const inPass = <A, E2, R2>(row: StoredAlarm, effect: Effect.Effect<A, E2, R2>) =>
          Effect.suspend(() => {
            const pass: AlarmPass = { row, parked, active: true }
            return effect.pipe(
              Effect.provideService(CurrentAlarmPass, pass),
              Effect.ensuring(Effect.sync(() => {
                pass.active = false
              }))
            )
          })

        const handleFailure = (row: StoredAlarm, event: AlarmEvent | undefined, cause: unknown) =>
          Effect.gen(function*() {
            const failure: ProcessDueAlarmsFailure = event === undefined
              ? { cause, tag: row.tag, id: row.alarmId }
              : { cause, event, tag: row.tag, id: row.alarmId }
            failed.push(failure)
            const onFailure = options?.onFailure
            const actionExit = yield* Effect.exit(
              onFailure === undefined ? Effect.void : Effect.suspend(() => onFailure(failure))
            )
            const decision = pieces.decideFailure({ actionExit, baseDelayMs, configuration })
            yield* hookPoint("alarms.dispatch.beforeFailureWrite")
            yield* runTransaction((state) =>
              decision.mode === "advance"
                ? acknowledge(row, configuration, state)
                : decision.mode === "retry"
                ? rescheduleFailed(row, decision.delayMs, configuration, state)
                : Effect.void
            )
            if (Exit.isFailure(actionExit)) return yield* Effect.failCause(actionExit.cause)
            if (decision.mode === "retry" && decision.delayError !== undefined) {
              return yield* Effect.fail(decision.delayError)
            }
          })

        for (const row of dueRows.slice(0, limit)) {
          const current = yield* store.readRow(row.storageId).pipe(storageError("alarm.readRow"))
          // Replaced or cancelled earlier in this batch: skip silently (edge case 5).
          if (current === undefined || current.revision !== row.revision) continue
          const eventExit = decodeEvent(row)
          if (Exit.isFailure(eventExit)) {
            yield* inPass(row, handleFailure(row, undefined, eventExit.cause))
            continue
          }
          const event = eventExit.value
          yield* hookPoint("alarms.dispatch.beforeHandler")
          // Any error or defect of the handler takes the failure path (R22); a crash is no error: the
          // process ends, and nothing after this point runs.
          const handleExit = yield* Effect.exit(inPass(row, Effect.suspend(() => handle(event))))
          yield* hookPoint("alarms.dispatch.afterHandler")
          if (Exit.isFailure(handleExit)) {
            yield* inPass(row, handleFailure(row, event, handleExit.cause))
            continue
          }
          yield* runTransaction((state) => acknowledge(row, configuration, state))
          yield* hookPoint("alarms.dispatch.afterAcknowledge")
          handled.push(event)
        }
        // R26: leftover rows beyond `limit` keep the platform alarm at or before now.
        yield* runTransaction(() => Effect.void)
        const result: ProcessDueAlarmsResult = { handled, failed, parked }
        return result
      }).pipe(Effect.withSpan("DurableObjectAlarm.processDueAlarms"))

    const getAlarmStatus = (input: AlarmRef) =>
      Effect.gen(function*() {
        const ref = yield* decodeRef(input)
        // As upstream: tables and migration (R3) outside a transaction, before the read.
        yield* migrate
        const row = yield* store.readRow(storageIdOf(ref)).pipe(storageError("alarm.getStatus"))
        if (row === undefined) return undefined
        const status: AlarmStatus = {
          attempts: row.attempts,
          parked: row.parked,
          runAt: DateTime.makeUnsafe(row.runAtMs),
          retryAt: row.retryAtMs === null ? undefined : DateTime.makeUnsafe(row.retryAtMs)
        }
        return status
      })

    const scheduler: AlarmScheduler = {
      scheduleAlarm: (input) => transaction((alarms) => alarms.scheduleAlarm(input)),
      scheduleAlarmEarlier: (input) => transaction((alarms) => alarms.scheduleAlarmEarlier(input)),
      cancelAlarm: (input) => transaction((alarms) => alarms.cancelAlarm(input)),
      getAlarmStatus,
      transaction,
      processDueAlarms
    }
    return scheduler
  })
