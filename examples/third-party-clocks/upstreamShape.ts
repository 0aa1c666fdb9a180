/**
 * Stand-in for an upstream engine module with engine-store's surface: `DeferredPersistence.make(dependencies)`
 * takes upstream's `Dependencies` (owner, journal source, `scheduleResume`, an optional fire retry
 * policy) and reads its storage and journal from context services (`EngineState`, `JournalService`),
 * the way upstream reads `DurableEngineState` and `Journal.Journal`. Inside it is the shipped engine,
 * so the example shows only the binding, not a second engine.
 */
import { Context, Effect, type Schedule, type Scope } from "effect"
import type { SqlClient } from "effect/sql"
import type { Dialect } from "../../adapters/contract.ts"
import type { ClocksService, Journal, ResumeReason, RunRegistry } from "../../subjects/clocks/api.ts"
import { defaultClockPieces, makeClocks } from "../../subjects/clocks/index.ts"

/** Upstream's engine state service: the SQL storage and the run registry. */
export class EngineState extends Context.Service<EngineState, {
  readonly sql: SqlClient.SqlClient
  readonly dialect: Dialect
  readonly runs: RunRegistry
}>()("@smthrs/engine-store/DurableEngineState") {}

/** Upstream's journal service. */
export class JournalService extends Context.Service<JournalService, Journal>()("@smthrs/journal/Journal") {}

/** Upstream's `Dependencies`. */
export interface Dependencies {
  readonly owner: string
  readonly journalSource: string
  readonly scheduleResume: (flowName: string, executionId: string, reason: ResumeReason, sourceId?: string) => Effect.Effect<void>
  readonly fireRetryPolicy?: Schedule.Schedule<unknown, unknown>
}

/** Upstream's constructor: services from context, dependencies as an argument. */
export const make = (dependencies: Dependencies): Effect.Effect<ClocksService, unknown, EngineState | JournalService | Scope.Scope> =>
  Effect.gen(function*() {
    const state = yield* EngineState
    const journal = yield* JournalService
    return yield* makeClocks(defaultClockPieces)({
      sql: state.sql,
      dialect: state.dialect,
      runs: state.runs,
      journal,
      owner: dependencies.owner,
      journalSource: dependencies.journalSource,
      scheduleResume: dependencies.scheduleResume,
      ...(dependencies.fireRetryPolicy === undefined ? {} : { fireRetryPolicy: dependencies.fireRetryPolicy })
    })
  })
