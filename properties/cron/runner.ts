/**
 * One runner process of a cron scenario, as the harness drives it: its connection behind its own
 * storage boundary, its runtime and relay, the schedule its deploy declares, and the ticks it holds
 * (each with the settling phase it is in). A restart rebuilds the runtime from storage with the same
 * deploy and no claims, as a restarted process would.
 */
import { Effect } from "effect"
import type { Dialect } from "../../adapters/contract.ts"
import type { Json } from "../../harness/Property.ts"
import type { StorageBoundary } from "../../harness/StorageBoundary.ts"
import { HarnessError } from "../../harness/errors.ts"
import { ACTOR_TYPE } from "../../models/cron/index.ts"
import type { ClaimedTick, CommandHandler, CronImplementation, CronRelay, CronRuntime, CronSchedule, CronScheduleInput, TickDelivery } from "../../subjects/cron/api.ts"
import { compareText } from "./observe.ts"
import { CLAIM_LIMIT, TIMING } from "./scenario.ts"

/** A tick a runner holds and the phase its settling is in. */
export interface HeldTick {
  readonly tick: ClaimedTick
  readonly phase: "claimed" | "deliver" | "fired"
  readonly delivery: TickDelivery | null
}

/** One runner process (mutable: the session replaces its parts as the process lives and restarts). */
export interface RunnerProcess {
  readonly index: number
  readonly boundary: StorageBoundary
  runtime: CronRuntime
  relay: CronRelay
  /** The deploy's declaration (kept across restarts), and the schedule the current runtime made of it. */
  input: CronScheduleInput | null
  schedule: CronSchedule | null
  held: Array<HeldTick>
}

const relayOf = (process: Pick<RunnerProcess, "runtime" | "schedule">): CronRelay =>
  process.runtime.relay({
    schedules: () => new Map(process.schedule === null ? [] : [[ACTOR_TYPE, process.schedule]]),
    leaseMs: TIMING.leaseMs
  })

const buildParts = (implementation: CronImplementation, dialect: Dialect, boundary: StorageBoundary, input: CronScheduleInput | null) =>
  Effect.gen(function*() {
    boundary.arm(undefined)
    const runtime = yield* implementation.make({ sql: boundary.sql, dialect, retryWindowMs: TIMING.retryWindowMs })
    const schedule = input === null ? null : yield* runtime.defineSchedule(input)
    return { runtime, schedule }
  }).pipe(Effect.mapError((cause) =>
    new HarnessError({ message: `cron implementation ${implementation.name} could not be built: ${String(cause)}`, hint: "the implementation's make failed; fix the implementation or the adapter", cause })
  ))

/** Starts runner `index` over `boundary`, declaring nothing. */
export const startRunner = (implementation: CronImplementation, dialect: Dialect, boundary: StorageBoundary, index: number): Effect.Effect<RunnerProcess, HarnessError> =>
  Effect.map(buildParts(implementation, dialect, boundary, null), ({ runtime }) => {
    const process: RunnerProcess = { index, boundary, runtime, relay: undefined as unknown as CronRelay, input: null, schedule: null, held: [] }
    process.relay = relayOf(process)
    return process
  })

/** Rebuilds the process from storage with the same deploy and no claims. */
export const restartRunner = (implementation: CronImplementation, dialect: Dialect, process: RunnerProcess): Effect.Effect<void, HarnessError> =>
  Effect.map(buildParts(implementation, dialect, process.boundary, process.input), ({ runtime, schedule }) => {
    process.runtime = runtime
    process.schedule = schedule
    process.relay = relayOf(process)
    process.held = []
  })

/**
 * A claim's ticks by actor, then timer key. No rule fixes the order a claim returns its rows in (a
 * `RETURNING` list has none): the harness, as the runner's loop, takes them in this order, compares
 * them in it and settles them in it, whatever order the implementation returned.
 */
export const inSettlingOrder = (ticks: ReadonlyArray<ClaimedTick>): ReadonlyArray<ClaimedTick> =>
  [...ticks].sort((a, b) => compareText(a.actor_id, b.actor_id) || compareText(a.timer_key ?? "", b.timer_key ?? ""))

/** Claims due ticks; the runner then holds them, replacing older claims of the same ticks. */
export const claimAll = (process: RunnerProcess): Effect.Effect<Json, unknown> =>
  Effect.map(Effect.map(process.relay.claim(CLAIM_LIMIT), inSettlingOrder), (ticks) => {
    const ids = new Set(ticks.map((tick) => tick.intent_id))
    process.held = [...process.held.filter((held) => !ids.has(held.tick.intent_id)), ...ticks.map((tick): HeldTick => ({ tick, phase: "claimed", delivery: null }))]
    return ticks.map((tick) => ({ actorId: tick.actor_id, timerKey: tick.timer_key, intentId: tick.intent_id, claimedUntilMs: Number(tick.claimed_until) }))
  })

/** Runs the next settling phase of the first held tick (one storage transaction). */
export const settleOne = (process: RunnerProcess, handler: CommandHandler): Effect.Effect<Json, unknown> =>
  Effect.gen(function*() {
    const held = process.held[0]
    if (held === undefined) return { phase: "idle" }
    const rest = process.held.slice(1)
    if (held.phase === "claimed") {
      const delivery = yield* process.relay.settleUnfired(held.tick, TIMING.backoffMs)
      process.held = delivery === undefined ? rest : [{ ...held, phase: "deliver", delivery }, ...rest]
      return delivery === undefined ? { phase: "unfired", outcome: "settled" } : { phase: "unfired", outcome: "deliver", command: delivery.command, payload: delivery.payload }
    }
    if (held.phase === "deliver") {
      const outcome = yield* process.relay.deliver(held.tick, held.delivery!, handler)
      process.held = [{ ...held, phase: "fired" }, ...rest]
      return { phase: "deliver", outcome }
    }
    yield* process.relay.settleFired(held.tick)
    process.held = rest
    return { phase: "fired", outcome: "settled" }
  })
