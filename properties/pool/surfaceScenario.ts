/**
 * Surface probes: parts of the pool's surface the model-driven commands never reach
 * (`reference/pool.md`), run at the start of a pool scenario on the same pool, before its commands:
 * - `foreign`: the retry helper and `isPoolRefusal` given failures the pool never makes (a tagged
 *   domain error, a plain string, a plain object, a driver `SqlError` of the connection class): never
 *   retried, never recognised, never a defect (P7);
 * - `refusal`: admission filled to `maxConnections + 64`, one more checkout: a retryable `SqlError`
 *   `isPoolRefusal` recognises (P1); the same refusal's cause wrapped in a failed statement's error is
 *   not a refusal and is not retried (P7, I5);
 * - `channel`: `listen` / `notify` on channels at the 63-byte boundary, ASCII only or ending in a
 *   2-byte character (P6);
 * - `smoke`: one client entry point (value rows, unprepared statements, a stream, JSON fragments, a
 *   nested transaction, an aborted commit), alone or inside a transaction, checking its result and that
 *   every statement inside the transaction ran on the transaction's session (P4, P5).
 */
import * as fc from "fast-check"

/** A failure the pool never makes, handed to the retry helper and `isPoolRefusal`. */
export type ForeignError = "tagged" | "string" | "object" | "connection"

/** A client entry point the smoke probe exercises. */
export type SmokeEntry = "values" | "valuesUnprepared" | "unprepared" | "stream" | "json" | "savepoint" | "abortedCommit"

/** One probe of the surface. */
export type SurfaceProbe =
  | { readonly probe: "foreign"; readonly error: ForeignError }
  | { readonly probe: "refusal" }
  | {
    readonly probe: "channel"
    readonly entry: "listen" | "notify"
    /** UTF-8 length of the channel name: 62, 63 (the longest the server takes) or 64. */
    readonly bytes: number
    /** The name ends in a 2-byte character (so its length in characters is one less). */
    readonly wide: boolean
  }
  | {
    readonly probe: "smoke"
    readonly entry: SmokeEntry
    /** Run inside a transaction (an aborted commit is always its own transaction). */
    readonly inTransaction: boolean
    /** savepoint: the nested transaction fails and is rolled back to its savepoint. */
    readonly failing: boolean
  }

/** One surface probe; weights favour the kinds with most variants (a refusal check fills admission: rarer). */
export const surfaceProbe: fc.Arbitrary<SurfaceProbe> = fc.oneof(
  { arbitrary: fc.record({ probe: fc.constant("foreign" as const), error: fc.constantFrom<ForeignError>("tagged", "string", "object", "connection") }, { noNullPrototype: true }), weight: 2 },
  { arbitrary: fc.constant<SurfaceProbe>({ probe: "refusal" }), weight: 1 },
  {
    arbitrary: fc.record({
      probe: fc.constant("channel" as const),
      entry: fc.constantFrom("listen" as const, "notify" as const),
      bytes: fc.constantFrom(63, 64, 62),
      wide: fc.boolean()
    }, { noNullPrototype: true }),
    weight: 3
  },
  {
    arbitrary: fc.record({
      probe: fc.constant("smoke" as const),
      entry: fc.constantFrom<SmokeEntry>("values", "valuesUnprepared", "unprepared", "stream", "json", "savepoint", "abortedCommit"),
      inTransaction: fc.boolean(),
      failing: fc.boolean()
    }, { noNullPrototype: true }),
    weight: 4
  }
)
