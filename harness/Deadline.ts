/**
 * Deadlines around the phases of an adapter's life: `make`, `open`, one scenario, and `close` (the
 * release of a scope). A phase that does not finish in time is a hang: the adapter is reported with
 * verdict `error` naming the adapter and the phase, never a requirement failure.
 *
 * `withDeadline` bounds any hang that waits (an interruptible `Effect.never`, a connection that never
 * answers, and also `Effect.uninterruptible(Effect.never)`): the guarded work runs on a detached fiber,
 * and when the deadline passes the caller stops waiting for it and asks it to stop without waiting for
 * that either. What it cannot bound is JavaScript that never yields (a synchronous busy loop): no timer
 * fires while it runs. Adapters loaded from a module therefore run in a child process that the CLI kills
 * (`cli/isolation.ts`); the built-in adapters' code only waits on their engines, which this bounds.
 *
 * Importable in Node and in workerd (the do-sqlite host runs the same runner): no Node APIs here.
 */
import { Effect, Fiber, Option } from "effect"
import { HarnessError } from "./errors.ts"

/** The phase of an adapter's life a deadline guards. */
export type AdapterPhase = "make" | "open" | "scenario" | "close"

/** An adapter that did not finish a phase within its deadline. */
export interface AdapterHang {
  readonly adapter: string
  readonly phase: AdapterPhase
  readonly timeoutMs: number
  /** The property that was running, when the hang happened inside a property run. */
  readonly propertyId?: string
}

/**
 * Default wall-clock limit of each phase of one scenario (`open`, its operations, `close`): 30 s.
 *
 * Measured on 2 cores with the gate's budget (60 scenarios of every property, every phase of every
 * scenario timed; `bench/phaseTimes.ts`), three times, with load averages near 5, 9 and 4 (other test
 * runs sharing the machine). Slowest single phase over the three runs:
 * - sqlite: operations 0.56 s; open and close at most 0.03 s;
 * - pglite: operations 2.1, 5.7 and 2.3 s; open at most 0.16 s, close 0.33 s;
 * - postgres (embedded server): operations 2.1, 0.45 and 0.51 s; open at most 0.17 s, close 0.1 s;
 * - do-sqlite (whole scenarios through the workerd host, round trip included): at most 0.98 s.
 * 30 s is 5 times the slowest phase seen (5.7 s, on the most loaded run) and 13 times the slowest on
 * the others; a hung adapter costs one such deadline (its other properties then end at once).
 */
export const DEFAULT_RUN_TIMEOUT_MS = 30_000

/**
 * How much longer than one scenario phase an adapter's `make` and its final close may take: they
 * start and stop servers. Measured (same runs): `make` at most 1 ms (sqlite), 5.4, 10.7 and 11.6 s
 * (pglite), 1.5 s (postgres, embedded server), 2.9 s (do-sqlite: bundle the worker, start workerd);
 * closing at most 2.3 s (postgres). By default this allows 120 s, 10 times the slowest; with
 * `--run-timeout 500` it allows 2 s.
 */
export const LIFECYCLE_TIMEOUT_FACTOR = 4

/** Wall-clock limit of an adapter's `make` and of closing it, derived from the run timeout. */
export const adapterLifecycleTimeoutMs = (runTimeoutMs: number = DEFAULT_RUN_TIMEOUT_MS): number => runTimeoutMs * LIFECYCLE_TIMEOUT_FACTOR

const PHASE_WORDS: Readonly<Record<AdapterPhase, string>> = {
  make: "make (starting the adapter)",
  open: "open (a fresh database)",
  scenario: "a scenario (its statements)",
  close: "close (releasing its resources)"
}

const PHASE_HINTS: Readonly<Record<AdapterPhase, string>> = {
  make: "make never finished: check that what it starts answers (a server, a port, a file lock); raise --run-timeout if it is only slow",
  open: "open never returned a database: look for a connection or lock that is never granted; raise --run-timeout if it is only slow",
  scenario: "a statement never answered: look for a lock never released or a connection that stopped answering; raise --run-timeout if it is only slow",
  close: "a finalizer never finished: closing a database or stopping a server must not wait forever; raise --run-timeout if it is only slow"
}

/** One sentence naming the adapter, the phase and the limit, e.g. `adapter x hung in open (a fresh database): ...`. */
export const describeHang = (hang: AdapterHang): string =>
  `adapter ${hang.adapter} hung in ${PHASE_WORDS[hang.phase]}: no result within ${hang.timeoutMs} ms` +
  (hang.propertyId === undefined ? "" : ` (property ${hang.propertyId})`)

/** What the adapter's author should look at for a hang in `phase`. */
export const hangHint = (phase: AdapterPhase): string => PHASE_HINTS[phase]

/** The `HarnessError` of a hang; `hang` carries the structured facts. */
export const hangError = (hang: AdapterHang): HarnessError =>
  new HarnessError({ message: describeHang(hang), hint: hangHint(hang.phase), hang })

/** The hang an error stands for, if it is one. */
export const hangOf = (error: unknown): AdapterHang | undefined =>
  error instanceof HarnessError ? error.hang : undefined

/**
 * The message of a property run not started because its adapter already hung: it says so, and names
 * the phase and the property of the first hang, so one hang costs one deadline, not one per property.
 */
export const afterHangMessage = (hang: AdapterHang): string =>
  `not run: adapter ${hang.adapter} already hung in ${hang.phase}` +
  `${hang.propertyId === undefined ? "" : ` during ${hang.propertyId}`} (no result within ${hang.timeoutMs} ms); ` +
  "after a hang its remaining properties end here"

/**
 * Runs `effect` and waits at most `timeoutMs` of wall-clock time for it. On timeout it fails with
 * `onTimeout()`; the work is asked to stop on a fiber of its own and never waited for, so an
 * uninterruptible region cannot hold the caller. Use a real clock: this reads `Clock` for the limit.
 *
 * @example
 * const database = yield* withDeadline(adapter.open(), 20_000, () => hangError({ adapter: "x", phase: "open", timeoutMs: 20_000 }))
 */
export const withDeadline = <A, E, R, E2>(
  effect: Effect.Effect<A, E, R>,
  timeoutMs: number,
  onTimeout: () => E2
): Effect.Effect<A, E | E2, R> =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkDetach(effect)
    const abandon = Effect.asVoid(Effect.forkDetach(Fiber.interrupt(fiber)))
    const exit = yield* Fiber.await(fiber).pipe(
      Effect.timeoutOption(timeoutMs),
      Effect.onInterrupt(() => abandon)
    )
    if (Option.isNone(exit)) {
      yield* abandon
      return yield* Effect.fail(onTimeout())
    }
    return yield* exit.value
  })
