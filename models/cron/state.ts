/**
 * The cron model's state and operations: plain JSON. One tenant (`t`) and one actor type (`job`);
 * actors are named by id. Tick ids are `v1.<now>.<expiry>.m<n>`: the model cannot know an
 * implementation's uuids, so the harness compares ids by their first appearance (see the properties).
 */
import type { ParsedSchedule } from "./fields.ts"
import { compareCodeUnits } from "../../harness/CodeUnitOrder.ts"

/** The tenant every scenario runs in. */
export const TENANT = "t"
/** The actor type every schedule is declared for. */
export const ACTOR_TYPE = "job"
/** The singleton actor `bootstrapTicks` writes for. */
export const SINGLETON_ID = "a"

/** One entry as declared: a spec (five fields or `@every`), its zone, and the command it delivers. */
export interface EntryInput {
  readonly spec: string
  readonly zone: string | null
  readonly command: string
  /** JSON text delivered with the command. */
  readonly payload: string
}

/** A schedule as declared for the actor type: entries and the skip window (N7). */
export interface ScheduleInput {
  readonly skipMs: number
  readonly entries: ReadonlyArray<EntryInput>
}

/** A declared entry, parsed. */
export interface ModelEntry {
  readonly key: string
  readonly command: string
  readonly payload: string
  readonly schedule: ParsedSchedule
}

/** A runner's declared schedule for the actor type. */
export interface ModelSchedule {
  readonly skipMs: number
  readonly entries: ReadonlyArray<ModelEntry>
}

/** One pending outbox row (N4). */
export interface ModelRow {
  readonly actorId: string
  readonly timerKey: string
  readonly intentId: string
  readonly dueAtMs: number
  readonly scheduledAtMs: number
  readonly command: string
  readonly payload: string
  readonly attempts: number
  readonly lastError: string | null
  readonly ambiguous: boolean
}

/** A committed receipt: the actor ran `command` under `commandId`. */
export interface ModelReceipt {
  readonly actorId: string
  readonly commandId: string
  readonly command: string
}

/** One delivery the actor's handler committed. */
export interface ModelFired {
  readonly commandId: string
  readonly actorId: string
  readonly timerKey: string
  readonly command: string
  readonly payload: string
  readonly atMs: number
}

/** Where a claimed tick is in its settling (each phase is one storage transaction). */
export type TickPhase = "claimed" | "deliver" | "fired"

/** A tick a runner holds: the row as claimed, its claim, and its phase. */
export interface InFlightTick {
  readonly actorId: string
  readonly timerKey: string
  readonly intentId: string
  readonly command: string
  readonly payload: string
  readonly scheduledAtMs: number
  readonly claimedUntilMs: number
  readonly phase: TickPhase
  /** What the deliver phase delivers (set by settleUnfired). */
  readonly delivery: { readonly command: string; readonly payload: string } | null
}

/** One runner process: its declared schedule (null: it does not declare the actor type) and its claims. */
export interface ModelRunner {
  readonly schedule: ModelSchedule | null
  readonly inFlight: ReadonlyArray<InFlightTick>
}

/** Timing the model and the implementation share. */
export interface CronTiming {
  readonly retryWindowMs: number
  readonly leaseMs: number
  readonly backoffMs: number
}

/** The whole model state. */
export interface CronModelState {
  readonly timing: CronTiming
  readonly rows: ReadonlyArray<ModelRow>
  readonly receipts: ReadonlyArray<ModelReceipt>
  readonly fired: ReadonlyArray<ModelFired>
  readonly generations: ReadonlyArray<string>
  readonly runners: ReadonlyArray<ModelRunner>
  /** Counter of the model's stand-in uuids. */
  readonly uuids: number
}

/** What `init` takes. */
export interface CronInitOptions {
  readonly runners: number
  readonly timing: CronTiming
}

/**
 * A storage fault the model gives the same meaning as the storage boundary (`harness/Faults.ts`).
 * `commitRefused`: the operation's transaction body ran to its end, then the database refused the
 * COMMIT (a serialization failure), so nothing of that transaction is kept, the caller sees the
 * `SqlError`, and the runner's process goes on with what it keeps in memory (its declared schedule).
 * `statementFails`: one of the transaction's statements failed and the transaction rolled back, before anything the
 * body would have failed on: the same outcome. The model is given it only when it struck
 * (`harness/StruckFault.ts`): a transaction that ran fewer statements was refused at COMMIT instead,
 * and one whose body failed first was not struck.
 */
export interface CronFault {
  readonly transaction: number
  readonly phase: "inside" | "afterCommit" | "lostReply" | "commitRefused" | "statementFails"
  /** For `statementFails`: which outermost-level statement fails (the harness says whether it struck). */
  readonly statement?: number
}

/** One operation, at virtual time `atMs`. */
export type CronOperation =
  | { readonly kind: "declare"; readonly atMs: number; readonly runner: number; readonly schedule: ScheduleInput | null }
  | { readonly kind: "turn"; readonly atMs: number; readonly runner: number; readonly actorId: string; readonly turnMs: number; readonly rejected: boolean; readonly fault?: CronFault }
  | { readonly kind: "bootstrap"; readonly atMs: number; readonly runner: number; readonly fault?: CronFault }
  /** Every runner bootstraps at once; `winners` names, per timer key, the runner whose insert landed. */
  | { readonly kind: "bootstrapAll"; readonly atMs: number; readonly winners: Readonly<Record<string, number>> }
  | { readonly kind: "claim"; readonly atMs: number; readonly runner: number; readonly fault?: CronFault }
  /** `receiptsKeyedById`: the other reading of receipts the rules allow (`receiptReadings.ts`). */
  | { readonly kind: "settle"; readonly atMs: number; readonly runner: number; readonly fault?: CronFault; readonly receiptsKeyedById?: boolean }
  | { readonly kind: "restart"; readonly atMs: number; readonly runner: number }
  /**
   * Claims or settling phases of different runners whose transactions overlap; `order` says which commits
   * first (the one released first holds its writes while the others run into them). The outcome is
   * theirs one after the other in `order`; the result lists each operation's, in `ops` order.
   */
  | { readonly kind: "race"; readonly atMs: number; readonly ops: ReadonlyArray<RaceOperation>; readonly order: ReadonlyArray<number>; readonly receiptsKeyedById?: boolean }

/** One operation of a race: a claim or a settling phase of one runner, without faults. */
export interface RaceOperation {
  readonly kind: "claim" | "settle"
  readonly runner: number
}

/** Sorts rows by (actor, timer key): the order observations use. */
export const sortRows = (rows: ReadonlyArray<ModelRow>): ReadonlyArray<ModelRow> =>
  [...rows].sort((a, b) => compareCodeUnits(a.actorId, b.actorId) || compareCodeUnits(a.timerKey, b.timerKey))
