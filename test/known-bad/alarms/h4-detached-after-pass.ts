/**
 * H4: a fiber forked by a handler can still schedule after the handler's pass has ended.
 *
 * Breaks R9 (a schedule from an ended pass fails with StorageOperationError): ALM-009 and ALM-048,
 * both citing H4.
 */
import { knownBadAlarm } from "./kit.ts"

/** H4 known-bad variant. */
export const h4DetachedAfterPass = knownBadAlarm({
  name: "h4-detached-after-pass",
  bug: "H4: a fiber forked by a handler can still schedule after the pass ended",
  breaks: ["ALM-009", "ALM-048"],
  pieces: { passAllowsSchedule: () => true }
})
