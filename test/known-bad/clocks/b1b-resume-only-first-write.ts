/**
 * B1b: only the first write of a completion resumed its run; after a lost reply the caller's retry
 * found the completion Existing and the run was never resumed.
 * Breaks C5 (resume on every call): CLK-007; liveness L2 (every completion resumed): CLK-021.
 */
import { knownBadClock } from "./kit.ts"

/** B1b known-bad variant. */
export const b1bResumeOnlyFirstWrite = knownBadClock({
  name: "b1b-resume-only-first-write",
  bug: "B1b: scheduleResume only when the completion was created, never for an Existing one",
  breaks: ["CLK-007", "CLK-021"],
  pieces: { resumesAfter: (completion) => completion._tag === "Created" }
})
