/**
 * An equal progress cursor counts as progress: replays are not dropped and reset the budget.
 *
 * Breaks R11 (an external call with progress <= stored writes nothing): ALM-011; R12 (progress is a
 * strictly greater cursor): ALM-012; R13 through it (no reset without progress): ALM-013; E1 (in a pass
 * a non-forward cursor is a charged self-rearm): ALM-030; and ALM-040 (only a strictly greater cursor
 * resets the budget).
 */
import { knownBadAlarm } from "./kit.ts"

/** Equal-cursor known-bad variant. */
export const equalCursorReset = knownBadAlarm({
  name: "equal-cursor-reset",
  bug: "an equal cursor counts as progress: external replays are not dropped and reset the budget",
  breaks: ["ALM-011", "ALM-012", "ALM-013", "ALM-030", "ALM-040"],
  pieces: { cursorAdvances: (inputProgress, storedProgress) => inputProgress >= storedProgress }
})
