/**
 * The results the content model predicts, as plain JSON in the shapes every subject uses
 * (`{_tag: "Success", value}`, `{_tag: "Failure", error}`, `{_tag: "Crashed", transaction, phase}`),
 * with the reference rules that decide each.
 */
import type { ReachedFault } from "./operations.ts"

/** A predicted call result. */
export type ModelResult =
  | { readonly _tag: "Success"; readonly value: unknown }
  | { readonly _tag: "Failure"; readonly error: string }
  | { readonly _tag: "Crashed"; readonly transaction: number; readonly phase: "inside" | "afterCommit" }

/** A success. */
export const success = (value: unknown): ModelResult => ({ _tag: "Success", value })

/** A failure naming the error (its tag, or `InvalidContentRef:<reason>`). */
export const failure = (error: string): ModelResult => ({ _tag: "Failure", error })

/** The result of a call whose `fault` struck: a crash, or a storage error for a lost reply, a refused commit, a failed statement or read. */
export const faultResult = (fault: ReachedFault): ModelResult =>
  fault.phase === "lostReply" || fault.phase === "commitRefused" || fault.phase === "statementFails" || fault.phase === "readFails"
    ? failure("SqlError")
    : { _tag: "Crashed", transaction: fault.transaction, phase: fault.phase }

/** Whether the fault's transaction committed (after commit, lost reply) or rolled back (inside, refused commit, failed statement). */
export const faultCommitted = (fault: ReachedFault): boolean => fault.phase === "afterCommit" || fault.phase === "lostReply"
