/**
 * Cron scenarios: plain JSON that fast-check generates and shrinks and replay tokens carry. A
 * scenario starts at an anchor instant a little before a DST transition of a zone (or in a zone that
 * is not a whole hour off UTC), declares entries from a small pool, and runs commands of two runners:
 * turns, bootstraps (one runner, or all at once), claims and settling phases, clock moves across the
 * transition, redeployments (retargeting), restarts, and storage faults.
 */
import type { CronFault, CronTiming, EntryInput } from "../../models/cron/index.ts"
import type { NeighbourChange } from "./spellings.ts"

/** Runners every scenario has. */
export const RUNNERS = 2

/** Actors ticks are written for: `a` is also the singleton `bootstrapTicks` writes for. */
export const ACTORS = ["a", "b"] as const

/** Timing shared by model and implementation. */
export const TIMING: CronTiming = { retryWindowMs: 3_600_000, leaseMs: 30_000, backoffMs: 10_000 }

/** Claims take at most this many rows (scenarios never hold more). */
export const CLAIM_LIMIT = 16

/** An anchor: where virtual time jumps first, in a zone with something to cross. */
export interface Anchor {
  readonly zone: string
  readonly atMs: number
  /** What lies ahead, in words. */
  readonly note: string
}

/** The anchors: a few hours before each 2026 transition of the zones the issue names. */
export const ANCHORS: ReadonlyArray<Anchor> = [
  { zone: "America/New_York", atMs: Date.UTC(2026, 2, 8, 5, 30), note: "DST gap 02:00 -> 03:00" },
  { zone: "America/New_York", atMs: Date.UTC(2026, 10, 1, 4, 30), note: "DST fold 02:00 -> 01:00" },
  { zone: "Europe/London", atMs: Date.UTC(2026, 2, 28, 23, 40), note: "DST gap 01:00 -> 02:00" },
  { zone: "Europe/London", atMs: Date.UTC(2026, 9, 24, 23, 40), note: "DST fold 02:00 -> 01:00" },
  { zone: "Australia/Lord_Howe", atMs: Date.UTC(2026, 3, 4, 14, 10), note: "30-minute fold 02:00 -> 01:30" },
  { zone: "Australia/Lord_Howe", atMs: Date.UTC(2026, 9, 3, 14, 40), note: "30-minute gap 02:00 -> 02:30" },
  { zone: "Asia/Kathmandu", atMs: Date.UTC(2026, 0, 1, 20, 0), note: "UTC+05:45, no DST" }
]

/** A declared entry: a pool entry with the command this runner's deploy gives it. */
export interface DeclaredEntrySpec {
  readonly index: number
  readonly command: string
  /** The pool entry's spec in another spelling of its meaning (`spellings.ts`: N1, the same key). */
  readonly respelled?: boolean
  /** The pool entry's spec with one field's meaning changed (`spellings.ts` `neighbour`: N1, the model says whether the key changes). */
  readonly neighbour?: NeighbourChange
}

/** One command of a scenario. */
export type Command =
  | { readonly op: "declare"; readonly runner: number; readonly entries: ReadonlyArray<DeclaredEntrySpec> | null }
  /**
   * An actor turn. `ownTransaction` (set by `runningCommands` from `CronScenario.ownTurns`): the
   * application runs the turn in its own transaction and calls `writeTicks` at the time of the write,
   * instead of `runTurn`.
   */
  | { readonly op: "turn"; readonly runner: number; readonly actorId: string; readonly turnMs: number; readonly rejected: boolean; readonly fault?: CronFault; readonly ownTransaction?: boolean }
  | { readonly op: "bootstrap"; readonly runner: number; readonly fault?: CronFault }
  | { readonly op: "bootstrapAll"; readonly order: ReadonlyArray<number> }
  | { readonly op: "claim"; readonly runner: number; readonly fault?: CronFault }
  | { readonly op: "settle"; readonly runner: number; readonly fault?: CronFault }
  | { readonly op: "advance"; readonly ms: number }
  | { readonly op: "advanceToDue" }
  | { readonly op: "restart"; readonly runner: number }
  /**
   * A claim or settling phase of each of two runners, overlapping (truly concurrent transactions where
   * the adapter has independent connections): `order` says whose transaction commits first.
   */
  | { readonly op: "race"; readonly ops: ReadonlyArray<RaceOp>; readonly order: ReadonlyArray<number> }

/** One side of a race. */
export interface RaceOp {
  readonly op: "claim" | "settle"
  readonly runner: number
}

/** A whole scenario. */
export interface CronScenario {
  /** Index into `ANCHORS`. */
  readonly anchor: number
  readonly skipMs: number
  /** The entries deploys pick from (the zone of five-field entries is the anchor's or UTC). */
  readonly pool: ReadonlyArray<EntryInput>
  /** Offsets from the anchor at which every declared entry's `next` is compared with the model's. */
  readonly probesMs: ReadonlyArray<number>
  readonly commands: ReadonlyArray<Command>
  /**
   * Whether the outbox also holds rows no runner may claim (N6): a `$cron:` tick of an undeclared
   * actor type and application intents (`properties/cron/foreign.ts`). Absent: false.
   */
  readonly foreignRows?: boolean
  /**
   * Refused commits (fault scenarios only): the positions, counted from 0 among the commands that run
   * a storage transaction of their own (`turn`, `bootstrap`, `claim`, `settle`), whose transaction's
   * COMMIT the database refuses (`commitRefused`, replacing any fault drawn for that command); a
   * refused claim is followed by the runner's next poll, another claim. A position past the last such
   * command refuses nothing. Absent: none.
   */
  readonly refusedCommits?: ReadonlyArray<number>
  /**
   * Whether the application runs its turns in its own transaction and calls `writeTicks` itself
   * (N4: the ticks are written inside the actor's turn), instead of through `runTurn`. Absent: false.
   */
  readonly ownTurns?: boolean
  /**
   * `next` checks of specs no runner deploys (N2), in the anchor's zone: interval patterns whose hours
   * hold the transition's wall times, with restricted months, days and weekdays, so that whether a
   * wall time skipped by a gap matches decides the answer. Each is compared with the model at
   * `anchor + afterMs` on the step of the first declaration. Absent: none.
   */
  readonly specProbes?: ReadonlyArray<SpecProbe>
  /**
   * Failed statements (fault scenarios only): positions counted as `refusedCommits` counts them, each
   * with the statement of its transaction that fails (`statementFails`, replacing any fault drawn for
   * that command; a position `refusedCommits` names stays refused). A claim that failed is followed by
   * the runner's next poll. Absent: none.
   */
  readonly failedStatements?: ReadonlyArray<FailedStatement>
  /**
   * Declarations appended after every other command (drawn last): `runner` declares pool entry
   * `index` twice, as written and respelled, which N1 refuses as one key declared twice
   * (`DuplicateCronKey`, naming the key), or as the entry's own refusal when it is invalid. A refused
   * declaration changes nothing, and nothing runs after it. Absent: none.
   */
  readonly respelledDeclarations?: ReadonlyArray<RespelledDeclaration>
  /**
   * Declarations appended after `respelledDeclarations` (drawn after everything else): `runner`
   * declares pool entry `index` as written and its neighbour one field apart (mostly a day field, often
   * starred: N1's OR of two restricted day fields), two keys unless the two mean the same schedule.
   * Absent: none.
   */
  readonly neighbourDeclarations?: ReadonlyArray<NeighbourDeclaration>
  /**
   * Episodes appended after the scenario's commands and before `respelledDeclarations` (drawn last):
   * `runner` claims its due ticks and settles the first one up to its delivery, then redeploys
   * `entries` (null: nothing), then settles it: N8 rewrites the delivered tick from the new schedule,
   * or deletes it when its entry is gone. Absent: none.
   */
  readonly redeploysBeforeRewrite?: ReadonlyArray<RedeployBeforeRewrite>
  /**
   * `next` checks like `specProbes` (drawn after everything else), of interval patterns restricted to
   * the local date of the anchor's transition (`datedProbes.ts`): when the transition's gap skips every
   * wall time they name, or its fold repeats them, croner's answer lies about a year ahead, so N2's
   * search spans days and the zone's other transition of the year. Absent: none.
   */
  readonly datedProbes?: ReadonlyArray<SpecProbe>
  /**
   * Turn episodes (drawn after `datedProbes`), run right after the opening (`OPENING_COMMANDS`, so a
   * counterexample they reach stays short): `runner` runs a turn of `actorId`, then a second one (N4:
   * the entries already tick, so insert-or-ignore keeps their rows; or it is `rejected` and writes
   * nothing), then bootstraps (N5: the singleton's ticks may already exist). Absent: none.
   */
  readonly turnEpisodes?: ReadonlyArray<TurnEpisode>
  /**
   * Late claims (drawn after `turnEpisodes`), run after `redeploysBeforeRewrite`: `runner` claims the next due ticks
   * exactly `skipMs` after they fell due (N7: not stale, delivered) or 1 ms later (stale: skipped, or
   * deleted when the runner does not declare the entry), then settles three phases, stopping to
   * declare the actor type before the third when `withdrawn` (N8: a delivered tick whose entry is gone
   * is deleted). Absent: none.
   */
  readonly lateClaims?: ReadonlyArray<LateClaim>
  /**
   * Crashes and lost replies (fault scenarios only, drawn after everything else): positions counted as
   * `refusedCommits` counts them, each with the phase that strikes that command's transaction
   * (`inside`, `afterCommit` or `lostReply`, replacing any fault drawn for it; a position
   * `refusedCommits` or `failedStatements` names keeps their fault). A claim struck so is followed by
   * the runner's next poll. Absent: none.
   */
  readonly crashes?: ReadonlyArray<PositionedCrash>
  /**
   * Delivery crashes (fault scenarios only, drawn after `crashes`), run after the `lateClaims`: `runner`
   * claims the next due ticks and settles the first one to its delivery, whose transaction commits the
   * receipt and then crashes or loses its reply, so the runner loses its claim between the receipt and
   * the rewrite; once its lease has run out it polls and settles three phases again (N8, I2: the
   * redelivery replays the receipt). Absent: none.
   */
  readonly deliveryCrashes?: ReadonlyArray<DeliveryCrash>
  /**
   * A failed tick write (fault scenarios only, drawn after everything else, `statementFaults.ts`), run
   * after every other command: a runner declares one pool entry, then its turn (through `runTurn`, not
   * rejected) or bootstrap has one statement of its transaction fail (N4, N5: the tick insert fails the
   * call and nothing of it is kept). Absent: none.
   */
  readonly failedTickWrite?: ReadonlyArray<Command>
}

/** One appended delivery crash (`CronScenario.deliveryCrashes`). */
export interface DeliveryCrash {
  readonly runner: number
  /** How the delivery's transaction ends after its commit. */
  readonly phase: "afterCommit" | "lostReply"
}

/** The commands of `crash`: due, claim, settle to the delivery, the struck delivery, the lease running out, the next poll and three phases. */
const deliveryCrash = (crash: DeliveryCrash): ReadonlyArray<Command> => [
  { op: "advanceToDue" },
  { op: "claim", runner: crash.runner },
  { op: "settle", runner: crash.runner },
  { op: "settle", runner: crash.runner, fault: { transaction: 1, phase: crash.phase } },
  { op: "advance", ms: TIMING.leaseMs + 1_000 },
  { op: "claim", runner: crash.runner },
  { op: "settle", runner: crash.runner },
  { op: "settle", runner: crash.runner },
  { op: "settle", runner: crash.runner }
]

/** One appended turn episode (`CronScenario.turnEpisodes`). */
export interface TurnEpisode {
  readonly runner: number
  readonly actorId: string
  readonly turnMs: number
  /** Whether the second turn is rejected. */
  readonly rejected: boolean
}

/** The commands of `episode`: a turn, a second turn of the same actor, a bootstrap (turns in the application's own transaction when `ownTurns`). */
const turnEpisode = (episode: TurnEpisode, ownTurns: boolean): ReadonlyArray<Command> => {
  const own = ownTurns ? { ownTransaction: true } : {}
  return [
    { op: "turn", runner: episode.runner, actorId: episode.actorId, turnMs: episode.turnMs, rejected: false, ...own },
    { op: "turn", runner: episode.runner, actorId: episode.actorId, turnMs: episode.turnMs, rejected: episode.rejected, ...own },
    { op: "bootstrap", runner: episode.runner }
  ]
}

/** One appended late claim (`CronScenario.lateClaims`). */
export interface LateClaim {
  readonly runner: number
  /** Whether the claim comes exactly at the skip window (else 1 ms past it). */
  readonly atWindow: boolean
  /** Whether the runner stops declaring the actor type before its third settling phase. */
  readonly withdrawn: boolean
}

/** The commands of `late` in a scenario whose skip window is `skipMs`. */
const lateClaim = (late: LateClaim, skipMs: number): ReadonlyArray<Command> => [
  { op: "advanceToDue" },
  { op: "advance", ms: late.atWindow ? skipMs : skipMs + 1 },
  { op: "claim", runner: late.runner },
  { op: "settle", runner: late.runner },
  { op: "settle", runner: late.runner },
  ...(late.withdrawn ? [{ op: "declare", runner: late.runner, entries: null } as const] : []),
  { op: "settle", runner: late.runner }
]

/** One crash or lost reply of a fault scenario (`CronScenario.crashes`). */
export interface PositionedCrash {
  /** Position among the commands that run a storage transaction of their own. */
  readonly position: number
  readonly phase: "inside" | "afterCommit" | "lostReply"
}

/** One appended redeploy between a delivery and its rewrite (`CronScenario.redeploysBeforeRewrite`). */
export interface RedeployBeforeRewrite {
  readonly runner: number
  readonly entries: ReadonlyArray<DeclaredEntrySpec> | null
}

/** The commands of `episode`: due, claim, settle to the delivery, redeploy, settle the rewrite. */
const redeployBeforeRewrite = (episode: RedeployBeforeRewrite): ReadonlyArray<Command> => [
  { op: "advanceToDue" },
  { op: "claim", runner: episode.runner },
  { op: "settle", runner: episode.runner },
  { op: "settle", runner: episode.runner },
  { op: "declare", runner: episode.runner, entries: episode.entries },
  { op: "settle", runner: episode.runner }
]

/** One appended duplicate-key declaration (`CronScenario.respelledDeclarations`). */
export interface RespelledDeclaration {
  readonly runner: number
  readonly index: number
}

/** One appended declaration of an entry beside its neighbour (`CronScenario.neighbourDeclarations`). */
export interface NeighbourDeclaration extends NeighbourChange {
  readonly runner: number
  readonly index: number
}

/** The appended declaration of `declared`: its pool entry as written, then its neighbour. */
const neighbourDeclaration = (declared: NeighbourDeclaration): Command => ({
  op: "declare",
  runner: declared.runner,
  entries: [{ index: declared.index, command: "ping" }, { index: declared.index, command: "pong", neighbour: { field: declared.field, toStar: declared.toStar, step: declared.step } }]
})

/** The appended declaration of `declared`: its pool entry as written, then respelled. */
const respelledDeclaration = (declared: RespelledDeclaration): Command => ({
  op: "declare",
  runner: declared.runner,
  entries: [{ index: declared.index, command: "ping" }, { index: declared.index, command: "pong", respelled: true }]
})

/** One failed statement of a fault scenario (`CronScenario.failedStatements`). */
export interface FailedStatement {
  /** Position among the commands that run a storage transaction of their own. */
  readonly position: number
  /** The statement of that transaction that fails (1-based, at its outermost level). */
  readonly statement: number
}

/** One `next` check of a spec no runner deploys (`CronScenario.specProbes`). */
export interface SpecProbe {
  readonly spec: string
  /** Offset from the anchor of the instant `next` is asked after. */
  readonly afterMs: number
}

/** Commands of a scenario's opening (`arbitraries.ts`): two declarations and the first ticks. */
export const OPENING_COMMANDS = 3

/** The storage fault a refused commit injects (`harness/Faults.ts`). */
export const REFUSED_COMMIT: CronFault = { transaction: 1, phase: "commitRefused" }

/**
 * The commands as they run: the scenario's commands with a refused commit on each position
 * `refusedCommits` names (see `CronScenario.refusedCommits`), each refused claim followed by the same
 * runner's next poll (a claim), likewise each failed statement and each of the `crashes`, and turns in
 * the application's own transaction when `ownTurns` holds, with the `turnEpisodes` after the opening;
 * then the `redeploysBeforeRewrite`, the `lateClaims`, the `deliveryCrashes`, the `respelledDeclarations`, the `neighbourDeclarations`
 * and the `failedTickWrite`.
 *
 * @example runningCommands({ ...scenario, refusedCommits: [0] }) // the first turn, bootstrap, claim or settle has fault REFUSED_COMMIT
 */
export const runningCommands = (scenario: CronScenario): ReadonlyArray<Command> => {
  // The opening runs no claim, so its commands are the first `OPENING_COMMANDS` faulted ones.
  const faulted = faultedCommands(scenario)
  return [
    ...faulted.slice(0, OPENING_COMMANDS),
    ...(scenario.turnEpisodes ?? []).flatMap((episode) => turnEpisode(episode, scenario.ownTurns === true)),
    ...faulted.slice(OPENING_COMMANDS),
    ...(scenario.redeploysBeforeRewrite ?? []).flatMap(redeployBeforeRewrite),
    ...(scenario.lateClaims ?? []).flatMap((late) => lateClaim(late, scenario.skipMs)),
    ...(scenario.deliveryCrashes ?? []).flatMap(deliveryCrash),
    ...(scenario.respelledDeclarations ?? []).map(respelledDeclaration),
    ...(scenario.neighbourDeclarations ?? []).map(neighbourDeclaration),
    ...(scenario.failedTickWrite ?? [])
  ]
}

/** The scenario's commands with their refused commits, failed statements, crashes and own-transaction turns. */
const faultedCommands = (scenario: CronScenario): ReadonlyArray<Command> => {
  const refused = new Set(scenario.refusedCommits ?? [])
  const failing = new Map((scenario.failedStatements ?? []).map((failed) => [failed.position, failed.statement]))
  const crashing = new Map((scenario.crashes ?? []).map((crash) => [crash.position, crash.phase]))
  if (refused.size === 0 && failing.size === 0 && crashing.size === 0 && scenario.ownTurns !== true) return scenario.commands
  let position = 0
  return scenario.commands.flatMap((command): ReadonlyArray<Command> => {
    if (command.op !== "turn" && command.op !== "bootstrap" && command.op !== "claim" && command.op !== "settle") return [command]
    position += 1
    const refusedHere = refused.has(position - 1)
    const statement = refusedHere ? undefined : failing.get(position - 1)
    const crash = refusedHere || statement !== undefined ? undefined : crashing.get(position - 1)
    const fault: CronFault | undefined = refusedHere
      ? REFUSED_COMMIT
      : statement !== undefined
      ? { transaction: 1, phase: "statementFails", statement }
      : crash === undefined
      ? undefined
      : { transaction: 1, phase: crash }
    const faulted = fault === undefined ? command : { ...command, fault }
    if (faulted.op === "turn" && scenario.ownTurns === true) return [{ ...faulted, ownTransaction: true }]
    // A relay loop polls again after a failed claim: the retry finds the ticks the failed claim left due.
    return fault !== undefined && command.op === "claim" ? [faulted, { op: "claim", runner: command.runner }] : [faulted]
  })
}
