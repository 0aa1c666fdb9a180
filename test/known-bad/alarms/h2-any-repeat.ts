/** H2: any positive `repeatEvery` is accepted, below the configured repeat floor. */
import { Duration } from "effect"
import { swapOnePiece } from "./variant.ts"

/** H2 (any repeat) known-bad variant. */
export const h2AnyRepeat = swapOnePiece(
  {
    id: "h2-any-repeat",
    bug: "any repeatEvery > 0 is accepted instead of requiring at least minimumRepeatInterval",
    rules: ["R8"],
    piece: "repeatEveryMs"
  },
  (input: Duration.Input | undefined) => {
    if (input === undefined) return null
    const ms = Duration.toMillis(input)
    if (!Number.isFinite(ms) || ms <= 0) throw new Error("repeatEvery must be a positive finite duration")
    return Math.ceil(ms)
  }
)
