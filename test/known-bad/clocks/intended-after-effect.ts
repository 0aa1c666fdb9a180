/**
 * Own: the effect runs before its intended record commits; a crash there leaves an effect that left the
 * machine with no durable evidence.
 * Breaks C13 (intended before the effect begins): CLK-015.
 */
import { Effect } from "effect"
import { effectBoundary } from "../../../subjects/clocks/records.ts"
import { knownBadClock } from "./kit.ts"

/** Intended-after-effect known-bad variant. */
export const intendedAfterEffect = knownBadClock({
  name: "intended-after-effect",
  bug: "withEffectBoundary runs the effect first and records intended afterwards",
  breaks: ["CLK-015"],
  pieces: {
    effectBoundary: (runtime, descriptor, effect) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(effect)
        const record = (status: "intended" | "succeeded" | "unknown", output?: Parameters<typeof effectBoundary>[2]) =>
          runtime.sql.withTransaction(runtime.emit(effectBoundary(descriptor, status, output))).pipe(Effect.orDie)
        yield* record("intended")
        yield* record(exit._tag === "Success" ? "succeeded" : "unknown", exit._tag === "Success" ? exit.value : undefined)
        return yield* exit
      })
  }
})
