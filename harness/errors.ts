/**
 * Typed errors of the harness engine. Each carries a message that says what went wrong and a hint
 * that says what to do about it; the CLI prints `message` and `hint` on one line and exits 2.
 */
import { Data } from "effect"
import type { AdapterHang } from "./Deadline.ts"

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

