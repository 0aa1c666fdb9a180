/**
 * Typed errors of the harness engine. Each carries a message that says what went wrong and a hint
 * that says what to do about it; the CLI prints `message` and `hint` on one line and exits 2.
 */
import { Data } from "effect"
import type { AdapterHang } from "./Deadline.ts"
import { causeChainText } from "./ErrorText.ts"

/** The engine itself could not run a scenario (the adapter threw, hung, or the scenario is invalid). */
export class HarnessError extends Data.TaggedError("HarnessError")<{
  readonly message: string
  readonly hint: string
  readonly cause?: unknown
  /** Present when the adapter did not finish a phase in time (`harness/Deadline.ts`). */
  readonly hang?: AdapterHang
}> {}

/** A run option was invalid (`runs`, `seed`, a subject or adapter name, a budget). */
export class InvalidOptionsError extends Data.TaggedError("InvalidOptionsError")<{
  readonly message: string
  readonly hint: string
}> {}

/** A replay token could not be decoded, failed its checksum, or belongs to another suite version. */
export class ReplayTokenError extends Data.TaggedError("ReplayTokenError")<{
  readonly message: string
  readonly hint: string
}> {}


/** The hint of a failed statement of the harness's own (observing, seeding) on the adapter's database. */
export const OWN_STATEMENT_HINT =
  "a statement of the harness's own failed on the adapter's database, outside the implementation: check the adapter, and that the implementation's tables keep upstream's persisted layout"

/**
 * The `HarnessError` of a failure of the harness's own work in `subject`'s property, naming `what`
 * and every cause's words (`causeChainText`), with `hint` saying where to look.
 *
 * @example Effect.mapError(readRows(sql), ownWorkFailure("cron", OWN_STATEMENT_HINT)("reading the outbox"))
 */
export const ownWorkFailure = (subject: string, hint: string) => (what: string) => (cause: unknown): HarnessError =>
  new HarnessError({ message: `${subject} property: ${what} failed: ${causeChainText(cause)}`, hint, cause })
