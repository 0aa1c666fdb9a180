/**
 * The named situations of the pool's surface probes (`surfaceScenario.ts`): rows of the pool coverage
 * table after the model's (`models/pool/situations.ts`). A probe has no model state; its situation is
 * decided from the probe as generated (what it asks of the pool), never from what the implementation
 * did, so the table means the same for every implementation.
 *
 * @example
 * ```ts
 * surfaceSituations({ probe: "channel", entry: "notify", bytes: 63, wide: false }) // ["channelAtByteLimit"]
 * ```
 */
import { CHANNEL_LIMIT_BYTES } from "./surfaceChannels.ts"
import type { SurfaceProbe } from "./surfaceScenario.ts"

/** Every surface situation, in the order the coverage table lists them (after the model's). */
export const POOL_SURFACE_SITUATIONS = [
  // P1 the refusal's error value past the bound; a bound from a fractional maxConnections
  "refusalErrorAtBound",
  "fractionalMaxConnections",
  // P2, P4 with the driver multiplexing: a waiter queued only by the gate, interrupted
  "multiplexWaiterInterrupted",
  // P5 a client transaction whose COMMIT the server answers with ROLLBACK
  "clientAbortedCommit",
  // P6 a channel of exactly 63 UTF-8 bytes (accepted); one of 64 bytes but 63 characters (rejected)
  "channelAtByteLimit",
  "channelOverByteLimitNotCharacters",
  // P7 a failure the pool never makes handed to the retry helper
  "foreignFailureNotRetried"
] as const

/** One surface situation. */
export type PoolSurfaceSituation = typeof POOL_SURFACE_SITUATIONS[number]

/** The situations surface probe `probe` reaches. */
export const surfaceSituations = (probe: SurfaceProbe): ReadonlyArray<PoolSurfaceSituation> => {
  switch (probe.probe) {
    case "refusal":
      return ["refusalErrorAtBound"]
    case "fractionalBound":
      return ["fractionalMaxConnections"]
    case "multiplexGate":
      return probe.interrupt === "none" ? [] : ["multiplexWaiterInterrupted"]
    case "smoke":
      return probe.entry === "abortedCommit" ? ["clientAbortedCommit"] : []
    case "channel":
      if (probe.bytes === CHANNEL_LIMIT_BYTES) return ["channelAtByteLimit"]
      return probe.bytes > CHANNEL_LIMIT_BYTES && probe.wide ? ["channelOverByteLimitNotCharacters"] : []
    case "foreign":
      return ["foreignFailureNotRetried"]
    case "config":
      return []
  }
}
