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
import { Effect } from "effect"
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
 * is spent (false). A failing poll reads as false only with `failureAsNotBlocked`; otherwise it fails.
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
