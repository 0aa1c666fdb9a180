/**
 * Step scheduling: run n operations where every hook point an operation reaches is a scheduling point.
 * Each operation starts paused (an implicit `start` point); at each step the schedule
 * (`StepSchedule.ts`: uniform or PCT) chooses one paused operation, which runs alone until its next
 * scheduling point or its end; then the next step. The schedule is generated data, so it shrinks and
 * replays from the token. No sleeps order anything: pauses are deferreds, progress is awaited.
 *
 * Operations that block: an operation that neither reaches a scheduling point nor ends may be waiting
 * on another (a database row lock held by a paused transaction). With `isBlocked` (for example
 * `pg_blocking_pids` on a separate connection) the scheduler polls it and marks the operation blocked:
 * not enabled, until it reaches a scheduling point or ends on its own (then two operations may have run
 * at once: the lock released by one woke the other, as truly concurrent transactions do). When no
 * operation is enabled the scheduler waits for progress at most `progressTimeoutMs` of real time, then
 * fails with `SchedulerStalled` (a harness error, never a pass). More than `maxSteps` scheduling points
 * fail with `StepBoundExceeded`: k is stated, not observed.
 *
 * Invariants asserted (a violation is a defect): each step releases exactly one operation, paused or
 * not yet started; a finished operation is never released.
 *
 * @example
 * ```ts
 * // scenario: { schedule: StepSchedule } from stepScheduleArbitrary({ operations: 2, steps: 4, maxDepth: 3 })
 * const run = yield* runScheduled(
 *   [{ label: "sweep", effect: store.sweep(true) }, { label: "racer", effect: store.grant(tenant, hash, size) }],
 *   scenario.schedule,
 *   { maxSteps: 4, points: (label, hook) => hook === "content.afterReferenceScan" || hook === "content.beforeRaise" }
 * )
 * run.exits // each operation's exit, in operation order
 * run.steps // [{ step: 0, label: "sweep", from: "start" }, { step: 1, label: "racer", from: "start" }, ...]
 * ```
 */
import { Data, Deferred, Effect, Exit, Fiber } from "effect"
import { HookPoints, type HookPointsService, labelled, OperationLabel } from "./HookPoints.ts"
import { makeChooser, scheduleProblem, type StepSchedule } from "./StepSchedule.ts"

/** One operation of a step-scheduled run. */
export interface ScheduledOperation<A, E, R> {
  readonly label: string
  readonly effect: Effect.Effect<A, E, R>
}

/** Options of a step-scheduled run. */
export interface StepSchedulerOptions {
  /** k: most scheduling points (steps, starts included) the run may reach. */
  readonly maxSteps: number
  /** Which hook hits are scheduling points (default: every hit by a scheduled operation). */
  readonly points?: (label: string, hook: string) => boolean
  /** Whether operation `label`, running, waits on another (polled while waiting for it). */
  readonly isBlocked?: (label: string) => Effect.Effect<boolean>
  /** Real-time bound on waiting for any progress (default `DEFAULT_PROGRESS_TIMEOUT_MS`). */
  readonly progressTimeoutMs?: number
  /** Real time between `isBlocked` polls (default 2 ms). */
  readonly blockedPollMs?: number
}

/** One step: which operation proceeded, from where (`start` or the hook it was paused at). */
export interface ScheduledStep {
  readonly step: number
  readonly label: string
  readonly from: string
}

/** What a step-scheduled run produced. */
export interface ScheduledRun<A, E> {
  /** Each operation's exit, in the operations' order. */
  readonly exits: ReadonlyArray<Exit.Exit<A, E>>
  readonly steps: ReadonlyArray<ScheduledStep>
  /** Labels of operations seen blocked at some point, in the order first seen. */
  readonly blocked: ReadonlyArray<string>
}

/** The run reached more scheduling points than its stated bound k. */
export class StepBoundExceeded extends Data.TaggedError("StepBoundExceeded")<{ readonly maxSteps: number; readonly message: string }> {}
/** No operation made progress within the bound (a deadlock, or an operation hung outside a hook point). */
export class SchedulerStalled extends Data.TaggedError("SchedulerStalled")<{ readonly timeoutMs: number; readonly waiting: ReadonlyArray<string>; readonly message: string }> {}
/** The schedule or the options do not fit the operations (a corrupt replayed scenario, a bad bound). */
export class InvalidSchedule extends Data.TaggedError("InvalidSchedule")<{ readonly message: string }> {}
/** Every typed failure of a step-scheduled run. */
export type StepSchedulerError = StepBoundExceeded | SchedulerStalled | InvalidSchedule

/** Default real-time bound on waiting for progress: 10 s, far above a step's cost on a loaded machine. */
export const DEFAULT_PROGRESS_TIMEOUT_MS = 10_000
const DEFAULT_BLOCKED_POLL_MS = 2

type SlotState = "ready" | "paused" | "running" | "blocked" | "finished"

interface Slot {
  readonly index: number
  readonly label: string
  state: SlotState
  hook: string
  gate: Deferred.Deferred<void> | undefined
}

/** Real time, not the virtual clock (which a test never advances while the scheduler waits). */
const realDelay = (ms: number): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/** Shared mutable state of one run, with a progress signal replaced each time it fires. */
const makeState = (labels: ReadonlyArray<string>, points: (label: string, hook: string) => boolean) => {
  const slots: Array<Slot> = labels.map((label, index) => ({ index, label, state: "ready", hook: "start", gate: undefined }))
  const byLabel = new Map(slots.map((slot) => [slot.label, slot]))
  let progress = Deferred.makeUnsafe<void>()
  const signal = () => {
    const fired = progress
    progress = Deferred.makeUnsafe<void>()
    Deferred.doneUnsafe(fired, Effect.void)
  }
  const service: HookPointsService = {
    at: (hook) =>
      Effect.flatMap(Effect.service(OperationLabel), (label) => {
        const slot = byLabel.get(label)
        // A hit by an unscheduled fiber, a second fiber of a paused operation, or a hook not exposed: no pause.
        if (slot === undefined || (slot.state !== "running" && slot.state !== "blocked") || !points(label, hook)) return Effect.void
        const gate = Deferred.makeUnsafe<void>()
        slot.state = "paused"
        slot.hook = hook
        slot.gate = gate
        signal()
        return Deferred.await(gate)
      })
  }
  return { slots, service, signal, progress: () => progress }
}

type State = ReturnType<typeof makeState>

/** Waits for any state change, a running operation found blocked, or the timeout (a `SchedulerStalled`). */
const awaitProgress = (state: State, options: StepSchedulerOptions, blocked: Array<string>): Effect.Effect<void, SchedulerStalled> => {
  const timeoutMs = options.progressTimeoutMs ?? DEFAULT_PROGRESS_TIMEOUT_MS
  const pollMs = options.blockedPollMs ?? DEFAULT_BLOCKED_POLL_MS
  const probe = options.isBlocked
  const polling: Effect.Effect<void> = probe === undefined
    ? Effect.never
    : Effect.gen(function*() {
      for (let poll = 0; poll * pollMs <= timeoutMs; poll++) {
        yield* realDelay(pollMs)
        for (const slot of state.slots) {
          if (slot.state !== "running" || !(yield* probe(slot.label))) continue
          slot.state = "blocked"
          if (!blocked.includes(slot.label)) blocked.push(slot.label)
          return
        }
      }
      yield* Effect.never
    })
  const waiting = state.slots.filter((slot) => slot.state === "running" || slot.state === "blocked").map((slot) => `${slot.label} (${slot.state})`)
  const stalled = Effect.andThen(realDelay(timeoutMs), Effect.fail(new SchedulerStalled({
    timeoutMs,
    waiting,
    message: `no scheduled operation made progress within ${timeoutMs} ms; waiting on ${waiting.join(", ") || "nothing"}`
  })))
  return Effect.raceFirst(Effect.raceFirst(Deferred.await(state.progress()), polling), stalled)
}

/** The enabled operations (not started or paused), after waiting while none is and some is unfinished. */
const awaitEnabled = (state: State, options: StepSchedulerOptions, blocked: Array<string>): Effect.Effect<ReadonlyArray<number>, SchedulerStalled> =>
  Effect.gen(function*() {
    for (;;) {
      const enabled = state.slots.filter((slot) => slot.state === "ready" || slot.state === "paused").map((slot) => slot.index)
      if (enabled.length > 0 || state.slots.every((slot) => slot.state === "finished")) return enabled
      yield* awaitProgress(state, options, blocked)
    }
  })

/**
 * Runs `operations` under `schedule`: one operation at a time between scheduling points, the schedule
 * choosing at each. Returns every exit, the steps taken and the operations seen blocked.
 */
export const runScheduled = <A, E, R>(
  operations: ReadonlyArray<ScheduledOperation<A, E, R>>,
  schedule: StepSchedule,
  options: StepSchedulerOptions
): Effect.Effect<ScheduledRun<A, E>, StepSchedulerError, R> =>
  Effect.gen(function*() {
    const problem = scheduleProblem(schedule, operations.length, options.maxSteps) ??
      (new Set(operations.map((operation) => operation.label)).size === operations.length ? undefined : "operation labels must be distinct")
    if (problem !== undefined) return yield* new InvalidSchedule({ message: problem })
    const state = makeState(operations.map((operation) => operation.label), options.points ?? (() => true))
    const choose = makeChooser(schedule, operations.length)
    const fibers: Array<Fiber.Fiber<A, E> | undefined> = operations.map(() => undefined)
    const steps: Array<ScheduledStep> = []
    const blocked: Array<string> = []
    const release = (slot: Slot): Effect.Effect<void, never, R> =>
      Effect.gen(function*() {
        if (slot.state === "ready") {
          slot.state = "running"
          const body = Effect.onExit(labelled(slot.label, operations[slot.index]!.effect), () =>
            Effect.sync(() => {
              slot.state = "finished"
              state.signal()
            }))
          fibers[slot.index] = yield* Effect.forkChild(Effect.provideService(body, HookPoints, state.service))
          return
        }
        if (slot.state !== "paused" || slot.gate === undefined) return yield* Effect.die(new Error(`step scheduler invariant: released ${slot.label} while ${slot.state}`))
        const gate = slot.gate
        slot.gate = undefined
        slot.state = "running"
        yield* Deferred.succeed(gate, undefined)
      })
    const loop = Effect.gen(function*() {
      for (let step = 0; ; step++) {
        const enabled = yield* awaitEnabled(state, options, blocked)
        if (enabled.length === 0) break
        if (step >= options.maxSteps) {
          return yield* new StepBoundExceeded({ maxSteps: options.maxSteps, message: `the operations reached more than ${options.maxSteps} scheduling points (the stated bound k)` })
        }
        const chosen = choose(step, enabled)
        const slot = state.slots[chosen]
        if (slot === undefined || !enabled.includes(chosen)) return yield* Effect.die(new Error(`step scheduler invariant: step ${step} chose ${chosen}, not one of ${enabled.join(",")}`))
        steps.push({ step, label: slot.label, from: slot.hook })
        yield* release(slot)
        while (slot.state === "running") yield* awaitProgress(state, options, blocked)
      }
      const exits: Array<Exit.Exit<A, E>> = []
      for (const fiber of fibers) exits.push(yield* Fiber.await(fiber!))
      return { exits, steps, blocked } satisfies ScheduledRun<A, E>
    })
    return yield* Effect.onExit(loop, (exit) =>
      Exit.isSuccess(exit) ? Effect.void : Fiber.interruptAll(fibers.filter((fiber): fiber is Fiber.Fiber<A, E> => fiber !== undefined)))
  })
