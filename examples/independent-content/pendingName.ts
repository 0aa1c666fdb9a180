/**
 * The name chunks of a streamed upload are written under until their hash is known (K3). Drawn from
 * Effect's `Random`, so a seeded run names them the same way each time; the prefix cannot be a hash.
 */
import { Effect, Random } from "effect"

/** Hex digits drawn for one pending name (4 draws of 32 bits). */
const DRAWS = 4

/** A fresh pending chunk name, `pending:` and 32 random hex digits. */
export const pendingName: Effect.Effect<string> = Effect.gen(function*() {
  let digits = ""
  for (let draw = 0; draw < DRAWS; draw += 1) {
    const value = yield* Random.nextIntBetween(0, 0xffff_ffff)
    digits += value.toString(16).padStart(8, "0")
  }
  return `pending:${digits}`
})
