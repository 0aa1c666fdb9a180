/**
 * The `multiplexGate` probe: P2's gate holds one slot per connection whatever the driver does with its
 * connections. A caller may turn on the driver's `multiplex` option (PgClient's config, which the
 * bounded pool takes unchanged: seed 001), under which the driver pool pipelines several borrowers'
 * statements on one session and so never makes them wait: only the gate keeps checkouts past
 * `maxConnections` waiting, in arrival order (P2, I3), and only it can leak or invent a slot when a
 * queued waiter is interrupted (P4, I4).
 *
 * On a pool of its own (the scenario's config, `multiplex` on, one connection, closed when the probe
 * ends), through the run's wire tap: borrowed statement `a` is sent and its reply held back by the tap
 * (the checkout stays in flight), then `b` and `c` are borrowed in turn, and `b` or `c` may be
 * interrupted while queued. While `a` is in flight nothing else may reach the server; once its reply is
 * let through, the borrowers not interrupted run in arrival order, each held in flight in turn. While
 * the last of them is in flight (its slot came from a release that had a waiter, and the queue is now
 * empty), `d` arrives: it too must wait at the gate, since a slot handed to a waiter is not also free
 * (P2). Then every borrower not interrupted succeeds.
 */
import { Effect, Fiber, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { awaitCondition } from "../../harness/Quiescence.ts"
import { HarnessError } from "../../harness/errors.ts"
import type { HeldReply } from "../../harness/PostgresWireTap.ts"
import type { BoundedPoolClient } from "../../subjects/pool/api.ts"
import type { MultiplexInterrupt } from "./surfaceScenario.ts"
import { outcomeOf, type ProbeResult, type SurfaceContext } from "./surfaceRuntime.ts"

const BORROWERS = ["a", "b", "c"] as const
/** The borrower that arrives while the last queued one is in flight. */
const LATE = "d"
const LETTERS = [...BORROWERS, LATE] as const
/** Scheduler turns (one macrotask each, about 1 ms) an interruption of a queued borrower may take to end. */
const INTERRUPTION_TURNS = 10_000

/** Which borrowers' statements (by letter) the tap saw so far, in the order they were written. */
const sentLetters = (context: SurfaceContext, prefix: string): ReadonlyArray<string> =>
  context.tap.statements().flatMap((statement) => LETTERS.filter((letter) => statement.text.includes(`'${prefix}${letter}'`)))

/** Builds the probe's own pool: the scenario's config with `multiplex` on and one connection. */
const multiplexedPool = (context: SurfaceContext) =>
  context.implementation.boundedPool({ ...context.config, multiplex: true, maxConnections: 1 }).pipe(
    Effect.provide(Reactivity.layer),
    Effect.mapError((cause) => new HarnessError({ message: `pool property: a multiplexed pool could not be built: ${String(cause)}`, hint: "the adapter's Postgres server", cause }))
  )

/** The `multiplexGate` probe number `index`, interrupting `interrupt` ("none", or the queued `b` or `c`). */
export const multiplexGateProbe = (context: SurfaceContext, index: number, interrupt: MultiplexInterrupt): Effect.Effect<ProbeResult, HarnessError> =>
  Effect.scoped(Effect.gen(function*() {
    const pool: BoundedPoolClient = yield* multiplexedPool(context)
    const prefix = `pool-mx${index}-`
    const borrow = (letter: string) => pool.unsafe(`SELECT '${prefix}${letter}' AS op_tag`)
    const hold = context.tap.holdReply((statement) => statement.text.includes(`'${prefix}a'`))
    yield* Effect.addFinalizer(() => Effect.sync(() => hold.release()))
    const fibers = new Map<string, Fiber.Fiber<unknown, unknown>>()
    for (const letter of BORROWERS) {
      fibers.set(letter, yield* Effect.forkChild(borrow(letter)))
      yield* context.quiet
    }
    // Interrupted from a fiber of its own: an implementation that let it onto the shared session could
    // make the interruption wait for the held reply.
    const interrupting = interrupt === "none" ? undefined : yield* Effect.forkChild(Fiber.interrupt(fibers.get(interrupt)!))
    yield* context.quiet
    const whileInFlight = { replyHeld: hold.held(), sent: sentLetters(context, prefix) }
    const running = BORROWERS.filter((letter) => letter !== interrupt)
    const whileLastInFlight = yield* lateArrival({ context, prefix, first: hold, running, fork: (letter) => Effect.forkChild(borrow(letter)), fibers })
    // Awaited once every reply is let go: a gate whose wait cannot be interrupted ends the interruption
    // only when it hands the slot over. Bounded in scheduler turns (about 10 s), not virtual time, which
    // does not move here: one that never ends is an observation (the borrower's outcome), not a hang.
    if (interrupting !== undefined) yield* awaitCondition(() => interrupting.pollUnsafe() !== undefined, { maxTurns: INTERRUPTION_TURNS })
    yield* awaitCondition(() => [...fibers.values()].every((fiber) => fiber.pollUnsafe() !== undefined), { maxTurns: 20 }).pipe(Effect.ignore)
    const outcomes = Object.fromEntries(LETTERS.map((letter) => [letter, outcomeOf(fibers.get(letter)?.pollUnsafe())]))
    for (const fiber of fibers.values()) if (fiber.pollUnsafe() === undefined) yield* Effect.forkChild(Fiber.interrupt(fiber))
    const expected = {
      whileInFlight: { replyHeld: true, sent: ["a"] },
      whileLastInFlight: { replyHeld: true, sent: running },
      outcomes: Object.fromEntries(LETTERS.map((letter) => [letter, letter === interrupt ? "interrupted" : "succeeded"])),
      sent: [...running, LATE]
    }
    const actual = { whileInFlight, whileLastInFlight, outcomes, sent: sentLetters(context, prefix) }
    return {
      checks: [{
        observable: `three borrowers on a multiplexed 1-connection pool, the first in flight, a fourth arriving while the last queued one is in flight${interrupt === "none" ? "" : `, queued ${interrupt} interrupted`}`,
        expected,
        actual,
        rules: interrupt === "none" ? ["P2", "I3"] : ["I4", "P2"],
        why: "the gate has one slot per connection whatever the driver shares: while a checkout holds the only slot the others wait at the gate (nothing reaches the server), then run in arrival order, and a slot handed to a waiter is not also free to a later arrival; an interrupted waiter leaves the queue without taking or inventing a slot"
      }],
      covered: interrupt === "none" ? ["POL-002", "POL-010"] : ["POL-002", "POL-010", "POL-011"],
      implementation: actual,
      model: expected
    }
  }))

/** What `lateArrival` works on. */
interface LateArrivalProbe {
  readonly context: SurfaceContext
  /** The probe's statement prefix. */
  readonly prefix: string
  /** The hold on `a`'s reply. */
  readonly first: HeldReply
  /** The borrowers not interrupted, in arrival order (`a` first). */
  readonly running: ReadonlyArray<string>
  readonly fork: (letter: string) => Effect.Effect<Fiber.Fiber<unknown, unknown>>
  readonly fibers: Map<string, Fiber.Fiber<unknown, unknown>>
}

/**
 * Lets the held `a` go, then holds each later borrower of `running` in flight in turn (each hold armed
 * before the one before it is released: the driver may write the next statement at once), and, while the last is in
 * flight, borrows the late arrival: what was sent by then, and whether the last reply was held. Every
 * hold is released before it returns.
 */
const lateArrival = (probe: LateArrivalProbe): Effect.Effect<{ readonly replyHeld: boolean; readonly sent: ReadonlyArray<string> }, HarnessError, Scope.Scope> =>
  Effect.gen(function*() {
    const { context, prefix, running, fork, fibers } = probe
    let hold = probe.first
    for (const letter of running.slice(1)) {
      hold = hold.releaseAndHold((statement) => statement.text.includes(`'${prefix}${letter}'`))
      yield* context.quiet
    }
    const last = hold
    yield* Effect.addFinalizer(() => Effect.sync(() => last.release()))
    fibers.set(LATE, yield* fork(LATE))
    yield* context.quiet
    const seen = { replyHeld: last.held(), sent: sentLetters(context, prefix) }
    last.release()
    yield* context.quiet
    return seen
  })
