/**
 * What the pool properties compare after each step, and the rules deciding each observable
 * (`reference/pool.md`). Statuses and the times a retried checkout's attempts began (read on Effect's
 * Clock by the caller code) come from the caller's side (the driver); statement counts, the
 * notify session's transaction status and the session count from the wire tap, never from the pool.
 * The rules of a status check say why the model expects that status, so a mismatch is attributed to
 * the requirement it breaks (admission, the gate's order, a leak after interruption, the retry helper).
 */
import type { Check } from "../../harness/ModelBased.ts"
import type { WireStatement } from "../../harness/PostgresWireTap.ts"
import type { ModelOp, PoolModelState } from "../../models/pool/index.ts"
import { LISTEN_CHANNEL, type SeenOp } from "./driver.ts"

const TAG = /pool-op-([a-z0-9]+)/

/** The checkout a statement belongs to (by the tag in its text or parameters), or null. */
export const statementOwner = (statement: WireStatement): string | null => {
  if (/^\s*(UN)?LISTEN\b/i.test(statement.text)) return null
  const match = TAG.exec(statement.text) ?? statement.params.map((param) => (param === null ? null : TAG.exec(param))).find((found) => found != null)
  return match?.[1] ?? null
}

/** Tagged statements per checkout. */
export const statementsByOwner = (statements: ReadonlyArray<WireStatement>): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  for (const statement of statements) {
    const owner = statementOwner(statement)
    if (owner !== null) counts.set(owner, (counts.get(owner) ?? 0) + 1)
  }
  return counts
}

/** Whether `statement` sends a notification (`pg_notify(...)` or a `NOTIFY` statement). */
export const isNotifyStatement = (statement: WireStatement): boolean => /pg_notify/i.test(statement.text) || /^\s*NOTIFY\b/i.test(statement.text)

/**
 * The statements of the transaction `statement` ran in, on its session: from the statement sent while
 * the session was idle that opened it (its BEGIN) to the last one before the session was idle again;
 * just `statement` when it ran outside a transaction.
 */
export const transactionOf = (statements: ReadonlyArray<WireStatement>, statement: WireStatement): ReadonlyArray<WireStatement> => {
  if (statement.transactionStatus === "I") return [statement]
  const session = statements.filter((other) => other.session === statement.session)
  const at = session.findIndex((other) => other.seq === statement.seq)
  let first = at
  while (first > 0 && session[first]!.transactionStatus !== "I") first -= 1
  let last = at
  while (last + 1 < session.length && session[last + 1]!.transactionStatus !== "I") last += 1
  return session.slice(first, last + 1)
}

/**
 * Whether `statement` ran inside a transaction in which another checkout sent a statement (the
 * caller's transaction, P6): a transaction of the statement's own checkout is not the caller's.
 */
export const inAnotherCheckoutsTransaction = (statements: ReadonlyArray<WireStatement>, statement: WireStatement): boolean => {
  const owner = statementOwner(statement)
  return transactionOf(statements, statement).some((other) => {
    const otherOwner = statementOwner(other)
    return otherOwner !== null && otherOwner !== owner
  })
}

const REASONS: Readonly<Record<string, string>> = {
  I1: "the checkout past maxConnections + 64 is refused at once, never queued",
  I3: "the gate grants slots first come, first served, and hands a freed slot to the oldest waiter",
  I4: "every slot an interrupted checkout held or was handed comes back, so the next waiter gets it",
  I5: "a statement that reached the server is never retried",
  P1: "admission refuses exactly when maxConnections + 64 checkouts are admitted",
  P2: "the gate hands a freed slot to the oldest waiter",
  P4: "a statement inside a transaction uses the transaction's connection and takes no slot",
  P5: "COMMIT answered with ROLLBACK fails the transaction",
  P6: "notify rejects channels over 63 UTF-8 bytes and uses a checkout of its own, so it commits at once and reaches every listener holding its checkout",
  P7: "the retry helper retries only pool refusals, 10 ms doubling up to 250 ms on the virtual clock"
}

/** One sentence saying why, from the first rule that has one. */
const reasonOf = (rules: ReadonlyArray<string>): string =>
  rules.map((rule) => REASONS[rule]).find((reason) => reason !== undefined) ?? "the model's admission, gate and slots say so"

/** Why the model expects `op`'s status, as rules. */
export const statusRules = (op: ModelOp, state: PoolModelState, seen: SeenOp): ReadonlyArray<string> => {
  const spec = op.spec
  if (seen.failure === "staleReply") return ["I4", "P4"]
  if (op.inFlight === "commit") return spec.failing ? ["P5"] : ["I4", "P4"]
  if (op.failure === "error" && seen.failure === "refusal") return ["I5", "P7"]
  if (spec.kind === "transaction" && spec.failing && op.status === "failed" && seen.status === "succeeded") return ["P5"]
  if (spec.retry && op.failure === "error" && seen.status === "pending") return op.statements > 0 ? ["I5", "P7"] : ["P7"]
  if (spec.kind === "notify" && spec.longChannel) return ["P6"]
  if (spec.inside !== null) return spec.kind === "notify" ? ["P6"] : ["P4"]
  if (spec.retry && op.failure === "error") return ["I5", "P7"]
  if (spec.retry && op.refusals > 0) return ["P7"]
  if (op.failure === "refusal") return seen.status === "pending" || seen.status === "holding" ? ["I1", "P1"] : ["P1"]
  if (seen.failure === "refusal") return ["P1"]
  if (spec.kind === "transaction" && spec.failing && op.status === "failed") return ["P5"]
  const expectedAhead = op.status !== "pending"
  const seenAhead = seen.status !== "pending"
  if (!expectedAhead && seenAhead) return ["I3", "P2"]
  if (expectedAhead && !seenAhead) return op.grantedBy === "passedOn" || state.interruptions > 0 ? ["I4", "P4", "P2"] : ["I3", "P2"]
  return ["P2"]
}

/**
 * What a checkout interrupted while the server had its COMMIT may also show: the commit is the
 * server's, so the caller may see its answer instead of the interruption; never success for a COMMIT
 * answered with ROLLBACK (P5).
 */
const commitAnswer = (op: ModelOp): { readonly status: string; readonly failure: string | null } | null =>
  op.inFlight !== "commit" ? null : op.spec.failing ? { status: "failed", failure: "error" } : { status: "succeeded", failure: null }

/**
 * What a listener must have received: its sure deliveries in order; a delivery that raced its LISTEN
 * (granted in the same step) may be there once or not at all, and is set aside before comparing.
 */
const listenerCheck = (id: string, op: ModelOp, seen: SeenOp): Check => {
  const unsure = op.received.filter((delivery) => !delivery.sure).map((delivery) => `${LISTEN_CHANNEL}:${delivery.payload}`)
  const actual = [...seen.received]
  for (const entry of unsure) {
    const index = actual.indexOf(entry)
    if (index >= 0) actual.splice(index, 1)
  }
  return {
    observable: `notifications listener ${id} received`,
    expected: op.received.filter((delivery) => delivery.sure).map((delivery) => `${LISTEN_CHANNEL}:${delivery.payload}`),
    actual,
    rules: ["P6"],
    why: "a notify on its own checkout commits at once and reaches every listener holding its checkout, once, on its channel, with its payload, in the order sent"
  }
}

/**
 * When a retried checkout's attempts began, in ms after its first: the model's ladder (10 ms doubling,
 * capped at 250 ms, on the virtual clock) against what the caller code read on Effect's Clock at each.
 */
const attemptsCheck = (id: string, op: ModelOp, seen: SeenOp): Check => {
  const startMs = op.attemptsAtMs[0] ?? 0
  return {
    observable: `attempts of ${id} (ms after its start)`,
    expected: op.attemptsAtMs.map((atMs) => atMs - startMs),
    actual: seen.attemptsAtMs.map((atMs) => atMs - startMs),
    rules: ["P7"],
    why: REASONS["P7"]!
  }
}

/** Rules of a checkout's tagged-statement count. */
const statementRules = (op: ModelOp, sent: number): ReadonlyArray<string> => {
  if (op.spec.kind === "notify") return ["P6"]
  if (op.failure === "refusal" || (op.refusals > 0 && op.statements === 0)) return ["I2", "P1"]
  if (op.spec.retry && sent > op.statements) return ["I5", "P7"]
  if (op.spec.inside !== null) return ["P4"]
  return ["P2"]
}

/** Every observable of one step, finest first. */
export const poolChecks = (
  state: PoolModelState,
  seen: (id: string) => SeenOp,
  statements: ReadonlyArray<WireStatement>,
  openSessions: number
): ReadonlyArray<Check> => {
  const counts = statementsByOwner(statements)
  const checks: Array<Check> = [{
    observable: "checkouts still running after the harness interrupted them and the system was quiet",
    expected: [],
    actual: state.order.filter((id) => seen(id).ignoredInterrupt),
    rules: ["P4"],
    why: "a checkout's slots belong to its scope, so cancelling it ends its wait at once; a wait that ignores cancellation holds its turn until some connection is released"
  }]
  for (const id of state.order) {
    const op = state.ops[id]!
    const actual = seen(id)
    const rules = statusRules(op, state, actual)
    const answer = commitAnswer(op)
    const answered = answer !== null && answer.status === actual.status && answer.failure === actual.failure
    checks.push({
      observable: `checkout ${id} (${op.spec.kind})${op.inFlight === null ? "" : `, interrupted while the server had its ${op.inFlight === "commit" ? "COMMIT" : "statement"}`}`,
      expected: answered ? { status: actual.status, failure: actual.failure } : { status: op.status, failure: op.failure },
      actual: { status: actual.status, failure: actual.failure },
      rules,
      why: actual.failure === "staleReply"
        ? "a connection whose statement was interrupted in flight is drained or discarded, never handed to the next caller with the old reply unread"
        : reasonOf(rules)
    })
  }
  for (const id of state.order) {
    const op = state.ops[id]!
    if (op.spec.kind === "listen") checks.push(listenerCheck(id, op, seen(id)))
    if (op.spec.retry) checks.push(attemptsCheck(id, op, seen(id)))
  }
  for (const id of state.order) {
    const op = state.ops[id]!
    const sent = counts.get(id) ?? 0
    const tolerated = op.raced && sent <= 1
    const rules = statementRules(op, sent)
    checks.push({
      observable: `statements of ${id} on the wire`,
      expected: tolerated ? "0 or 1 (interrupted at the hand-over)" : op.statements,
      actual: tolerated ? "0 or 1 (interrupted at the hand-over)" : sent,
      rules,
      why: `${reasonOf(rules)}; a granted checkout sends its statement once`
    })
  }
  const notifiesInTransactions = statements.filter((statement) => isNotifyStatement(statement) && inAnotherCheckoutsTransaction(statements, statement))
    .map((statement) => statementOwner(statement))
  checks.push({
    observable: "notify statements sent inside another checkout's transaction",
    expected: [],
    actual: notifiesInTransactions,
    rules: ["P6"],
    why: "notify uses a checkout of its own, outside the caller's transaction"
  })
  // Sampled when the system is quiet: a session the driver retires after an interrupted statement may
  // overlap its replacement for a moment, which is the driver's business, not a waiter of its own.
  checks.push({
    observable: "server sessions open when quiet",
    expected: `at most ${state.maxConnections}`,
    actual: openSessions <= state.maxConnections ? `at most ${state.maxConnections}` : `${openSessions}`,
    rules: ["P3"],
    why: "checkouts reach the driver pool only after the gate, so it never opens more sessions than connections"
  })
  return checks
}
