/**
 * The cron model's named situations: the rows of the cron coverage table (`harness/Coverage.ts`).
 *
 * A verdict says what held in the scenarios that ran; these names say what the scenarios exercised,
 * finer than the requirements a step credits. Each is decided from the model alone (the state before,
 * the operation and the model's outcome), never from the implementation, so the table means the same
 * for every implementation bound to the subject. The exceptions are the situations about what the
 * harness realised (`REALISED_SITUATIONS`: transactions that really overlapped on separate
 * connections), which the properties decide from what the harness saw (`properties/cron/realised.ts`).
 * Situations about a transaction's effects count only when its commit was kept (a fault that rolled
 * it back leaves only its fault situation). Rule numbers are those of `cron.md` as `spec/cron.ts` cites
 * them (I1-I4 the invariants, B1-B5 the historical bugs, in page order).
 */
import { FAULT_SITUATIONS } from "../../harness/Faults.ts"
import { offsetMinutes } from "./next.ts"
import { collapses, declaredEntry, type SettleDecision } from "./settle.ts"
import { type CronModelState, type CronOperation, type ModelRow, SINGLETON_ID } from "./state.ts"
import { type CronOutcome, type CronResult, heldByOthers } from "./step.ts"
import { fencedRowIndex, isTick, nextOf } from "./ticks.ts"

/** Every situation, in the order the coverage table lists them. */
export const CRON_SITUATIONS = [
  // N1 declarations refused
  "declarationRefusedInvalid",
  "declarationRefusedDuplicateKey",
  // N1 keys of two entries one day field apart, one of them a star (a restricted pair joins by OR)
  "declaredDayFieldsApart",
  // N2, B4: ticks written (or rewritten) at a zone's DST edges
  "tickDueAtGapEnd",
  "tickDueInFoldFirstPass",
  "tickDueAcrossFold",
  // N4, B2, I1: ticks written in a turn
  "turnKeptExistingTick",
  "turnRejectedWroteNothing",
  "turnInstantPassedDuringTurn",
  // N5, I1: bootstraps
  "bootstrapKeptExistingTicks",
  "bootstrapAllSharedEntry",
  "bootstrapAllConcurrent",
  // N6, I2, B5: claims
  "claimAtExactDueInstant",
  "claimByUndeclaringRunnerWithDueTicks",
  "claimWhileOtherHoldsLease",
  "claimTookOverLapsedLease",
  // N7: decisions before delivery, each counted when its transaction committed (the delivery is the
  // next phase), and the skip window's boundary
  "undeclaredStaleDeleted",
  "undeclaredReleasedWithBackoff",
  "staleSkipped",
  "deliveredAtSkipWindow",
  "entryCommandDelivered",
  "retargetedDelivered",
  // I4, B1: a retargeted tick that already fired
  "retargetedWithReceiptNotDelivered",
  // I2: receipts
  "deliveryReplayedReceipt",
  "crashBetweenReceiptAndRewrite",
  // N8, I3: after the receipt
  "firedEntryGoneDeleted",
  "missedInstantsCollapsed",
  // B5, N8: the fence on the claim
  "settlingWriteFenced",
  // storage faults, by how they struck
  "faultInsideTransaction",
  "faultAfterCommit",
  "faultLostReply",
  "faultCommitRefused",
  "faultStatementFailed",
  // N4, N5: a failed statement that struck a tick write (a turn's or a bootstrap's, with entries)
  "tickWriteStatementFailed",
  // N8: a failed statement that struck the rewrite of a delivered tick whose entry is still declared
  "firedRewriteStatementFailed",
  // races (I2, B5): by kind, and how the harness realised them
  "raceTwoClaims",
  "raceClaimAndSettle",
  "raceTwoSettles",
  "raceLockWait",
  "raceOverlapped"
] as const

/** One cron situation. */
export type CronSituation = typeof CRON_SITUATIONS[number]

/**
 * The situations decided from what the harness realised rather than from the model: two runners'
 * transactions that waited on one another's row lock or were open at once, and bootstraps run at once
 * on separate connections.
 */
export const REALISED_SITUATIONS = ["bootstrapAllConcurrent", "raceLockWait", "raceOverlapped"] as const satisfies ReadonlyArray<CronSituation>

type Fault = NonNullable<Extract<CronOperation, { kind: "claim" }>["fault"]>

const faultOf = (op: CronOperation): Fault | undefined => ("fault" in op ? op.fault : undefined)

/** The fault phase that struck the step's transaction, as the model's result shows it. */
const struckPhase = (op: CronOperation, result: CronResult): Fault["phase"] | undefined => {
  const fault = faultOf(op)
  if (fault === undefined) return undefined
  if (result._tag === "Crashed") return result.phase
  return result._tag === "Failure" && result.error === "SqlError" ? fault.phase : undefined
}

/** Whether the step's transaction (if any) kept its commit: it succeeded, crashed after its commit, or lost its reply. */
const keptCommit = (op: CronOperation, result: CronResult): boolean => {
  if (result._tag === "Success") return true
  if (result._tag === "Crashed") return result.phase === "afterCommit"
  return result.error === "SqlError" && faultOf(op)?.phase === "lostReply"
}


const MINUTE_MS = 60_000
const LOOK_MS = 3 * 3_600_000

/** Whether a forward DST jump (a gap) ends exactly at `atMs` in `zone`. */
const endsGap = (zone: string, atMs: number): boolean => offsetMinutes(zone, atMs - MINUTE_MS) < offsetMinutes(zone, atMs)

/** Whether the wall time `atMs` shows in `zone` is shown again later (a fold's first pass). */
const repeatsLater = (zone: string, atMs: number): boolean => {
  const shiftMinutes = offsetMinutes(zone, atMs) - offsetMinutes(zone, atMs + LOOK_MS)
  return shiftMinutes > 0 && offsetMinutes(zone, atMs + shiftMinutes * MINUTE_MS) < offsetMinutes(zone, atMs)
}


/** The zone of a five-field entry keyed `key` in any runner's schedule (null for `@every` or unknown). */
const zoneOfKey = (state: CronModelState, key: string): string | null => {
  for (const runner of state.runners) {
    const entry = declaredEntry(runner, key)
    if (entry !== undefined) return entry.schedule.kind === "cron" ? entry.schedule.zone : null
  }
  return null
}

/** N2/B4: the DST edges of the ticks written or rewritten at `nowMs` (rows with an id `before` lacks). */
const writtenTickSituations = (before: CronModelState, after: CronModelState, nowMs: number): Array<CronSituation> => {
  const known = new Set(before.rows.map((row) => row.intentId))
  const found: Array<CronSituation> = []
  for (const row of after.rows.filter((candidate) => !known.has(candidate.intentId))) {
    const zone = zoneOfKey(after, row.timerKey) ?? zoneOfKey(before, row.timerKey)
    if (zone === null) continue
    if (endsGap(zone, row.scheduledAtMs)) found.push("tickDueAtGapEnd")
    if (repeatsLater(zone, row.scheduledAtMs)) found.push("tickDueInFoldFirstPass")
    // The offset fell between the write and the due instant: the schedule's wall times crossed a fold.
    if (offsetMinutes(zone, nowMs) > offsetMinutes(zone, row.scheduledAtMs)) found.push("tickDueAcrossFold")
  }
  return found
}

type Op<K extends CronOperation["kind"]> = Extract<CronOperation, { kind: K }>

/**
 * Whether `op` writes ticks in its transaction (N4, N5): a turn that is not rejected or a bootstrap, of
 * a runner whose schedule has entries in `before`.
 */
const writesTicks = (before: CronModelState, op: CronOperation): boolean =>
  ((op.kind === "turn" && !op.rejected) || op.kind === "bootstrap") && (before.runners[op.runner]!.schedule?.entries.length ?? 0) > 0

/** Whether `op` settles a delivered tick whose entry the runner still declares: its settleFired rewrites the row (N8). */
const rewritesFiredTick = (before: CronModelState, op: CronOperation): boolean => {
  if (op.kind !== "settle") return false
  const runner = before.runners[op.runner]!
  const tick = runner.inFlight[0]
  return tick?.phase === "fired" && declaredEntry(runner, tick.timerKey) !== undefined
}

/** Five-field specs that differ in one day field only (day-of-month or day-of-week), one of the two a star, as written. */
const dayFieldsApart = (a: string, b: string): boolean => {
  const left = a.trim().split(/\s+/)
  const right = b.trim().split(/\s+/)
  if (left.length !== 5 || right.length !== 5) return false
  const differing = left.flatMap((field, index) => (field === right[index] ? [] : [index]))
  return differing.length === 1 && (differing[0] === 2 || differing[0] === 4) && (left[differing[0]] === "*" || right[differing[0]] === "*")
}

const declareSituations = (op: Op<"declare">, outcome: CronOutcome): Array<CronSituation> => {
  if (outcome.result._tag !== "Failure") {
    const entries = op.schedule?.entries ?? []
    const apart = entries.some((entry, index) => entries.slice(index + 1).some((other) => other.zone === entry.zone && dayFieldsApart(entry.spec, other.spec)))
    return apart ? ["declaredDayFieldsApart"] : []
  }
  if (outcome.result.error.startsWith("InvalidCronEntry")) return ["declarationRefusedInvalid"]
  return outcome.result.error.startsWith("DuplicateCronKey") ? ["declarationRefusedDuplicateKey"] : []
}

const ticksAlready = (state: CronModelState, actorId: string, keys: ReadonlyArray<string>): boolean =>
  state.rows.some((row) => row.actorId === actorId && keys.includes(row.timerKey))

const turnSituations = (before: CronModelState, op: Op<"turn">, outcome: CronOutcome): Array<CronSituation> => {
  const entries = before.runners[op.runner]!.schedule?.entries ?? []
  if (entries.length === 0) return []
  if (op.rejected) return outcome.result._tag === "Failure" && outcome.result.error === "TurnRejected" ? ["turnRejectedWroteNothing"] : []
  if (!keptCommit(op, outcome.result)) return []
  const found: Array<CronSituation> = []
  if (ticksAlready(before, op.actorId, entries.map((entry) => entry.key))) found.push("turnKeptExistingTick")
  if (entries.some((entry) => nextOf(entry, op.atMs) !== nextOf(entry, op.atMs + op.turnMs))) found.push("turnInstantPassedDuringTurn")
  return found
}

const bootstrapSituations = (before: CronModelState, op: Op<"bootstrap">, outcome: CronOutcome): Array<CronSituation> => {
  const keys = (before.runners[op.runner]!.schedule?.entries ?? []).map((entry) => entry.key)
  return keys.length > 0 && keptCommit(op, outcome.result) && ticksAlready(before, SINGLETON_ID, keys) ? ["bootstrapKeptExistingTicks"] : []
}

const bootstrapAllSituations = (before: CronModelState): Array<CronSituation> => {
  const keySets = before.runners.map((runner) => new Set((runner.schedule?.entries ?? []).map((entry) => entry.key)))
  const shared = keySets.some((keys, index) => keySets.some((other, position) => position > index && [...keys].some((key) => other.has(key))))
  return shared ? ["bootstrapAllSharedEntry"] : []
}

/** The rows (as they were before) that the claim `op` moved to its lease end. */
const claimedRows = (before: CronModelState, op: Op<"claim">, after: CronModelState): ReadonlyArray<ModelRow> => {
  const claimedUntilMs = op.atMs + before.timing.leaseMs
  const moved = new Set(after.rows.filter((row) => row.dueAtMs === claimedUntilMs).map((row) => row.intentId))
  return before.rows.filter((row) => moved.has(row.intentId) && isTick(row) && row.dueAtMs <= op.atMs)
}

const claimSituations = (before: CronModelState, op: Op<"claim">, outcome: CronOutcome): Array<CronSituation> => {
  if (!keptCommit(op, outcome.result)) return []
  const runner = before.runners[op.runner]!
  if (runner.schedule === null) {
    return before.rows.some((row) => isTick(row) && row.dueAtMs <= op.atMs) ? ["claimByUndeclaringRunnerWithDueTicks"] : []
  }
  const found: Array<CronSituation> = []
  const claimed = claimedRows(before, op, outcome.state)
  if (claimed.some((row) => row.dueAtMs === op.atMs)) found.push("claimAtExactDueInstant")
  if (heldByOthers(before, op.runner, op.atMs)) found.push("claimWhileOtherHoldsLease")
  const lapsed = claimed.some((row) =>
    before.runners.some((other, index) => index !== op.runner && other.inFlight.some((tick) => tick.intentId === row.intentId && tick.claimedUntilMs === row.dueAtMs))
  )
  if (lapsed) found.push("claimTookOverLapsedLease")
  return found
}

const DECISION_SITUATIONS: Partial<Record<SettleDecision, CronSituation>> = {
  undeclaredDeleted: "undeclaredStaleDeleted",
  undeclaredReleased: "undeclaredReleasedWithBackoff",
  staleRewritten: "staleSkipped",
  deliverEntryCommand: "entryCommandDelivered",
  deliverRetargeted: "retargetedDelivered",
  retargetRewritten: "retargetedWithReceiptNotDelivered",
  replayed: "deliveryReplayedReceipt",
  firedDeleted: "firedEntryGoneDeleted"
}

/** The decisions whose transaction writes the claimed row (fenced on the claim, N8). */
const WRITING: ReadonlySet<SettleDecision> = new Set(["undeclaredDeleted", "undeclaredReleased", "staleRewritten", "retargetRewritten", "firedDeleted", "firedRewritten"])

const settleSituations = (before: CronModelState, op: Op<"settle">, outcome: CronOutcome): Array<CronSituation> => {
  const decision = outcome.settled
  if (decision === undefined || !keptCommit(op, outcome.result)) return []
  const runner = before.runners[op.runner]!
  const tick = runner.inFlight[0]!
  const held = fencedRowIndex(before, tick) >= 0
  const named = DECISION_SITUATIONS[decision]
  const found: Array<CronSituation> = named === undefined ? [] : [named]
  const delivering = decision === "deliverEntryCommand" || decision === "deliverRetargeted"
  if (delivering && op.atMs - tick.scheduledAtMs === runner.schedule!.skipMs) found.push("deliveredAtSkipWindow")
  const entry = declaredEntry(runner, tick.timerKey)
  const rewrites = decision === "firedRewritten" || decision === "retargetRewritten"
  if (rewrites && held && entry !== undefined && collapses(entry, tick, op.atMs)) found.push("missedInstantsCollapsed")
  if (WRITING.has(decision) && !held) found.push("settlingWriteFenced")
  // The receipt committed and the runner lost its claim (a crash after the commit, or a lost reply).
  if ((decision === "fired" || decision === "replayed") && outcome.result._tag !== "Success") found.push("crashBetweenReceiptAndRewrite")
  return found
}

const RACE_KINDS = { claimclaim: "raceTwoClaims", claimsettle: "raceClaimAndSettle", settleclaim: "raceClaimAndSettle", settlesettle: "raceTwoSettles" } as const

/** A race: its kind, then each operation's situations from the state it committed on, in commit order. */
const raceSituations = (before: CronModelState, op: Op<"race">, outcome: CronOutcome): Array<CronSituation> => {
  const kind = op.ops.map((part) => part.kind).join("") as keyof typeof RACE_KINDS
  const found: Array<CronSituation> = RACE_KINDS[kind] === undefined ? [] : [RACE_KINDS[kind]]
  let state = before
  for (const index of op.order) {
    const part = outcome.parts?.[index]
    const raced = op.ops[index]
    if (part === undefined || raced === undefined) continue
    found.push(...cronSituations(state, { kind: raced.kind, atMs: op.atMs, runner: raced.runner }, part))
    state = part.state
  }
  return found
}

const operationSituations = (before: CronModelState, op: CronOperation, outcome: CronOutcome): Array<CronSituation> => {
  switch (op.kind) {
    case "declare":
      return declareSituations(op, outcome)
    case "turn":
      return turnSituations(before, op, outcome)
    case "bootstrap":
      return bootstrapSituations(before, op, outcome)
    case "bootstrapAll":
      return bootstrapAllSituations(before)
    case "claim":
      return claimSituations(before, op, outcome)
    case "settle":
      return settleSituations(before, op, outcome)
    case "race":
      return raceSituations(before, op, outcome)
    case "restart":
      return []
  }
}

/**
 * The situations one model step reached, each once: `before` is the state the step started from,
 * `outcome` the model's `step(before, op)`. Harness-realised situations (`REALISED_SITUATIONS`) are
 * never among them.
 *
 * @example cronSituations(state, { kind: "settle", atMs, runner: 0 }, step(state, { kind: "settle", atMs, runner: 0 })) // ["staleSkipped"]
 */
export const cronSituations = (before: CronModelState, op: CronOperation, outcome: CronOutcome): ReadonlyArray<CronSituation> => {
  const found = operationSituations(before, op, outcome)
  // A race's parts already said what they wrote.
  if (op.kind !== "race") found.push(...writtenTickSituations(before, outcome.state, op.kind === "turn" ? op.atMs + op.turnMs : op.atMs))
  const phase = struckPhase(op, outcome.result)
  if (phase !== undefined) found.push(FAULT_SITUATIONS[phase])
  if (phase === "statementFails" && writesTicks(before, op)) found.push("tickWriteStatementFailed")
  if (phase === "statementFails" && rewritesFiredTick(before, op)) found.push("firedRewriteStatementFailed")
  return [...new Set(found)]
}
