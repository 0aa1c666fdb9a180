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

/** Which queued borrower the `multiplexGate` probe interrupts: none, the oldest waiter (b) or the newest (c). */
export type MultiplexInterrupt = "none" | "b" | "c"

/** The caller's part of a pool config the `config` probe builds pools from (each field given or not). */
export interface CallerConfig {
  readonly spanAttributes?: Record<string, string>
  readonly database?: string
  readonly username?: string
  readonly host?: string
  readonly port?: number
}

/** `config` without its absent fields (a field given as undefined is not the same config for every reader). */
const givenFields = (config: { readonly [K in keyof CallerConfig]-?: CallerConfig[K] | undefined }): CallerConfig =>
  Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined)) as CallerConfig

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
  | { readonly probe: "config"; readonly config: CallerConfig }
  | { readonly probe: "multiplexGate"; readonly interrupt: MultiplexInterrupt }
  | { readonly probe: "fractionalBound" }

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

/**
 * One probe on a pool of its own (`config`, `multiplexGate`, `fractionalBound`). Generated as a
 * scenario field of its own, after the commands, so that adding these kinds left the draws of the
 * surface probes and commands above (and so every earlier counterexample) unchanged.
 */
export const ownPoolProbe: fc.Arbitrary<SurfaceProbe> = fc.oneof(
  {
    // Each field given or not with even odds (fast-check's optional keys are mostly present, so the
    // defaults for a missing field would rarely be reached). Distinct values, none a default (not
    // "postgres", "localhost", 5432), so a field taken for another, or a default used though the
    // field is given, shows; a caller's attribute may name a key the pool also sets (the later
    // value wins for a tracer reading by key).
    arbitrary: fc.record({
      probe: fc.constant("config" as const),
      config: fc.record({
        spanAttributes: fc.option(fc.constantFrom<Record<string, string>>({ "service.name": "caller" }, { "db.namespace": "caller_ns", "peer.service": "db" }), { freq: 2, nil: undefined }),
        database: fc.option(fc.constant("app_db"), { freq: 2, nil: undefined }),
        username: fc.option(fc.constant("app_user"), { freq: 2, nil: undefined }),
        host: fc.option(fc.constant("db.internal"), { freq: 2, nil: undefined }),
        port: fc.option(fc.constant(6543), { freq: 2, nil: undefined })
      }, { noNullPrototype: true }).map(givenFields)
    }, { noNullPrototype: true }),
    weight: 2
  },
  {
    arbitrary: fc.record({ probe: fc.constant("multiplexGate" as const), interrupt: fc.constantFrom<MultiplexInterrupt>("none", "b", "c") }, { noNullPrototype: true }),
    weight: 2
  },
  { arbitrary: fc.constant<SurfaceProbe>({ probe: "fractionalBound" }), weight: 1 }
)
