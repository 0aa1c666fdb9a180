/**
 * The public API of the `cron` subject: cron ticks kept in an actor outbox (akter's `policy.cron`,
 * seed 001), across IANA zones, DST and several runners. Rule numbers (N1-N8) refer to
 * `reference/cron.md`.
 *
 * This file is the binding contract for every implementation the suite certifies: the shipped one
 * (`shippedCron` in `index.ts`), the known-bad variants, and third-party implementations. Names,
 * shapes and the persisted layout follow upstream (`actor_outbox`, `actor_receipts`,
 * `actor_generations`; `writeTicks`, `bootstrapTicks`, `settleUnfired`, `settleFired`, `ClaimedTick`),
 * so an upstream implementation binds with a thin wrapper. What upstream keeps in its outbox relay
 * (claiming with a lease, delivery with receipts) is part of this API as `CronRelay.claim` and
 * `CronRelay.deliver`, so the suite can drive each settling phase on its own: each phase of a relay is
 * exactly one storage transaction, and the harness interleaves phases of several runners.
 *
 * Determinism: time only through Effect's `Clock` (never the database clock), randomness (uuids) only
 * through Effect's `Random`.
 *
 * @example
 * ```ts
 * const cron = yield* shippedCron.make({ sql, dialect: "sqlite", retryWindowMs: 3_600_000 })
 * const schedule = yield* cron.defineSchedule({ skipMs: 60_000, entries: [{ spec: "30 2 * * *", zone: "America/New_York", command: "report", payload: "{}" }] })
 * yield* cron.bootstrapTicks({ tenant: "t", actor: "job", id: "a" }, schedule.entries)
 * const relay = cron.relay({ schedules: () => new Map([["job", schedule]]), leaseMs: 30_000 })
 * for (const tick of yield* relay.claim(16)) { ... }
 * ```
 */
import { Data, type Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { Dialect } from "../../adapters/contract.ts"

/** Timer keys the runtime keeps for cron entries; application intents may not use the prefix (N1). */
export const CRON_PREFIX = "$cron:"

/** An actor: tenant, actor type and id. */
export interface ActorRef {
  readonly tenant: string
  readonly actor: string
  readonly id: string
}

/** One entry as an application declares it. */
export interface CronEntryInput {
  /** Five cron fields (minute hour day-of-month month day-of-week) or `@every <n>(ms|s|m|h)`. */
  readonly spec: string
  /** IANA zone of the five fields (UTC when absent or null); ignored by `@every`. */
  readonly zone?: string | null
  readonly command: string
  /** JSON text delivered with the command. */
  readonly payload: string
}

/** A schedule as an application declares it for one actor type. */
export interface CronScheduleInput {
  /** A tick older than this when settled is skipped (N7). */
  readonly skipMs: number
  readonly entries: ReadonlyArray<CronEntryInput>
}

/** A declared entry (upstream `CronEntry`): its canonical timer key, command, payload and `next`. */
export interface CronEntry {
  readonly key: string
  readonly command: string
  readonly payload: Effect.Effect<string>
  /** The first scheduled instant strictly after `afterMs` (N2). */
  readonly next: (afterMs: number) => number
}

/** A declared schedule (upstream `CronSchedule`). */
export interface CronSchedule {
  readonly skipMs: number
  readonly entries: ReadonlyArray<CronEntry>
}

/** The claimed tick row the relay settles (upstream `ClaimedTick`); integers as text, as upstream reads them. */
export interface ClaimedTick {
  readonly tenant_id: string
  readonly actor_type: string
  readonly actor_id: string
  readonly routing_key: string
  readonly intent_id: string
  readonly command: string
  readonly payload: string
  readonly timer_key: string | null
  readonly scheduled_at: string
  /** The claim: the row's due_at while this runner holds it; every settling write is fenced on it. */
  readonly claimed_until: string
}

/** What `settleUnfired` says to deliver on this claim. */
export interface TickDelivery {
  readonly command: string
  readonly payload: string
}

/** What the actor's handler receives for one delivered command. */
export interface DeliveredCommand {
  readonly ref: ActorRef
  readonly commandId: string
  readonly timerKey: string | null
  readonly command: string
  readonly payload: string
}

/** The actor's command handler, run inside the delivery's transaction (its writes commit with the receipt). */
export type CommandHandler = (command: DeliveredCommand) => Effect.Effect<void>

/** How one delivery ended: the handler ran and its receipt committed, or a receipt replayed. */
export type DeliveryOutcome = "fired" | "replayed"

/** One runner's relay over cron ticks. Each method is one storage transaction. */
export interface CronRelay {
  /** Claims up to `limit` due `$cron:` rows of declared actor types, holding each until now + lease (N6). */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<ClaimedTick>, SqlError>
  /** Settles a tick that must not fire and returns undefined, or returns what to deliver on this claim (N7). */
  readonly settleUnfired: (tick: ClaimedTick, backoffMs: number) => Effect.Effect<TickDelivery | undefined, SqlError>
  /**
   * Delivers under the tick's id: replays a receipt of this id (of this command, or of any command: the
   * rules allow either keying), else runs the handler and commits a receipt.
   */
  readonly deliver: (tick: ClaimedTick, delivery: TickDelivery, handler: CommandHandler) => Effect.Effect<DeliveryOutcome, SqlError>
  /** Replaces a delivered tick's row with the entry's next tick, or deletes it when the entry is gone (N8). */
  readonly settleFired: (tick: ClaimedTick) => Effect.Effect<void, SqlError>
}

/** Options of a relay. */
export interface CronRelayOptions {
  /** The schedules this runner declares, by actor type (read at every phase: a deploy changes them). */
  readonly schedules: () => ReadonlyMap<string, CronSchedule>
  readonly leaseMs: number
}

/** A cron runtime over one database. */
export interface CronRuntime {
  /** Declares a schedule: parses and keys every entry (N1, N2). */
  readonly defineSchedule: (input: CronScheduleInput) => Effect.Effect<CronSchedule, InvalidCronEntryError | DuplicateCronKeyError>
  /** Writes the first tick of every entry `ref` has no pending tick for (N4); run inside the caller's transaction. */
  readonly writeTicks: (ref: ActorRef, entries: ReadonlyArray<CronEntry>, nowMs: number) => Effect.Effect<void, SqlError>
  /** Runs an actor turn (`body`) and writes its ticks in the same transaction; a failed turn writes none (N4). */
  readonly runTurn: <E>(ref: ActorRef, entries: ReadonlyArray<CronEntry>, body: Effect.Effect<void, E>) => Effect.Effect<void, E | SqlError>
  /** Writes a singleton's missing ticks at startup in one transaction (N5). */
  readonly bootstrapTicks: (ref: ActorRef, entries: ReadonlyArray<CronEntry>) => Effect.Effect<void, SqlError>
  /** A relay for one runner. */
  readonly relay: (options: CronRelayOptions) => CronRelay
}

/** What `make` receives. */
export interface CronMakeOptions {
  readonly sql: SqlClient.SqlClient
  readonly dialect: Dialect
  /** How long a tick id stays valid past its due time (N3). */
  readonly retryWindowMs: number
}

/** A cron implementation the suite can certify. */
export interface CronImplementation {
  /** Short stable name used in reports. */
  readonly name: string
  /** Builds the runtime, creating its tables when missing. */
  readonly make: (options: CronMakeOptions) => Effect.Effect<CronRuntime, SqlError>
}

/** An entry whose spec or zone cannot be parsed (N1). */
export class InvalidCronEntryError extends Data.TaggedError("InvalidCronEntryError")<{
  readonly spec: string
  readonly zone: string | null
  readonly reason: string
}> {
  override get message(): string {
    return `Invalid cron entry ${JSON.stringify(this.spec)} in zone ${this.zone ?? "UTC"}: ${this.reason}. ` +
      "Use five fields (minute hour day-of-month month day-of-week) and an IANA zone, or @every <n>ms|s|m|h of at least 1 s."
  }
}

/** Two entries of one schedule with one canonical timer key (N1). */
export class DuplicateCronKeyError extends Data.TaggedError("DuplicateCronKeyError")<{
  readonly key: string
}> {
  override get message(): string {
    return `Two cron entries share the timer key ${this.key}: equivalent spellings are one entry. Declare each schedule once.`
  }
}
