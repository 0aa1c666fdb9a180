/**
 * One operation of the cron model: the next state, the result the implementation must return, the
 * reference rules deciding it, and the requirements whose situation it reached. Every operation runs at
 * most one storage transaction, and a storage fault gives it the boundary's meaning: `inside` keeps
 * nothing and ends the runner's process, `afterCommit` keeps the commit and ends the process,
 * `lostReply` keeps the commit and fails the call, `commitRefused` keeps nothing of the transaction and
 * fails the call with the `SqlError`, the process going on (a body that failed by itself never reaches
 * COMMIT: its own error stands). An ended or failed claim or settle drops the runner's claims (its
 * leases run out).
 */
import { declareSchedule } from "./schedule.ts"
import { settle, type SettleDecision } from "./settle.ts"
import { ACTOR_TYPE, type CronFault, type CronModelState, type CronOperation, type InFlightTick, type ModelRunner, SINGLETON_ID, sortRows } from "./state.ts"
import { CLAIM_LIMIT, isTick, nextOf, writeTicks } from "./ticks.ts"

/** A JSON-shaped result: `{_tag: "Success", value}`, `{_tag: "Failure", error}` or `{_tag: "Crashed", ...}`. */
export type CronResult =
  | { readonly _tag: "Success"; readonly value: unknown }
  | { readonly _tag: "Failure"; readonly error: string }
  | { readonly _tag: "Crashed"; readonly transaction: number; readonly phase: "inside" | "afterCommit" }

/** What `step` returns. */
export interface CronOutcome {
  readonly state: CronModelState
  readonly result: CronResult
  /** Rules deciding the result and the state after it. */
  readonly rules: ReadonlyArray<string>
  /** Why, in a few words, for the witness sentence. */
  readonly why: string
  /**
   * Rules deciding the outbox rows, when other rules than the result's do (a retargeted tick with a
   * receipt: whether it is delivered is I4/B1, how its row is rewritten is N8).
   */
  readonly rowRules?: ReadonlyArray<string>
  readonly rowWhy?: string
  /** Requirement ids whose situation this operation reached. */
  readonly covered: ReadonlyArray<string>
  /** For a race: each operation's own outcome, in the race's `ops` order. */
  readonly parts?: ReadonlyArray<CronOutcome>
  /** For a settling phase of a claimed tick: the branch that decided it (whether or not its transaction was kept). */
  readonly settled?: SettleDecision
}

interface Body {
  readonly state: CronModelState
  readonly value: unknown
  readonly rules: ReadonlyArray<string>
  readonly why: string
  readonly covered: ReadonlyArray<string>
  readonly rowRules?: ReadonlyArray<string>
  readonly rowWhy?: string
  /** The transaction's body failed (it rolls back). */
  readonly failed?: string
}

const setRunner = (state: CronModelState, index: number, runner: ModelRunner): CronModelState => ({
  ...state,
  runners: state.runners.map((current, position) => (position === index ? runner : current))
})

const dropClaims = (state: CronModelState, index: number): CronModelState =>
  setRunner(state, index, { ...state.runners[index]!, inFlight: [] })

/** A transaction that rolled back on the database's word (`cause`): nothing kept, the call fails with the storage error. */
const refused = (start: CronModelState, runner: number, body: Body, dropsClaims: boolean, cause: string): CronOutcome => ({
  rules: body.rules,
  why: `${cause}, so nothing of the transaction is kept and the call fails (had it committed: ${body.why})`,
  covered: body.covered,
  state: dropsClaims ? dropClaims(start, runner) : start,
  result: { _tag: "Failure", error: "SqlError" }
})

/**
 * Runs one transaction body under `fault` (the first and only transaction of the operation).
 * `dropsClaims` says whether a crash or failure ends the runner's claims.
 */
const transaction = (start: CronModelState, runner: number, fault: CronFault | undefined, body: Body, dropsClaims: boolean): CronOutcome => {
  const phase = fault?.transaction === 1 ? fault.phase : undefined
  const base = {
    rules: body.rules,
    why: body.why,
    covered: body.covered,
    ...(body.rowRules === undefined ? {} : { rowRules: body.rowRules, rowWhy: body.rowWhy ?? body.why })
  }
  if (phase === "inside") return { ...base, state: dropClaims(start, runner), result: { _tag: "Crashed", transaction: 1, phase: "inside" } }
  // A failed statement struck before anything the body fails on: the body's own failure never came.
  if (phase === "statementFails") return refused(start, runner, body, dropsClaims, "one of its statements failed and its transaction rolled back")
  if (body.failed !== undefined) return { ...base, state: start, result: { _tag: "Failure", error: body.failed } }
  if (phase === "afterCommit") return { ...base, state: dropClaims(body.state, runner), result: { _tag: "Crashed", transaction: 1, phase: "afterCommit" } }
  if (phase === "lostReply") {
    return { ...base, state: dropsClaims ? dropClaims(body.state, runner) : body.state, result: { _tag: "Failure", error: "SqlError" } }
  }
  if (phase === "commitRefused") return refused(start, runner, body, dropsClaims, "the database refused the COMMIT")
  return { ...base, state: body.state, result: { _tag: "Success", value: body.value } }
}

const declare = (state: CronModelState, operation: Extract<CronOperation, { kind: "declare" }>): CronOutcome => {
  const runner = state.runners[operation.runner]!
  if (operation.schedule === null) {
    return { state: setRunner(state, operation.runner, { ...runner, schedule: null }), result: { _tag: "Success", value: [] }, rules: ["N6"], why: "the runner stops declaring the actor type", covered: [] }
  }
  const declared = declareSchedule(operation.schedule)
  if (typeof declared === "string") {
    return { state, result: { _tag: "Failure", error: declared }, rules: ["N1"], why: "an invalid entry or two entries with one canonical key are refused", covered: ["CRN-001"] }
  }
  return {
    state: setRunner(state, operation.runner, { ...runner, schedule: declared }),
    result: { _tag: "Success", value: declared.entries.map((entry) => entry.key) },
    rules: ["N1"],
    why: "each entry's key is $cron: with its zone and canonical fields, or @every in ms",
    covered: ["CRN-001"]
  }
}

const turn = (state: CronModelState, operation: Extract<CronOperation, { kind: "turn" }>): CronOutcome => {
  const entries = state.runners[operation.runner]!.schedule?.entries ?? []
  const writeAtMs = operation.atMs + operation.turnMs
  if (operation.rejected) {
    return transaction(state, operation.runner, operation.fault, { state, value: null, rules: ["N4"], why: "a rejected turn writes no tick", covered: ["CRN-004"], failed: "TurnRejected" }, false)
  }
  const written = writeTicks(state, operation.actorId, entries, writeAtMs)
  const admissionDiffers = entries.some((entry) => nextOf(entry, operation.atMs) !== nextOf(entry, writeAtMs))
  return transaction(state, operation.runner, operation.fault, {
    state: written.state,
    value: null,
    rules: admissionDiffers ? ["B2", "N4"] : ["N4"],
    why: admissionDiffers ? "the first tick is next(time of the write), and an instant passed while the turn ran" : "a committed turn writes one row per entry at next(now), keeping rows that already tick",
    covered: ["CRN-004", "CRN-003", "CRN-014", ...(admissionDiffers ? ["CRN-013"] : []), ...(written.ignored ? ["CRN-009"] : [])]
  }, false)
}

const bootstrap = (state: CronModelState, operation: Extract<CronOperation, { kind: "bootstrap" }>): CronOutcome => {
  const entries = state.runners[operation.runner]!.schedule?.entries ?? []
  // Upstream returns before opening its transaction when there is nothing to write, so a fault aimed
  // at that transaction is never reached.
  if (entries.length === 0) return { state, result: { _tag: "Success", value: null }, rules: ["N5"], why: "a runner without entries opens no transaction and writes nothing", covered: [] }
  const key = `${ACTOR_TYPE}/${SINGLETON_ID}`
  const generations = state.generations.includes(key) ? state.generations : [...state.generations, key]
  const written = writeTicks({ ...state, generations }, SINGLETON_ID, entries, operation.atMs)
  return transaction(state, operation.runner, operation.fault, {
    state: written.state,
    value: null,
    rules: ["N5"],
    why: "bootstrap writes the singleton's missing ticks in one transaction",
    covered: ["CRN-005", ...(written.ignored ? ["CRN-009"] : [])]
  }, false)
}

const bootstrapAll = (start: CronModelState, operation: Extract<CronOperation, { kind: "bootstrapAll" }>): CronOutcome => {
  let state = start
  const declaring = state.runners.map((runner, index) => ({ runner, index })).filter(({ runner }) => (runner.schedule?.entries.length ?? 0) > 0)
  if (declaring.length === 0) return { state, result: { _tag: "Success", value: null }, rules: ["N5"], why: "no runner declares entries", covered: [] }
  const key = `${ACTOR_TYPE}/${SINGLETON_ID}`
  if (!state.generations.includes(key)) state = { ...state, generations: [...state.generations, key] }
  // Winners first, so each timer key gets the row of the runner whose insert landed.
  const winnerEntries = declaring.flatMap(({ runner, index }) =>
    runner.schedule!.entries.filter((entry) => (operation.winners[entry.key] ?? declaring[0]!.index) === index))
  state = writeTicks(state, SINGLETON_ID, winnerEntries, operation.atMs).state
  for (const { runner } of declaring) state = writeTicks(state, SINGLETON_ID, runner.schedule!.entries, operation.atMs).state
  return {
    state,
    result: { _tag: "Success", value: null },
    rules: ["I1", "N5"],
    why: "runners bootstrapping at once leave one row per entry",
    covered: declaring.length > 1 ? ["CRN-005", "CRN-009"] : ["CRN-005"]
  }
}

/** Whether a runner other than `runner` holds a row under a lease that has not ended at `atMs`. */
export const heldByOthers = (state: CronModelState, runner: number, atMs: number): boolean =>
  state.runners.some((other, index) =>
    index !== runner && other.inFlight.some((tick) => tick.claimedUntilMs > atMs && state.rows.some((row) => row.intentId === tick.intentId && row.dueAtMs === tick.claimedUntilMs)))

const claim = (state: CronModelState, operation: Extract<CronOperation, { kind: "claim" }>): CronOutcome => {
  const runner = state.runners[operation.runner]!
  const claimedUntilMs = operation.atMs + state.timing.leaseMs
  const due = runner.schedule === null ? [] : sortRows(state.rows.filter((row) => isTick(row) && row.dueAtMs <= operation.atMs))
    .slice()
    .sort((a, b) => a.dueAtMs - b.dueAtMs)
    .slice(0, CLAIM_LIMIT)
  const ids = new Set(due.map((row) => row.intentId))
  const rows = state.rows.map((row) => (ids.has(row.intentId) ? { ...row, dueAtMs: claimedUntilMs } : row))
  const claimed: Array<InFlightTick> = sortRows(due).map((row) => ({
    actorId: row.actorId, timerKey: row.timerKey, intentId: row.intentId, command: row.command, payload: row.payload,
    scheduledAtMs: row.scheduledAtMs, claimedUntilMs, phase: "claimed", delivery: null
  }))
  const kept = runner.inFlight.filter((tick) => !ids.has(tick.intentId))
  const next = setRunner({ ...state, rows }, operation.runner, { ...runner, inFlight: [...kept, ...claimed] })
  const heldElsewhere = runner.schedule !== null && heldByOthers(state, operation.runner, operation.atMs)
  return transaction(state, operation.runner, operation.fault, {
    state: next,
    value: claimed.map((tick) => ({ actorId: tick.actorId, timerKey: tick.timerKey, intentId: tick.intentId, claimedUntilMs })),
    rules: heldElsewhere ? ["I2", "N8", "N6"] : ["N6"],
    why: runner.schedule === null
      ? "a runner claims ticks only of actor types it declares"
      : heldElsewhere
      ? "a tick another runner holds under an unexpired lease is not claimed again, so each instant is delivered at most once"
      : "a claim takes every due tick and holds it until the lease ends",
    covered: ["CRN-006"]
  }, true)
}

/** A race: the operations one after the other in commit order; each one's result, in `ops` order. */
const race = (start: CronModelState, operation: Extract<CronOperation, { kind: "race" }>): CronOutcome => {
  let state = start
  const parts: Array<CronOutcome | undefined> = operation.ops.map(() => undefined)
  for (const index of operation.order) {
    const op = operation.ops[index]!
    const outcome = op.kind === "claim"
      ? claim(state, { kind: "claim", atMs: operation.atMs, runner: op.runner })
      : settle(state, { kind: "settle", atMs: operation.atMs, runner: op.runner, ...(operation.receiptsKeyedById === true ? { receiptsKeyedById: true } : {}) }, transaction)
    parts[index] = outcome
    state = outcome.state
  }
  const done = parts.map((part) => part!)
  return {
    state,
    result: { _tag: "Success", value: done.map((part) => part.result) },
    rules: [...new Set(done.flatMap((part) => part.rules))],
    why: `overlapping transactions commit in release order (${operation.order.join(", ")}); ${done.map((part) => part.why).join("; ")}`,
    ...(done.some((part) => part.rowRules !== undefined)
      ? {
        rowRules: [...new Set(done.flatMap((part) => part.rowRules ?? part.rules))],
        rowWhy: `overlapping transactions commit in release order (${operation.order.join(", ")}); ${done.map((part) => part.rowWhy ?? part.why).join("; ")}`
      }
      : {}),
    covered: [...new Set(done.flatMap((part) => part.covered))],
    parts: done
  }
}

/**
 * Applies one operation.
 *
 * @example step(init({ runners: 2, timing }), { kind: "claim", atMs: 0, runner: 0 }).result // { _tag: "Success", value: [] }
 */
export const step = (state: CronModelState, operation: CronOperation): CronOutcome => {
  switch (operation.kind) {
    case "declare":
      return declare(state, operation)
    case "turn":
      return turn(state, operation)
    case "bootstrap":
      return bootstrap(state, operation)
    case "bootstrapAll":
      return bootstrapAll(state, operation)
    case "claim":
      return claim(state, operation)
    case "settle":
      return settle(state, operation, transaction)
    case "race":
      return race(state, operation)
    case "restart":
      return { state: dropClaims(state, operation.runner), result: { _tag: "Success", value: null }, rules: ["N8"], why: "a restarted runner holds no claims", covered: [] }
  }
}

/** The transaction runner `settle` uses (exported for it only). */
export type TransactionRunner = typeof transaction
