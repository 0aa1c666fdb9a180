/**
 * A blind bug: a realistic defect seeded into an implementation the shipped suite's authors did not
 * write (`examples/`), by an author who had read only the reference page, the seeds and the
 * implementation itself, never the harness, models, properties, known-bads or mutation results.
 * `scripts/blind-bugs.ts` applies each bug to a copy of the implementation and runs the gate on it.
 */

/** One defect, as one exact text replacement in one file of the implementation. */
export interface BlindBug {
  /** Kebab-case, unique within its set. */
  readonly id: string
  /** Path from the repository root to a file inside the set's implementation folder. */
  readonly file: string
  /** Exact text that occurs exactly once in `file`. */
  readonly find: string
  /** What replaces it. */
  readonly replace: string
  /** The reference rules the bug violates, as the reference page numbers them (e.g. `["R13"]`). */
  readonly rules: ReadonlyArray<string>
  /** The bug in one line, as the developer who made it would describe the change. */
  readonly summary: string
  /** How a user of the primitive would notice it, in one line. */
  readonly observable: string
}

/** The blind bugs of one subject, all seeded into one implementation folder. */
export interface BlindBugSet {
  readonly subject: "alarms" | "content" | "clocks" | "cron" | "pool"
  /** The implementation folder, from the repository root (e.g. `examples/independent-content`). */
  readonly implementation: string
  readonly bugs: ReadonlyArray<BlindBug>
}
