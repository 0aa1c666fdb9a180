/**
 * Own: a stream starts emitting without checking the content is complete, so a stream of missing
 * content ends empty instead of failing (and partial content would stream partially).
 *
 * Breaks the stream rule (CNT-008).
 */
import { knownBadContent } from "./kit.ts"

/** No completeness check before emitting. */
export const streamUnchecked = knownBadContent({
  name: "stream-unchecked",
  bug: "stream emits without first checking chunks 0..n-1 are all there and sum to the size",
  breaks: ["CNT-008"],
  pieces: { streamComplete: () => true }
})
