/**
 * The pool refusal (P1): a checkout refused at admission, before any statement was sent. Upstream
 * surfaces it as an ordinary `SqlError` so caller-facing reads stay retryable, and recognises it by
 * its internal cause, so a failed statement or an unknown commit is never mistaken for one (P7).
 */
import { Data } from "effect"
import { ConnectionError, SqlError } from "effect/sql/SqlError"

/** The internal cause of a refusal: admission was full. */
export class PoolRefused extends Data.TaggedError("PoolRefused")<{
  /** Checkouts admitted when this one was refused (maxConnections + 64). */
  readonly admitted: number
}> {}

/**
 * Wraps a refusal cause as a retryable `SqlError` (a connection-class reason, operation `checkout`).
 *
 * @example poolRefusal(new PoolRefused({ admitted: 65 })).reason._tag // "ConnectionError"
 */
export const poolRefusal = (cause: unknown): SqlError =>
  new SqlError({
    reason: new ConnectionError({
      cause,
      message: "the connection pool is saturated (every admission slot is taken); nothing was sent, retry later",
      operation: "checkout"
    })
  })

/**
 * Whether `cause` is a pre-statement checkout refusal, and nothing else: never a failed statement or
 * an unknown commit.
 *
 * @example isPoolRefusal(poolRefusal(new PoolRefused({ admitted: 65 }))) // true
 */
export const isPoolRefusal = (cause: unknown): boolean =>
  cause instanceof SqlError && cause.reason._tag === "ConnectionError" && cause.reason.cause instanceof PoolRefused
