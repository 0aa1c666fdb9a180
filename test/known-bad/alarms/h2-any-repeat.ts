/**
 * H2: any positive `repeatEvery` is accepted, below the configured repeat floor.
 *
 * Breaks R8 (`repeatEvery` >= minimumRepeatInterval, else InvalidRepeatEveryError): ALM-008, and
 * ALM-049 (repeat floor, citing H2).
 */
import { Duration } from "effect"
import { knownBadAlarm } from "./kit.ts"

/** H2 (any repeat) known-bad variant. */
export const h2AnyRepeat = knownBadAlarm({
  name: "h2-any-repeat",
  bug: "H2: any repeatEvery > 0 is accepted instead of requiring at least minimumRepeatInterval",
  breaks: ["ALM-008", "ALM-049"],
  pieces: {
    repeatEveryMs: (input: Duration.Input | undefined) => {
      if (input === undefined) return null
      const ms = Duration.toMillis(input)
      if (!Number.isFinite(ms) || ms <= 0) throw new Error("repeatEvery must be a positive finite duration")
      return Math.ceil(ms)
    }
  }
})
