/**
 * Own: every deferredResult records a consumption, so a later read moves consumedAt and re-emits a
 * conflicting deferred-consumed record.
 * Breaks C7 (first consumption only): CLK-009.
 */
import { Effect } from "effect"
import { knownBadClock } from "./kit.ts"

/** Consume-every-read known-bad variant. */
export const consumeEveryRead = knownBadClock({
  name: "consume-every-read",
  bug: "deferredResult records a consumption on every read",
  breaks: ["CLK-009"],
  pieces: { consume: (store, address, consumedAtMs) => Effect.as(store.setConsumed(address, consumedAtMs), true) }
})
