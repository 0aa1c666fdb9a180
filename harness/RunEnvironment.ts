/**
 * The deterministic environment of one scenario execution: a fresh virtual clock at the epoch and one
 * seeded randomness source (Effect's `Random`) for every id, uuid and revision an implementation makes.
 * Same seed, same bytes.
 */
import { Effect, Random } from "effect"
import { withVirtualTime } from "./VirtualClock.ts"

/** Runs `effect` with virtual time at the epoch and `Random` seeded by `randomSeed`. */
export const withRunEnvironment = <A, E, R>(randomSeed: number, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  withVirtualTime(effect).pipe(Random.withSeed(randomSeed))

/** Derives a 32-bit seed from a base seed and a label (FNV-1a), so each property run gets its own stable seed. */
export const deriveSeed = (baseSeed: number, label: string): number => {
  let hash = 0x811c9dc5 ^ (baseSeed >>> 0)
  for (let index = 0; index < label.length; index++) {
    hash ^= label.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash | 0
}
