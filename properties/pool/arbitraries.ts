/**
 * Generators of pool scenarios: checkouts of every kind (acquire, transaction, borrowed statement,
 * listen, notify; retried, failing, nested in a transaction, long channels), releases with and
 * without an immediate re-checkout, interruptions while waiting, at the hand-over and while holding,
 * interruptions while the server holds a statement or a COMMIT (its reply held on the wire),
 * floods to the admission bound and past it, and virtual time for the retry helper; surface probes run
 * first (`surfaceScenario.ts`) on a pool built with or without a row-name transform; a targeted unit
 * (`targeted.ts`) may end the commands.
 */
import * as fc from "fast-check"
import type { PoolCommand } from "../../models/pool/index.ts"
import type { PoolScenario } from "./scenario.ts"
import { ownPoolProbe, surfaceProbe } from "./surfaceScenario.ts"
import { targetedCommands, type TargetedWeights } from "./targeted.ts"

/** Relative weights of the command kinds in one property's scenarios. */
export interface PoolScenarioShape {
  readonly start: number
  readonly release: number
  readonly interrupt: number
  readonly handoverInterrupt: number
  readonly flood: number
  readonly drain: number
  readonly advance: number
  /** Chance in 4 that a started checkout is wrapped in the retry helper (0-4). */
  readonly retryIn4: number
  /**
   * Chance in 8 that a started checkout's statement has its reply held on the wire and is interrupted
   * then (0-8; at 0 the field is not generated at all).
   */
  readonly holdIn8: number
  /** Weight of releases whose COMMIT's reply is held and interrupted (0: never). */
  readonly commitInFlight: number
  /**
   * Weight (against 10 for single commands) of two-command units that reach a rule only together: a
   * transaction (aborted or not) released right away (P5), a listener and then a notify (P6 delivery).
   * 0: single commands only.
   */
  readonly units: number
  /** Most surface probes run before the commands (`surfaceScenario.ts`; 0: none). */
  readonly surface: number
  /** Relative weights of the targeted units a scenario may end with (`targeted.ts`). */
  readonly targeted: TargetedWeights
  /** Chance in 4 that a scenario ends with a targeted unit (0-4; 0: never). */
  readonly targetedIn4: number
}

/** `{ [field]: roll < holdIn8 }`, shrinking to false, or nothing when the shape never holds replies. */
const holdField = <K extends string>(field: K, holdIn8: number): Record<K, fc.Arbitrary<boolean>> =>
  (holdIn8 <= 0 ? {} : { [field]: fc.nat({ max: 7 }).map((roll) => roll < holdIn8) }) as Record<K, fc.Arbitrary<boolean>>

const startWith = (retryIn4: number, holdIn8: number): fc.Arbitrary<PoolCommand> =>
  fc.record({
    op: fc.constant("start" as const),
    kind: fc.constantFrom("acquire" as const, "transaction" as const, "borrow" as const, "listen" as const, "notify" as const),
    retry: fc.nat({ max: 3 }).map((roll) => roll < retryIn4),
    failing: fc.nat({ max: 3 }).map((roll) => roll === 0),
    longChannel: fc.boolean(),
    inside: fc.option(fc.nat({ max: 3 }), { nil: null }),
    // Where a reply is held is generated data: it shrinks to false (no hold).
    ...holdField("holdReply", holdIn8)
  }, { noNullPrototype: true })

const commandOf = (shape: PoolScenarioShape): fc.Arbitrary<PoolCommand> =>
  fc.oneof(
    { arbitrary: startWith(shape.retryIn4, shape.holdIn8), weight: shape.start },
    { arbitrary: fc.record({ op: fc.constant("release" as const), pick: fc.nat({ max: 7 }), reborrow: fc.boolean() }, { noNullPrototype: true }), weight: shape.release },
    // A release whose COMMIT has its reply held and is interrupted then: its own command, so plain
    // releases (an aborted transaction's COMMIT answered with ROLLBACK) stay as frequent as they were.
    ...(shape.commitInFlight > 0
      ? [{ arbitrary: fc.record({ op: fc.constant("release" as const), pick: fc.nat({ max: 7 }), reborrow: fc.constant(false), holdCommit: fc.constant(true) }, { noNullPrototype: true }), weight: shape.commitInFlight }]
      : []),
    { arbitrary: fc.record({ op: fc.constant("interrupt" as const), pick: fc.nat({ max: 7 }), waiting: fc.boolean() }, { noNullPrototype: true }), weight: shape.interrupt },
    { arbitrary: fc.record({ op: fc.constant("handoverInterrupt" as const), pick: fc.nat({ max: 7 }) }, { noNullPrototype: true }), weight: shape.handoverInterrupt },
    { arbitrary: fc.record({ op: fc.constant("flood" as const), extra: fc.nat({ max: 3 }) }, { noNullPrototype: true }), weight: shape.flood },
    { arbitrary: fc.constant({ op: "drain" as const }), weight: shape.drain },
    { arbitrary: fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 300 }) }, { noNullPrototype: true }), weight: shape.advance }
  )

/** The general mix: every kind of checkout, releases, interruptions, occasional floods and clock. */
export const MODEL_SHAPE: PoolScenarioShape = { start: 6, release: 4, interrupt: 2, handoverInterrupt: 2, flood: 1, drain: 1, advance: 2, retryIn4: 2, holdIn8: 2, commitInFlight: 1, units: 2, surface: 2, targeted: { commitInFlight: 2, nested: 1 }, targetedIn4: 3 }

/** Admission and the retry helper: floods to the bound and past it, retried checkouts, virtual time. */
export const ADMISSION_SHAPE: PoolScenarioShape = { start: 5, release: 2, interrupt: 1, handoverInterrupt: 1, flood: 3, drain: 3, advance: 4, retryIn4: 3, holdIn8: 0, commitInFlight: 0, units: 0, surface: 2, targeted: { retryLadder: 1 }, targetedIn4: 2 }

/**
 * Most commands drawn in one scenario (each may start, release or interrupt checkouts on a real
 * server); a targeted unit of at most `MAX_TARGETED_COMMANDS` may follow.
 */
export const MAX_POOL_COMMANDS = 14

const plainStart = (kind: "transaction" | "listen" | "notify", failing: boolean): PoolCommand =>
  ({ op: "start", kind, retry: false, failing, longChannel: false, inside: null })

/** Most probes on a pool of their own per scenario (`ownPoolProbe`). */
export const OWN_POOL_PROBES = 1

/** Two-command units: a transaction released at once (pick -1: the newest holder), a listener then a notify. */
const unitOf: fc.Arbitrary<ReadonlyArray<PoolCommand>> = fc.oneof(
  fc.boolean().map((failing): ReadonlyArray<PoolCommand> => [plainStart("transaction", failing), { op: "release", pick: -1, reborrow: false }]),
  fc.constant<ReadonlyArray<PoolCommand>>([plainStart("listen", false), plainStart("notify", false)])
)

/** The commands of one scenario: single commands, and units where the shape has them. */
const commandsOf = (shape: PoolScenarioShape): fc.Arbitrary<ReadonlyArray<PoolCommand>> =>
  shape.units <= 0
    ? fc.array(commandOf(shape), { minLength: 1, maxLength: MAX_POOL_COMMANDS })
    : fc.array(fc.oneof({ arbitrary: commandOf(shape).map((command) => [command]), weight: 10 }, { arbitrary: unitOf, weight: shape.units }), { minLength: 1, maxLength: MAX_POOL_COMMANDS })
      .map((units) => units.flat().slice(0, MAX_POOL_COMMANDS))

/**
 * Pool scenarios of `shape`: 1-4 connections, with or without a row-name transform, up to
 * `shape.surface` surface probes, up to `MAX_POOL_COMMANDS` commands (then, in `shape.targetedIn4` scenarios
 * out of 4, a targeted unit of `shape.targeted`), up to `OWN_POOL_PROBES` probes on a pool of their own.
 */
export const poolScenario = (shape: PoolScenarioShape): fc.Arbitrary<PoolScenario> =>
  fc.record({
    maxConnections: fc.integer({ min: 1, max: 4 }),
    transformNames: fc.boolean(),
    surface: fc.array(surfaceProbe, { maxLength: shape.surface }),
    commands: commandsOf(shape),
    // Drawn last, so the draws above are those of the scenarios before these probes existed.
    ownPool: fc.array(ownPoolProbe, { maxLength: OWN_POOL_PROBES }),
    // Drawn after the probes on pools of their own, so every draw above stays as it was.
    targeted: targetedCommands(shape.targeted, shape.targetedIn4)
  }, { noNullPrototype: true }).map(({ targeted, ...scenario }) => ({ ...scenario, commands: [...scenario.commands, ...targeted] }))
