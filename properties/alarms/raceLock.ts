/**
 * The lock race of `alarms/race`: two scheduler instances over the same storage, the first on
 * `connections[0]`, the second on `connections[1]`, each through its own harness storage boundary. The
 * first pauses inside its transaction (after it read or wrote a row, or around its reconcile); the
 * second starts its own transaction meanwhile. On an engine with independent connections every
 * scheduler transaction first takes the transaction lock (`subjects/alarms/README.md`: "On Postgres
 * every scheduler transaction first takes a transaction-scoped advisory lock ..."), so the second MUST
 * wait (observed with `pg_blocking_pids` from a third connection, `awaitBlocked`), and once the first is
 * released the outcome MUST be that of the serial order first-then-second (R4: one storage transaction
 * each, as a Durable Object's single thread runs them). Without independent connections the two run
 * one after the other on one scheduler.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { BEFORE_COMMIT_POINT, holdingBeforeCommit, withBoundaryPoints } from "../../harness/BoundaryPoints.ts"
import { lastPointOf, makeScriptedHooks } from "../../harness/HookPoints.ts"
import { finish, startPaused } from "../../harness/PausedOperations.ts"
import { backendPidOf, runIntoHeld } from "../../harness/PostgresLocks.ts"
import type { Json } from "../../harness/Property.ts"
import { runMutation } from "./driver.ts"
import type { LockRaceSpec } from "./raceScenario.ts"
import { exitJson, type RaceSession } from "./raceSession.ts"
import { harnessError } from "./session.ts"
import type { HarnessError } from "../../harness/errors.ts"

/** The rules a concurrent lock race checks: one storage transaction each (R4), reconcile at commit (R6). */
export const LOCK_RACE_RULES: ReadonlyArray<string> = ["R4", "R6"]

/** What the implementation did in one lock race. */
export interface LockRaceRun {
  readonly first: Json
  readonly second: Json
  /** Whether the second transaction was seen waiting on the first (undefined: not run concurrently). */
  readonly blocked: boolean | undefined
  /** Where the first transaction was held: its hook point, or the boundary's point before COMMIT. */
  readonly heldAt?: string
}

/** Runs the lock race; `observer` is a third connection (only with a second scheduler). */
export const runLockRace = (session: RaceSession, lock: LockRaceSpec, atMs: number, connections: ReadonlyArray<SqlClient.SqlClient>): Effect.Effect<LockRaceRun, HarnessError> =>
  Effect.gen(function*() {
    const first = session.provide(Effect.as(runMutation(session.scheduler, lock.first, atMs), null as Json))
    const secondScheduler = session.second
    if (secondScheduler === undefined) {
      const firstExit = yield* Effect.exit(first)
      const secondExit = yield* Effect.exit(session.provide(runMutation(session.scheduler, lock.second, atMs)))
      return { first: exitJson(firstExit, () => null), second: exitJson(secondExit, () => null), blocked: undefined } satisfies LockRaceRun
    }
    const second = session.provide(Effect.as(runMutation(secondScheduler, lock.second, atMs), null as Json))
    const pids = yield* Effect.all({ first: backendPidOf(connections[0]!), second: backendPidOf(connections[1]!) }).pipe(Effect.mapError(harnessError("reading backend pids")))
    const hooks = yield* makeScriptedHooks
    // The first's transaction is held at its hook point or, for a scheduler without one, at the boundary's point before COMMIT.
    return yield* withBoundaryPoints(session.boundary, holdingBeforeCommit(hooks, "first"), Effect.gen(function*() {
      const holding = yield* startPaused(hooks, "first", [lock.hook, BEFORE_COMMIT_POINT], first)
      if (!holding.paused) {
        const firstExit = yield* finish(hooks, holding)
        return { first: exitJson(firstExit, () => null), second: exitJson(yield* Effect.exit(second), () => null), blocked: undefined } satisfies LockRaceRun
      }
      const heldAt = lastPointOf(hooks, "first")
      const ran = yield* runIntoHeld(connections[2]!, { waiter: pids.second, holder: pids.first }, second, finish(hooks, holding)).pipe(Effect.mapError(harnessError("polling pg_blocking_pids")))
      return { first: exitJson(ran.released, () => null), second: exitJson(ran.waiterExit, () => null), blocked: ran.blocked, ...(heldAt === undefined ? {} : { heldAt }) } satisfies LockRaceRun
    }))
  })
