/**
 * Allowed variants of the pool subject: the shipped pool with one choice changed that
 * `reference/pool.md` leaves to the implementation. Every pool property must pass each of them
 * (`passes.test.ts`); a verdict that fails one checks something no rule requires.
 */
import { Effect, Exit, Scope } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { type AllowedVariant, buildAllowedVariant, wrappedAllowedVariant } from "../../../harness/allowedVariant.ts"
import type { Admission } from "../../../subjects/pool/admission.ts"
import type { BoundedPoolClient, PoolImplementation } from "../../../subjects/pool/api.ts"
import { type Gate, makeFifoGate } from "../../../subjects/pool/gate.ts"
import { shippedPool } from "../../../subjects/pool/index.ts"
import { channelTooLong, defaultPoolPieces, type NotifyRuntime } from "../../../subjects/pool/pieces.ts"
import { poolPieceKit } from "../../known-bad/pool/kit.ts"

/** `channel` as a quoted SQL identifier (`"` doubled). */
export const quotedIdentifier = (channel: string): string => `"${channel.replaceAll("\"", "\"\"")}"`

/** `payload` as a standard-conforming SQL string literal (`'` doubled). */
export const quotedLiteral = (payload: string): string => `'${payload.replaceAll("'", "''")}'`

/** The `NOTIFY channel, 'payload'` statement (instead of `SELECT pg_notify($1, $2)`). */
export const notifyStatement = (channel: string, payload: string): string => `NOTIFY ${quotedIdentifier(channel)}, ${quotedLiteral(payload)}`

/** notify sent as a `NOTIFY` statement on a checkout of its own. */
export const notifyByStatement = (runtime: NotifyRuntime, channel: string, payload: string) =>
  Effect.scoped(Effect.flatMap(runtime.ownCheckout, (connection) => connection.executeRaw(notifyStatement(channel, payload), []))).pipe(Effect.asVoid)

/** notify in a transaction of its own (BEGIN, pg_notify, COMMIT) on a checkout of its own. */
export const notifyInOwnTransaction = (runtime: NotifyRuntime, channel: string, payload: string) =>
  Effect.scoped(Effect.flatMap(runtime.ownCheckout, (connection) =>
    Effect.andThen(
      connection.executeRaw("BEGIN", []),
      Effect.andThen(connection.executeRaw("SELECT pg_notify($1, $2)", [channel, payload]), connection.executeRaw("COMMIT", [])).pipe(
        Effect.onError(() => Effect.ignore(connection.executeRaw("ROLLBACK", [])))
      )
    ))).pipe(Effect.asVoid)

/**
 * Admission, then the gate (P1-P3), with the admission slot in a scope of its own that closes before
 * the gate slot is given back (the shipped checkout returns them in the reverse order of taking).
 */
export const admissionReleasedFirst = (admission: Admission, gate: Gate): Effect.Effect<void, SqlError, Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const admissionScope = yield* Scope.make()
      const giveBack = Scope.close(admissionScope, Exit.void)
      yield* Scope.provide(admission.take, admissionScope).pipe(Effect.onError(() => giveBack))
      yield* restore(gate.take).pipe(Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : giveBack))
      yield* Effect.addFinalizer(() => giveBack)
    }))

/** The shipped FIFO gate without its `pool.handedOver` hook point (as upstream's). */
export const gateWithoutHandOverHook = makeFifoGate({ handOverHook: false })

/** The shipped pool whose clients `change` edits once built, named `reportName`. */
const shippedWith = (reportName: string, change: (client: BoundedPoolClient) => BoundedPoolClient, options?: (config: Parameters<PoolImplementation["boundedPool"]>[0]) => Parameters<PoolImplementation["boundedPool"]>[0]): PoolImplementation => ({
  ...shippedPool,
  name: reportName,
  boundedPool: (config) => Effect.map(shippedPool.boundedPool(options === undefined ? config : options(config)), change)
})

/**
 * `listen` and `notify` check the channel only once they hold a checkout (admission and the gate, via
 * `reserve`), then fail with the same error, still before anything names the channel.
 */
export const channelCheckedAfterCheckout = (client: BoundedPoolClient): BoundedPoolClient => {
  const { listen, notify } = client
  const fits = defaultPoolPieces.channelFits
  return Object.assign(client, {
    listen: (channel: string) => fits(channel) ? listen(channel) : Effect.andThen(client.reserve, Effect.fail(channelTooLong(channel, "listen"))),
    notify: (channel: string, payload: string) =>
      fits(channel) ? notify(channel, payload) : Effect.scoped(Effect.andThen(client.reserve, Effect.fail(channelTooLong(channel, "notify"))))
  })
}

/** A config whose fractional `maxConnections` is taken down to the whole number below it. */
export const flooredMaxConnections = <C extends { readonly maxConnections?: number | undefined }>(config: C): C =>
  config.maxConnections === undefined ? config : { ...config, maxConnections: Math.floor(config.maxConnections) }

/** Every allowed variant of the pool subject. */
export const poolAllowedVariants: ReadonlyArray<AllowedVariant<PoolImplementation>> = [
  buildAllowedVariant(poolPieceKit, {
    name: "no-handover-hook",
    freedom: "P2 fixes who gets a freed slot, not that the pool offers the pool.handedOver hook point (optional: subjects/pool/README.md)",
    pieces: { gate: gateWithoutHandOverHook }
  }),
  buildAllowedVariant(poolPieceKit, {
    name: "notify-statement",
    freedom: "P6 fixes notify's checkout (its own, outside the caller's transaction), not its statement: NOTIFY instead of pg_notify",
    pieces: { notify: notifyByStatement }
  }),
  buildAllowedVariant(poolPieceKit, {
    name: "notify-own-transaction",
    freedom: "P6 puts notify outside the caller's transaction, not outside any: BEGIN, pg_notify, COMMIT on its own checkout",
    pieces: { notify: notifyInOwnTransaction }
  }),
  buildAllowedVariant(poolPieceKit, {
    name: "admission-released-first",
    freedom: "P4 has both slots belong to the checkout's scope and come back when it ends, not in which order: admission before the gate",
    pieces: { checkout: admissionReleasedFirst }
  }),
  wrappedAllowedVariant({
    name: "channel-checked-after-checkout",
    freedom: "P1 has every listen and notify take admission first and P6 fixes only that a channel over 63 bytes fails before anything is sent, not when"
  }, (reportName) => shippedWith(reportName, channelCheckedAfterCheckout)),
  wrappedAllowedVariant({
    name: "fractional-max-connections-floored",
    freedom: "P1 bounds checkouts at maxConnections + 64 and says nothing of a fractional maxConnections: taking its floor is as allowed as refusing the config"
  }, (reportName) => shippedWith(reportName, (client) => client, flooredMaxConnections))
]
