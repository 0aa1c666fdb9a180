/**
 * Seeing lock waits on a Postgres server, for properties that run truly concurrent transactions on
 * separate connections: which backend a session is (`pg_backend_pid`), and whether one backend waits on
 * another's lock (`pg_blocking_pids`, asked from a third, observer session). The server's lock manager
 * is outside virtual time, so the wait is polled in real time, a bounded number of times: the poll only
 * observes, it never orders anything (the hook points do).
 *
 * @example
 * ```ts
 * const waiter = yield* backendPid(connections[1])
 * const holder = yield* backendPid(connections[0])
 * const blocked = yield* awaitBlocked(observer, waiter, holder, () => secondFiberDone)
 * ```
 */
import { Effect, Exit, Fiber } from "effect"
import type { SqlClient } from "effect/sql"

/** Default bound on polls for "this backend waits on that one". */
export const DEFAULT_MAX_BLOCKING_POLLS = 1_500
/** Default real time between polls, in milliseconds. */
export const DEFAULT_BLOCKING_POLL_INTERVAL_MS = 2

/** The backend pid of `sql`'s session. */
export const backendPidOf = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`, (rows) => Number(rows[0]!.pid))

/** The pids `waiter` waits on, as the server reports them (drivers return an array or its text form). */
export const blockingPids = (observer: SqlClient.SqlClient, waiter: number) =>
  Effect.map(observer<{ readonly blockers: ReadonlyArray<number> | string }>`SELECT pg_blocking_pids(${waiter}) AS blockers`, (rows) => {
    const blockers = rows[0]!.blockers
    return typeof blockers === "string" ? blockers.replace(/[{}]/g, "").split(",").filter((pid) => pid !== "").map(Number) : blockers.map(Number)
  })

/**
 * Polls until backend `waiter` waits on backend `holder` (true), or `done` says to stop, or the bound
 * is spent (false). A failing poll fails it.
 */
export const awaitBlocked = (
  observer: SqlClient.SqlClient,
  waiter: number,
  holder: number,
  done: () => boolean,
  options: { readonly maxPolls?: number; readonly pollIntervalMs?: number } = {}
) =>
  Effect.gen(function*() {
    const maxPolls = options.maxPolls ?? DEFAULT_MAX_BLOCKING_POLLS
    const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_BLOCKING_POLL_INTERVAL_MS
    for (let poll = 0; poll < maxPolls && !done(); poll++) {
      if ((yield* blockingPids(observer, waiter)).includes(holder)) return true
      yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, pollIntervalMs)))
    }
    return false
  })

/** What `runIntoHeld` saw. */
export interface RanIntoHeld<A, E, B> {
  /** The server showed the waiter waiting on the holder's lock before the held one was released. */
  readonly blocked: boolean
  /** The waiter's work had ended, without waiting on the lock, before the held one was released. */
  readonly endedBeforeRelease: boolean
  /** How the waiter's work ended. */
  readonly waiterExit: Exit.Exit<A, E>
  /** What releasing the held one gave. */
  readonly released: B
}

/**
 * The overlap's last act, shared by every race that holds one transaction open on a Postgres server:
 * forks `waiterWork` (it runs on backend `waiter`'s session into the transaction backend `holder`
 * holds), polls until the server shows it waiting on `holder` or it ends (`awaitBlocked`), then runs
 * `release` (the held one goes on) and waits for the waiter's end. The held one is released and the
 * waiter awaited even when a poll fails; the run then fails with the poll's error, or, with
 * `pollFailureAsNotBlocked`, reads as not seen waiting.
 */
export const runIntoHeld = <A, E, R, B, R2>(
  observer: SqlClient.SqlClient,
  pids: { readonly waiter: number; readonly holder: number },
  waiterWork: Effect.Effect<A, E, R>,
  release: Effect.Effect<B, never, R2>,
  options: { readonly pollFailureAsNotBlocked?: boolean } = {}
) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(waiterWork)
    const ended = () => fiber.pollUnsafe() !== undefined
    const polled = yield* Effect.exit(awaitBlocked(observer, pids.waiter, pids.holder, ended))
    const blocked = Exit.isSuccess(polled) && polled.value
    const endedBeforeRelease = !blocked && ended()
    const released = yield* release
    const waiterExit = yield* Fiber.await(fiber)
    if (Exit.isFailure(polled) && options.pollFailureAsNotBlocked !== true) return yield* Effect.failCause(polled.cause)
    return { blocked, endedBeforeRelease, waiterExit, released } satisfies RanIntoHeld<A, E, B>
  })
