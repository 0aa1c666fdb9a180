/**
 * Cron scenarios: plain JSON that fast-check generates and shrinks and replay tokens carry. A
 * scenario starts at an anchor instant a little before a DST transition of a zone (or in a zone that
 * is not a whole hour off UTC), declares entries from a small pool, and runs commands of two runners:
 * turns, bootstraps (one runner, or all at once), claims and settling phases, clock moves across the
 * transition, redeployments (retargeting), restarts, and storage faults.
 */
import type { CronFault, CronTiming, EntryInput } from "../../models/cron/index.ts"

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
}

/** One command of a scenario. */
export type Command =
  | { readonly op: "declare"; readonly runner: number; readonly entries: ReadonlyArray<DeclaredEntrySpec> | null }
  | { readonly op: "turn"; readonly runner: number; readonly actorId: string; readonly turnMs: number; readonly rejected: boolean; readonly fault?: CronFault }
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
}
