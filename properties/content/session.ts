/**
 * The implementation side of one content scenario: the store built over the harness's storage
 * boundary (faults reach it only there), a forging store with another grant key over the same
 * storage, calls with their fault armed, and the rebuild after a crash (a restarted process).
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Dialect } from "../../adapters/contract.ts"
import type { StorageFault } from "../../harness/Faults.ts"
import { type BoundedOutcome, makeStorageBoundary, type StorageBoundary } from "../../harness/StorageBoundary.ts"
import { struckFault } from "../../harness/StruckFault.ts"
import { CALL_PHASE, timedImplementationCall, timedPhase } from "../../harness/Profiler.ts"
import { HarnessError, OWN_STATEMENT_HINT, ownWorkFailure } from "../../harness/errors.ts"
import type { ContentImplementation, ContentSettings, ContentStore } from "../../subjects/content/api.ts"
import { FORGER_KEY, GRANT_KEY, storeSettingsOf } from "./config.ts"
import type { ContentParameters } from "./scenario.ts"

/** A failure of the adapter's database outside the implementation, as a `HarnessError` naming `what`. */
export const harnessError = ownWorkFailure("content", OWN_STATEMENT_HINT)

/** A call's outcome and the fault as it struck (`struckFault`: undefined when none was armed or it did not strike). */
export interface Called<A> {
  readonly outcome: BoundedOutcome<A, unknown>
  readonly reached: StorageFault | undefined
}

/** One scenario's implementation side over one client. */
export interface ContentSession {
  readonly boundary: StorageBoundary
  /** The store as currently built (rebuilt after a crash or restart). */
  readonly store: () => ContentStore
  /** A store with another grant key (built on first use): its grants are forged for `store`. */
  readonly forger: Effect.Effect<ContentStore, HarnessError>
  /** Runs one call with `fault` armed; rebuilds the store after a crash. */
  readonly call: <A>(fault: StorageFault | undefined, call: (store: ContentStore) => Effect.Effect<A, unknown>) => Effect.Effect<Called<A>, HarnessError>
  /**
   * Rebuilds the store from storage (a restarted process); with `turnMs`, a deploy: this store and every
   * later one are built with that turn budget.
   */
  readonly restart: (turnMs?: number) => Effect.Effect<void, HarnessError>
  /** The settings the next store is built with (the scenario's parameters over the properties' own, and the last deploy's turn). */
  readonly settings: () => Partial<Omit<ContentSettings, "grantKey" | "singleConnection">>
}

/**
 * Opens a session: builds `implementation` (and a forging instance) over a boundary around `sql`.
 * `singleConnection` is upstream's flag, true where the adapter has no independent connections;
 * `parameters` are the scenario's own (absent: the reference's).
 */
export const openContentSession = (implementation: ContentImplementation, sql: SqlClient.SqlClient, dialect: Dialect, singleConnection: boolean, parameters?: ContentParameters) =>
  Effect.gen(function*() {
    let settings = storeSettingsOf(parameters)
    const boundary = makeStorageBoundary(sql, { get: Effect.succeed(null), set: () => Effect.void, delete: Effect.void })
    const make = (grantKey: string) =>
      Effect.suspend(() => {
        boundary.arm(undefined)
        return implementation.make({ sql: boundary.sql, dialect, settings: { ...settings, grantKey, singleConnection } })
      }).pipe(Effect.mapError((cause) =>
        new HarnessError({
          message: `content implementation ${implementation.name} could not be built: ${String(cause)}`,
          hint: "the implementation's make failed; fix the implementation or the adapter",
          cause
        })
      ))
    let store = yield* make(GRANT_KEY)
    // Built on first use: most scenarios forge no grant.
    let forger: ContentStore | undefined
    const restart = (turnMs?: number) =>
      Effect.suspend(() => {
        if (turnMs !== undefined) settings = { ...settings, turnMs }
        return Effect.map(timedImplementationCall(make(GRANT_KEY)), (rebuilt) => {
          store = rebuilt
        })
      })
    const call = <A>(fault: StorageFault | undefined, run: (current: ContentStore) => Effect.Effect<A, unknown>) =>
      timedPhase(CALL_PHASE, Effect.gen(function*() {
        boundary.arm(fault)
        const outcome = yield* boundary.run(timedImplementationCall(Effect.suspend(() => run(store))))
        // The fault as it struck: none when the operation ran fewer transactions or its body failed first.
        const reached = struckFault(fault, boundary)
        if (outcome._tag === "Crashed") yield* restart()
        return { outcome, reached }
      }))
    const forgerStore = Effect.suspend(() => (forger !== undefined ? Effect.succeed(forger) : Effect.map(make(FORGER_KEY), (built) => (forger = built))))
    const session: ContentSession = { boundary, store: () => store, forger: forgerStore, call, restart, settings: () => settings }
    return session
  })
