/**
 * `makeClocks(pieces)`: durable deferreds and absolute clocks over effect/sql (C1-C13).
 *
 * Delivery order is `durable state -> durable journal (inside the state transaction) -> lossy flush
 * -> claim-gated resume`; nothing here runs flow code. Timers are fibers of one `FiberMap` keyed by
 * the clock's address, sleeping on Effect's `Clock` (the virtual clock fires them); closing the
 * service's scope is the process dying. With `defaultClockPieces` this is the shipped implementation.
 */
import { Clock, Duration, Effect, FiberMap, Option } from "effect"
import type { Scope } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { hookPoint } from "../../harness/HookPoints.ts"
import type { ClocksEnvironment, ClocksService, DeferredAddress, JournalInput, ResumeReason } from "./api.ts"
import { FlowInstance } from "./api.ts"
import { clocksDialect } from "./dialect.ts"
import type { Admission, ClockPieces, CompletionRequest, PieceRuntime } from "./pieces.ts"
import { defaultFireRetryPolicy } from "./pieces.ts"
import * as Records from "./records.ts"
import { ensureClocksTables } from "./schema.ts"
import type { ClockRow, DeferredRow } from "./store.ts"
import { makeClockStore } from "./store.ts"

/**
 * Every hook point the engine passes (optional refinements: they only pause under the harness, and are
 * no-ops outside it). A fire passes them in this order: `fire.begin` (before it reads the time or opens
 * its transaction), `fire.beforeCas` (inside the transaction, after the completion and its record),
 * `fire.beforeCommit` (after the CAS and its record, before COMMIT), `completion.afterCommit` (between
 * the commit and the lossy flush and resume; every completion call passes it too).
 */
export const CLOCK_HOOK_POINTS = [
  "clocks.fire.begin",
  "clocks.fire.beforeCas",
  "clocks.fire.beforeCommit",
  "clocks.completion.afterCommit"
] as const

const nowMs = Effect.map(Clock.currentTimeMillis, Math.floor)

/**
 * Builds the engine from `pieces`.
 *
 * @example const clocks = yield* makeClocks(defaultClockPieces)(environment)
 */
export const makeClocks = (pieces: ClockPieces) => (environment: ClocksEnvironment): Effect.Effect<ClocksService, SqlError, Scope.Scope> =>
  Effect.gen(function*() {
    yield* ensureClocksTables(environment.sql, clocksDialect(environment.dialect))
    const store = makeClockStore(environment.sql)
    const journal = environment.journal
    const source = environment.journalSource
    const emit = (input: JournalInput): Effect.Effect<void> => pieces.durableChannel(journal, input).pipe(Effect.orDie)
    const runtime: PieceRuntime = { environment, sql: environment.sql, store, journal, emit }
    const timers = yield* FiberMap.make<string>()
    const policy = environment.fireRetryPolicy ?? defaultFireRetryPolicy

    /** C5/C6/C10: the completion transaction, then flush and resume. */
    const persistDeferred = (request: CompletionRequest, reason: ResumeReason) =>
      Effect.gen(function*() {
        const state: Effect.Effect<Admission, SqlError> = Effect.gen(function*() {
          if (request.expectedWaiting !== undefined) {
            const waiting = yield* environment.runs.waiting(request.row.executionId)
            if (!pieces.waitingMatches(waiting, request.expectedWaiting)) return { _tag: "NotWaiting" as const }
          }
          return { _tag: "Admitted" as const, completion: yield* pieces.completeDeferredRow(store, request.row) }
        })
        const records = (admission: Admission): Effect.Effect<void, SqlError> =>
          admission._tag === "NotWaiting"
            ? Effect.void
            : Effect.andThen(emit(Records.deferredCompleted(source, admission.completion.row)), request.alongside)
        const admission = yield* pieces.completionTransaction(runtime, { state, records }).pipe(Effect.orDie)
        if (admission._tag === "NotWaiting") return "NotWaiting" as const
        yield* hookPoint("clocks.completion.afterCommit")
        yield* pieces.flushLossy(journal)
        const row = admission.completion.row
        if (pieces.resumesAfter(admission.completion)) yield* environment.scheduleResume(row.flowName, row.executionId, reason)
        return admission.completion._tag
      })

    /** C10: one fire of `row` at the current time. */
    const fireClock = (row: ClockRow): Effect.Effect<void> =>
      Effect.gen(function*() {
        yield* hookPoint("clocks.fire.begin")
        const completedAtMs = yield* nowMs
        const completion: DeferredRow = {
          flowName: row.flowName,
          executionId: row.executionId,
          deferredName: row.deferredName,
          exit: { _tag: "Success", value: null },
          metadata: { clockName: row.clockName, dueAtMs: row.dueAtMs, completedAtMs },
          completedAtMs,
          consumedAtMs: null
        }
        const cas = Effect.flatMap(pieces.completeClock(store, row, completedAtMs), (won) => {
          const record = won ? pieces.clockCompletedRecord(source, row, completedAtMs) : null
          return record === null ? Effect.void : emit(record)
        })
        const casAndRecord = Effect.andThen(hookPoint("clocks.fire.beforeCas"), Effect.tap(cas, () => hookPoint("clocks.fire.beforeCommit")))
        yield* pieces.fireOrder(runtime, {
          clock: row,
          casAndRecord,
          complete: (alongside) => Effect.asVoid(persistDeferred({ row: completion, expectedWaiting: undefined, alongside }, "clock"))
        })
      })

    /** C9/C11: one live timer per key, sleeping until the stored deadline, redispatching failed fires. */
    const armTimer = (row: ClockRow) =>
      Effect.flatMap(nowMs, (now) =>
        FiberMap.run(
          timers,
          Records.clockKey(row),
          pieces.retryFire(fireClock(row), policy).pipe(Effect.delay(Duration.millis(Math.max(0, row.dueAtMs - now)))),
          { onlyIfMissing: true }
        )).pipe(Effect.asVoid)

    /** C9: pending clocks are armed; a fired one only when a rewind dropped its completion. */
    const armClock = (row: ClockRow): Effect.Effect<void> =>
      Effect.gen(function*() {
        const completionExists = row.completedAtMs === null ? false : (yield* store.deferred(row).pipe(Effect.orDie)) !== undefined
        if (pieces.shouldArm(row, completionExists)) yield* armTimer(row)
      })

    const completionRow = (options: DeferredAddress & { readonly exit: DeferredRow["exit"]; readonly metadata?: DeferredRow["metadata"] }, completedAtMs: number): DeferredRow => ({
      flowName: options.flowName,
      executionId: options.executionId,
      deferredName: options.deferredName,
      exit: options.exit,
      metadata: options.metadata ?? null,
      completedAtMs,
      consumedAtMs: null
    })

    const service: ClocksService = {
      deferredResult: Effect.fn("DeferredPersistence.deferredResult")(function*(deferred) {
        const instance = yield* FlowInstance
        const address: DeferredAddress = { flowName: instance.flow._tag, executionId: instance.executionId, deferredName: deferred.name }
        const row = yield* store.deferred(address).pipe(Effect.orDie)
        if (row === undefined) return Option.none()
        const consumedAtMs = yield* nowMs
        yield* environment.sql.withTransaction(
          Effect.flatMap(pieces.consume(store, address, consumedAtMs), (first) =>
            first ? emit(Records.deferredConsumed(source, address, consumedAtMs)) : Effect.void)
        ).pipe(Effect.orDie)
        return Option.some(row.exit)
      }),
      deferredDone: Effect.fn("DeferredPersistence.deferredDone")(function*(options) {
        const row = completionRow(options, yield* nowMs)
        yield* persistDeferred({ row, expectedWaiting: undefined, alongside: Effect.void }, "deferred")
      }),
      deferredDoneIfWaiting: Effect.fn("DeferredPersistence.deferredDoneIfWaiting")(function*(options) {
        const row = completionRow(options, yield* nowMs)
        return yield* persistDeferred({ row, expectedWaiting: { reason: options.reason, token: options.token }, alongside: Effect.void }, "deferred")
      }),
      scheduleClock: Effect.fn("DeferredPersistence.scheduleClock")(function*(flow, options) {
        const now = yield* nowMs
        const requested: ClockRow = {
          flowName: flow._tag,
          executionId: options.executionId,
          clockName: options.clock.name,
          deferredName: options.clock.deferred.name,
          dueAtMs: now + options.clock.durationMs,
          completedAtMs: null
        }
        const stored = yield* environment.sql.withTransaction(
          Effect.tap(pieces.storeClock(store, requested, environment.owner), (row) => emit(Records.clockScheduled(source, row)))
        ).pipe(Effect.orDie)
        yield* pieces.flushLossy(journal)
        yield* armClock(stored)
      }),
      sweepDue: Effect.fn("DeferredPersistence.sweepDue")(function*(flowName) {
        const rows = yield* pieces.sweepPending(store, flowName)
        const now = yield* nowMs
        for (const row of rows) {
          yield* emit(Records.clockScheduled(source, row))
          yield* pieces.flushLossy(journal)
          if (pieces.sweepArms(row, now)) yield* armClock(row)
        }
        if (flowName === undefined) return
        const completions = pieces.sweepWakes(yield* store.completedDeferreds(flowName).pipe(Effect.orDie))
        for (const completion of completions) {
          yield* environment.scheduleResume(completion.flowName, completion.executionId, "deferred", pieces.wakeSourceId(source, completion, now))
        }
      }),
      withEffectBoundary: (descriptor, effect) => pieces.effectBoundary(runtime, descriptor, effect)
    }
    return service
  })
