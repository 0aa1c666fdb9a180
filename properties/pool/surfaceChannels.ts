/**
 * P6 at the channel length boundary: a channel of at most 63 UTF-8 bytes is accepted by `listen` and
 * `notify` (its LISTEN / `pg_notify` reaches the server), a longer one is rejected with a `SqlError`
 * before anything naming it is sent. Names are ASCII, or end in a 2-byte character (one character
 * fewer than bytes), so a check in characters and a check off by one both show.
 */
import { Effect } from "effect"
import type { HarnessError } from "../../harness/errors.ts"
import { outcomeOf, type ProbeResult, runBounded, type SurfaceContext } from "./surfaceRuntime.ts"

/** Longest channel name the server takes, in UTF-8 bytes (NAMEDATALEN - 1). */
export const CHANNEL_LIMIT_BYTES = 63

const encoder = new TextEncoder()

/** A channel name of exactly `bytes` UTF-8 bytes starting with `prefix` (ASCII), ending in `é` when `wide`. */
export const channelOfBytes = (prefix: string, bytes: number, wide: boolean): string => {
  const tail = wide ? "é" : ""
  const name = `${prefix}${"x".repeat(Math.max(0, bytes - prefix.length - encoder.encode(tail).byteLength))}${tail}`
  if (encoder.encode(name).byteLength !== bytes) throw new RangeError(`channel ${name} is not ${bytes} bytes`)
  return name
}

/** The `channel` probe number `index`. */
export const channelProbe = (context: SurfaceContext, index: number, entry: "listen" | "notify", bytes: number, wide: boolean): Effect.Effect<ProbeResult, HarnessError> =>
  Effect.gen(function*() {
    const channel = channelOfBytes(`pool-ch${index}-`, bytes, wide)
    const accepted = bytes <= CHANNEL_LIMIT_BYTES
    const before = context.tap.statements().length
    const effect = entry === "notify"
      ? context.pool.notify(channel, `payload-${index}`)
      : Effect.scoped(Effect.asVoid(context.pool.listen(channel)))
    const exit = yield* runBounded(context, effect)
    const sent = context.tap.statements().slice(before).filter((statement) => !/^\s*UNLISTEN\b/i.test(statement.text) && (statement.text.includes(channel) || statement.params.includes(channel))).length
    const expected = { outcome: accepted ? "succeeded" : "failed: SqlError", statementsNamingTheChannel: accepted ? 1 : 0 }
    const actual = { outcome: outcomeOf(exit), statementsNamingTheChannel: sent }
    return {
      checks: [{
        observable: `${entry} on a channel of ${bytes} UTF-8 bytes (${[...channel].length} characters)`,
        expected,
        actual,
        rules: ["P6"],
        why: accepted
          ? "a channel of at most 63 UTF-8 bytes is accepted and its statement (LISTEN or pg_notify) reaches the server once"
          : "a channel over 63 UTF-8 bytes is rejected with a SqlError before anything is sent"
      }],
      covered: ["POL-006"],
      implementation: actual,
      model: expected
    }
  })
