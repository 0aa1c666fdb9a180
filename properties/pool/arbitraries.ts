/**
 * Generators of pool scenarios: checkouts of every kind (acquire, transaction, borrowed statement,
 * listen, notify; retried, failing, nested in a transaction, long channels), releases with and
 * without an immediate re-checkout, interruptions while waiting, at the hand-over and while holding,
 * floods to the admission bound and past it, and virtual time for the retry helper.
 */
import * as fc from "fast-check"
import type { PoolCommand } from "../../models/pool/index.ts"
import type { PoolScenario } from "./scenario.ts"

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
}

const startWith = (retryIn4: number): fc.Arbitrary<PoolCommand> =>
  fc.record({
    op: fc.constant("start" as const),
    kind: fc.constantFrom("acquire" as const, "transaction" as const, "borrow" as const, "listen" as const, "notify" as const),
    retry: fc.nat({ max: 3 }).map((roll) => roll < retryIn4),
    failing: fc.nat({ max: 3 }).map((roll) => roll === 0),
    longChannel: fc.boolean(),
    inside: fc.option(fc.nat({ max: 3 }), { nil: null })
  }, { noNullPrototype: true })

const commandOf = (shape: PoolScenarioShape): fc.Arbitrary<PoolCommand> =>
  fc.oneof(
    { arbitrary: startWith(shape.retryIn4), weight: shape.start },
    { arbitrary: fc.record({ op: fc.constant("release" as const), pick: fc.nat({ max: 7 }), reborrow: fc.boolean() }, { noNullPrototype: true }), weight: shape.release },
    { arbitrary: fc.record({ op: fc.constant("interrupt" as const), pick: fc.nat({ max: 7 }), waiting: fc.boolean() }, { noNullPrototype: true }), weight: shape.interrupt },
    { arbitrary: fc.record({ op: fc.constant("handoverInterrupt" as const), pick: fc.nat({ max: 7 }) }, { noNullPrototype: true }), weight: shape.handoverInterrupt },
    { arbitrary: fc.record({ op: fc.constant("flood" as const), extra: fc.nat({ max: 3 }) }, { noNullPrototype: true }), weight: shape.flood },
    { arbitrary: fc.constant({ op: "drain" as const }), weight: shape.drain },
    { arbitrary: fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 300 }) }, { noNullPrototype: true }), weight: shape.advance }
  )

/** The general mix: every kind of checkout, releases, interruptions, occasional floods and clock. */
export const MODEL_SHAPE: PoolScenarioShape = { start: 6, release: 4, interrupt: 2, handoverInterrupt: 2, flood: 1, drain: 1, advance: 2, retryIn4: 2 }

/** Admission and the retry helper: floods to the bound and past it, retried checkouts, virtual time. */
export const ADMISSION_SHAPE: PoolScenarioShape = { start: 5, release: 2, interrupt: 1, handoverInterrupt: 1, flood: 3, drain: 3, advance: 4, retryIn4: 3 }

/** Most commands in one scenario (each may start, release or interrupt checkouts on a real server). */
export const MAX_POOL_COMMANDS = 14

/** Pool scenarios of `shape`: 1-4 connections, up to `MAX_POOL_COMMANDS` commands. */
export const poolScenario = (shape: PoolScenarioShape): fc.Arbitrary<PoolScenario> =>
  fc.record({
    maxConnections: fc.integer({ min: 1, max: 4 }),
    commands: fc.array(commandOf(shape), { minLength: 1, maxLength: MAX_POOL_COMMANDS })
  }, { noNullPrototype: true })
