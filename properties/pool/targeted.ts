/**
 * Targeted units: short command sequences appended after a scenario's commands, reaching situations
 * (`models/pool/situations.ts`) that random commands rarely reach: an interrupted COMMIT (the
 * transaction must be the newest holder when its release is drawn), statements and notifies inside a
 * holding transaction, and the retry helper's whole ladder (refused until its delay reaches the 250 ms
 * cap, then admitted once the flood drains, or interrupted while retrying). Drawn after every other field of a scenario, so every
 * earlier draw, and every earlier counterexample, keeps its bytes.
 *
 * @example
 * ```ts
 * fc.sample(targetedUnit({ retryLadder: 1 }), 1) // [[{ op: "flood", extra: 0 }, { op: "start", ... }, ...]]
 * ```
 */
import * as fc from "fast-check"
import type { OpKind, PoolCommand } from "../../models/pool/index.ts"

/** The kinds of targeted unit a property's scenarios may end with. */
export type TargetedUnitKind = "commitInFlight" | "nested" | "retryLadder"

/** Most commands in one targeted unit (the retry ladder's). */
export const MAX_TARGETED_COMMANDS = 5

/**
 * Virtual time the retry ladder moves while admission is full: past the sixth refusal at
 * 10 + 20 + 40 + 80 + 160 = 310 ms, whose delay is the first capped at 250 ms (P7).
 */
export const LADDER_REFUSED_MS = 320

/** Virtual time the retry ladder moves once the flood drained: past the retry due at 310 + 250 = 560 ms. */
export const LADDER_ADMITTED_MS = 300

const transaction = (retry: boolean, failing: boolean): PoolCommand => ({ op: "start", kind: "transaction", retry, failing, longChannel: false, inside: null })

/** A transaction started, then released with its COMMIT's reply held and interrupted then (pick -1: the newest holder). */
const commitInFlight: fc.Arbitrary<ReadonlyArray<PoolCommand>> = fc.record({ retry: fc.boolean(), failing: fc.boolean() }, { noNullPrototype: true })
  .map(({ retry, failing }): ReadonlyArray<PoolCommand> => [transaction(retry, failing), { op: "release", pick: -1, reborrow: false, holdCommit: true }])

/** A transaction started, then a borrowed statement and a notify inside it (inside -1: the newest holding transaction). */
const nested: fc.Arbitrary<ReadonlyArray<PoolCommand>> = fc.constant<ReadonlyArray<PoolCommand>>([
  transaction(false, false),
  { op: "start", kind: "borrow", retry: false, failing: false, longChannel: false, inside: -1 },
  { op: "start", kind: "notify", retry: false, failing: false, longChannel: false, inside: -1 }
])

/**
 * Admission filled, a retried checkout refused at 0, 10, 30, 70, 150 and 310 ms (its delay capped at
 * 250 ms from the sixth refusal), then either the flood drained and the retry admitted at 560 ms, or
 * the checkout left retrying for the closing probe to interrupt.
 */
const retryLadder: fc.Arbitrary<ReadonlyArray<PoolCommand>> = fc.record({ kind: fc.constantFrom<OpKind>("acquire", "borrow", "transaction"), admitted: fc.boolean() }, { noNullPrototype: true })
  .map(({ kind, admitted }): ReadonlyArray<PoolCommand> => [
    { op: "flood", extra: 0 },
    { op: "start", kind, retry: true, failing: false, longChannel: false, inside: null },
    { op: "advance", ms: LADDER_REFUSED_MS },
    ...(admitted ? [{ op: "drain" } as const, { op: "advance", ms: LADDER_ADMITTED_MS } as const] : [])
  ])

const UNITS: Readonly<Record<TargetedUnitKind, fc.Arbitrary<ReadonlyArray<PoolCommand>>>> = { commitInFlight, nested, retryLadder }

/** Relative weights of the targeted units a property's scenarios may end with (a kind absent: never). */
export type TargetedWeights = Readonly<Partial<Record<TargetedUnitKind, number>>>

/** One targeted unit, of a kind drawn by `weights` (at least one positive). */
export const targetedUnit = (weights: TargetedWeights): fc.Arbitrary<ReadonlyArray<PoolCommand>> =>
  fc.oneof(...Object.entries(weights).flatMap(([kind, weight]) => (weight !== undefined && weight > 0 ? [{ arbitrary: UNITS[kind as TargetedUnitKind], weight }] : [])))

/**
 * The commands a scenario ends with: a targeted unit of `weights` in `in4` scenarios out of 4, none in
 * the others (or when `in4` is 0). The roll shrinks to 0, which drops the unit.
 */
export const targetedCommands = (weights: TargetedWeights, in4: number): fc.Arbitrary<ReadonlyArray<PoolCommand>> =>
  in4 <= 0 ? fc.constant([]) : fc.tuple(fc.nat({ max: 3 }), targetedUnit(weights)).map(([roll, unit]) => {
    if (unit.length > MAX_TARGETED_COMMANDS) throw new Error(`targeted unit of ${unit.length} commands, over ${MAX_TARGETED_COMMANDS}`)
    return roll >= 4 - in4 ? unit : []
  })
