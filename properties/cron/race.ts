/**
 * Races of runner operations (claims and settling phases of different runners) as overlapping
 * transactions, and the evidence that they really overlapped.
 *
 * On an adapter with independent connections each runner's transaction runs on its own session. The
 * operation released first (`order[0]`) opens its transaction and pauses at `cron.relayBegun`, then the
 * other opens its own and pauses there too; the first is released to `cron.relayWritten` (its writes
 * done, not committed, its row locks held); the second is released and either runs into those locks
 * (the server reports it blocked by the first's session: `pg_blocking_pids`, polled on an observer
 * session, a bounded loop of round trips, no sleeps) or reaches `cron.relayWritten` with its own
 * writes (it touched no row the first holds); then the first commits, then the second. So the commit
 * order is the generated order, and the model predicts the outcome as the two one after the other.
 *
 * Hook points are optional refinements: an implementation without them pauses at the storage
 * boundary's own points instead (`RACE_BEGUN_POINTS`, `RACE_WRITTEN_POINTS`: right after BEGIN and
 * before COMMIT of its transaction, which the session sets on each runner's boundary for the race),
 * the same places for a phase that is one transaction. One that reaches neither (no transaction)
 * runs each operation to its end before the next starts (in the generated order), which is the
 * phase-granular interleaving every adapter gets. Deliveries are never overlapped (a receipt another runner has written but not
 * committed is invisible to a read, and two inserts of one receipt end in a unique violation: outcomes
 * the rules leave open), so a race holding a delivery phase runs one operation at a time.
 */
import { Effect, type Exit, Fiber } from "effect"
import type { SqlClient } from "effect/sql"
import { AFTER_BEGIN_POINT, BEFORE_COMMIT_POINT, type PointedBoundary, withOpenTransactionPoints } from "../../harness/BoundaryPoints.ts"
import { makeScriptedHooks, type ScriptedHooks } from "../../harness/HookPoints.ts"
import { finish, pausedOrDone, startPaused, type StartedOperation } from "../../harness/PausedOperations.ts"
import { HarnessError } from "../../harness/errors.ts"
import { RELAY_BEGUN_HOOK, RELAY_WRITTEN_HOOK } from "../../subjects/cron/relay.ts"

/** How the operations of one race met. */
export type RaceEvidence =
  /** The second waited on the first's row lock (the server said so through `pg_blocking_pids`). */
  | "lockWait"
  /** Both transactions were open at once with their writes done, on separate sessions (the server showed both "idle in transaction"), without a lock wait. */
  | "overlapped"
  /** One after the other (one connection, no hook points, or a delivery phase in the race). */
  | "sequential"

/** One operation of a race, ready to run. */
export interface RaceEntry<A> {
  readonly label: string
  readonly effect: Effect.Effect<A>
  /** The backend pid of its session, when the adapter has sessions of their own (Postgres). */
  readonly pid: number | null
}

/**
 * Where a racing operation pauses with its transaction open and nothing run: the boundary's point
 * right after BEGIN, which every implementation reaches just before the relay's `cron.relayBegun` (the
 * hook is its transaction's first act, so both name one place; an implementation reaching only the
 * hook still pauses there).
 */
export const RACE_BEGUN_POINTS: ReadonlyArray<string> = [RELAY_BEGUN_HOOK, AFTER_BEGIN_POINT]
/** Where the first operation holds its writes uncommitted: the relay's hook point, else the boundary's before COMMIT. */
export const RACE_WRITTEN_POINTS: ReadonlyArray<string> = [RELAY_WRITTEN_HOOK, BEFORE_COMMIT_POINT]

/** Bound on `pg_blocking_pids` polls while the second operation runs (each poll is one round trip). */
export const MAX_BLOCKING_POLLS = 20_000

const macrotask: Effect.Effect<void> = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 0)))

/** The backend pid of `sql`'s session (Postgres), or null when it has none to ask. */
export const backendPid = (sql: SqlClient.SqlClient): Effect.Effect<number | null> =>
  sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`.pipe(
    Effect.map((rows) => Number(rows[0]!.pid)),
    Effect.orElseSucceed(() => null)
  )

/** How many of the sessions `pids` are inside an open transaction right now (`pg_stat_activity`). */
const openTransactions = (observer: SqlClient.SqlClient, pids: ReadonlyArray<number>): Effect.Effect<number, HarnessError> =>
  observer<{ readonly n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid IN ${observer.in(pids)} AND state = 'idle in transaction'`.pipe(
    Effect.map((rows) => Number(rows[0]!.n)),
    Effect.mapError((cause) => new HarnessError({ message: `cron race: reading pg_stat_activity failed: ${String(cause)}`, hint: "the observer session to the Postgres server failed", cause }))
  )

/** Runs `entries` one after the other in `order`; each exit in `entries` order. */
export const runSequential = <A>(entries: ReadonlyArray<RaceEntry<A>>, order: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Exit.Exit<A>>> =>
  Effect.gen(function*() {
    const exits: Array<Exit.Exit<A> | undefined> = entries.map(() => undefined)
    for (const index of order) exits[index] = yield* Effect.exit(entries[index]!.effect)
    return exits.map((exit) => exit!)
  })

/**
 * Waits until `second` pauses at its armed hook or ends (`"ran"`), or the server reports its session
 * blocked by `holderPid` (`"blocked"`). Bounded: past `MAX_BLOCKING_POLLS` polls it is a harness error.
 */
const awaitRanOrBlocked = <A>(hooks: ScriptedHooks, second: StartedOperation<A, never>, secondPid: number, holderPid: number, observer: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    let ran = false
    const watcher = yield* Effect.forkChild(Effect.tap(pausedOrDone(hooks, second.label, second.fiber), () => Effect.sync(() => { ran = true })))
    for (let poll = 0; poll < MAX_BLOCKING_POLLS; poll++) {
      if (ran) return { seen: "ran" as const, watcher }
      const rows = yield* observer<{ readonly blockers: ReadonlyArray<number> }>`SELECT pg_blocking_pids(${secondPid}) AS blockers`.pipe(
        Effect.mapError((cause) => new HarnessError({ message: `cron race: polling pg_blocking_pids failed: ${String(cause)}`, hint: "the observer session to the Postgres server failed", cause }))
      )
      if (rows[0]!.blockers.map(Number).includes(holderPid)) return { seen: "blocked" as const, watcher }
      yield* macrotask
    }
    return yield* new HarnessError({
      message: `cron race: ${second.label} neither finished, paused nor waited on a lock within ${MAX_BLOCKING_POLLS} polls`,
      hint: "the implementation's transaction is stuck on the server; check for a lock it waits on that the harness does not hold"
    })
  })

/**
 * Runs two race entries as overlapping transactions committing in `order` (see the module comment);
 * each exit in `entries` order and how they met.
 */
export const runRace = <A>(
  hooks: ScriptedHooks,
  entries: readonly [RaceEntry<A>, RaceEntry<A>],
  order: ReadonlyArray<number>,
  observer: SqlClient.SqlClient
): Effect.Effect<{ readonly exits: ReadonlyArray<Exit.Exit<A>>; readonly evidence: RaceEvidence }, HarnessError> =>
  Effect.gen(function*() {
    const [firstIndex, secondIndex] = [order[0]!, order[1]!]
    if (order.length !== 2 || firstIndex === secondIndex) return yield* Effect.die(new RangeError(`race order ${JSON.stringify(order)} is not an order of 2`))
    const [firstEntry, secondEntry] = [entries[firstIndex]!, entries[secondIndex]!]
    const first = yield* startPaused(hooks, firstEntry.label, RACE_BEGUN_POINTS, firstEntry.effect)
    const second = yield* startPaused(hooks, secondEntry.label, RACE_BEGUN_POINTS, secondEntry.effect)
    const exitsInOrder = (firstExit: Exit.Exit<A>, secondExit: Exit.Exit<A>) => (firstIndex === 0 ? [firstExit, secondExit] : [secondExit, firstExit])
    if (!first.paused || !second.paused || firstEntry.pid === null || secondEntry.pid === null) {
      // Neither point reached (no transaction), or no sessions to watch: each ran, or runs now, to its end in turn.
      const firstExit = yield* finish(hooks, first)
      return { exits: exitsInOrder(firstExit, yield* finish(hooks, second)), evidence: "sequential" as const }
    }
    yield* hooks.release(first.label)
    yield* hooks.pauseAt(first.label, RACE_WRITTEN_POINTS)
    const held: StartedOperation<A, never> = { ...first, paused: yield* pausedOrDone(hooks, first.label, first.fiber) }
    yield* hooks.release(second.label)
    yield* hooks.pauseAt(second.label, RACE_WRITTEN_POINTS)
    const { seen, watcher } = yield* awaitRanOrBlocked(hooks, second, secondEntry.pid, firstEntry.pid, observer)
    // Both paused with their writes done: the server must show both sessions inside open transactions.
    const bothOpen = seen === "ran" && held.paused && (yield* Fiber.join(watcher)) && (yield* openTransactions(observer, [firstEntry.pid, secondEntry.pid])) === 2
    const firstExit = yield* finish(hooks, held)
    const secondPaused = yield* Fiber.join(watcher)
    const secondExit = yield* finish(hooks, { ...second, paused: secondPaused })
    const evidence: RaceEvidence = seen === "blocked" ? "lockWait" : bothOpen ? "overlapped" : "sequential"
    return { exits: exitsInOrder(firstExit, secondExit), evidence }
  })

/**
 * `runRace` with the storage boundary's own race points (`RACE_BEGUN_POINTS`, `RACE_WRITTEN_POINTS`)
 * set on each racer's boundary while the race runs, so an implementation without hook points is raced
 * too; the points pause only the operation a race armed.
 */
export const runRaceOverBoundaries = <A>(
  boundaries: ReadonlyArray<PointedBoundary>,
  entries: readonly [RaceEntry<A>, RaceEntry<A>],
  order: ReadonlyArray<number>,
  observer: SqlClient.SqlClient
): Effect.Effect<{ readonly exits: ReadonlyArray<Exit.Exit<A>>; readonly evidence: RaceEvidence }, HarnessError> =>
  Effect.gen(function*() {
    const hooks = yield* makeScriptedHooks
    return yield* withOpenTransactionPoints(boundaries, hooks, runRace(hooks, entries, order, observer))
  })
