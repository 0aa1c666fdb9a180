/**
 * The implementation side of one cron scenario: one runner process per runner, each with its own
 * connection (independent ones where the adapter has them) behind its own storage boundary, its own
 * runtime and relay, its declared schedule and the ticks it holds. A crash ends that runner's process
 * from outside; the session rebuilds it from storage with the same deploy, holding no claims.
 */
import { Cause, Clock, Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import type { Dialect, IsolatedDatabase } from "../../adapters/contract.ts"
import { AFTER_BEGIN_POINT, BEFORE_COMMIT_POINT, withOpenTransactionPoints } from "../../harness/BoundaryPoints.ts"
import { makeScriptedHooks } from "../../harness/HookPoints.ts"
import { failureJson, resultJson } from "../../harness/ModelBased.ts"
import { type OverlapHooks, runOverlapping } from "../../harness/Overlapping.ts"
import type { Json } from "../../harness/Property.ts"
import { makeStorageBoundary } from "../../harness/StorageBoundary.ts"
import { type FaultAsStruck, faultAsStruck } from "../../harness/StruckFault.ts"
import { HarnessError, OWN_STATEMENT_HINT, ownWorkFailure } from "../../harness/errors.ts"
import { ACTOR_TYPE, type EntryInput, type ScheduleInput, SINGLETON_ID, TENANT } from "../../models/cron/index.ts"
import type { CommandHandler, CronImplementation } from "../../subjects/cron/api.ts"
import { createFiredTable, FIRED_TABLE } from "./observe.ts"
import { backendPid, type RaceEntry, type RaceEvidence, runRaceOverBoundaries, runSequential } from "./race.ts"
import { claimAll, restartRunner, type RunnerProcess, settleOne, startRunner } from "./runner.ts"
import type { Command, DeclaredEntrySpec } from "./scenario.ts"
import { neighbour, respelled } from "./spellings.ts"

/**
 * Where bootstraps overlap: the hook points `subjects/cron` offers (optional), else the storage
 * boundary's right after BEGIN and before COMMIT, the same places for a bootstrap that is one
 * transaction (its hooks are that transaction's first and last acts).
 */
const BOOTSTRAP_OVERLAP: OverlapHooks = {
  begin: ["cron.bootstrapBegun", AFTER_BEGIN_POINT],
  hold: ["cron.bootstrapWritten", BEFORE_COMMIT_POINT]
}

/** A failure of the adapter's database outside the implementation. */
export const harnessError = ownWorkFailure("cron", OWN_STATEMENT_HINT)

/** The error a scripted rejected turn fails with. */
export class TurnRejected extends Error {
  readonly _tag = "TurnRejected"
}

/** An error as the model names it (a declaration's refusal with the entry or key it names, N1). */
export const errorName = (error: unknown): Json => {
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String((error as { readonly _tag: unknown })._tag) : undefined
  const fields = error as { readonly spec?: unknown; readonly zone?: unknown; readonly key?: unknown }
  if (tag === "InvalidCronEntryError") return `InvalidCronEntry ${JSON.stringify({ spec: fields.spec, zone: fields.zone })}`
  if (tag === "DuplicateCronKeyError") return `DuplicateCronKey ${JSON.stringify({ key: fields.key })}`
  if (tag === "SqlError" || tag === "TurnRejected") return tag
  return `Defect: ${error instanceof Error ? error.message : String(error)}`
}

/** One scenario's implementation side. */
export interface CronSession {
  /** Runs one runner command (not a clock command); rebuilds the runner after a crash. */
  readonly call: (command: Command, atMs: number) => Effect.Effect<Json, HarnessError>
  /** The `next` of runner `runner`'s declared entry `key` after `afterMs` (or the error). */
  readonly nextOf: (runner: number, key: string, afterMs: number) => Json
  /** `next(afterMs)` of `spec` in `zone` as runner 0's runtime declares it, undeployed (or the refusal or error). */
  readonly nextOfSpec: (spec: string, zone: string, afterMs: number) => Effect.Effect<Json>
  /** How the operations of the last race met (null before the first race). */
  readonly lastRace: () => RaceEvidence | null
  /** How many runners' bootstrap transactions the last `bootstrapAll` held open at once (0 when run one after the other). */
  readonly lastBootstrapOpenTogether: () => number
  /** The last runner operation's fault as it struck (`struckFault`), and its words; undefined when none was armed. */
  readonly lastFault: () => FaultAsStruck | undefined
}

const ref = (actorId: string) => ({ tenant: TENANT, actor: ACTOR_TYPE, id: actorId })

/** The schedule input a deploy declares. */
export const scheduleInput = (pool: ReadonlyArray<EntryInput>, skipMs: number, entries: ReadonlyArray<DeclaredEntrySpec>): ScheduleInput => ({
  skipMs,
  entries: entries.map((entry) => {
    const declared = pool[entry.index]!
    const spec = entry.neighbour !== undefined ? neighbour(declared.spec, entry.neighbour) : entry.respelled === true ? respelled(declared.spec) : declared.spec
    return { ...declared, command: entry.command, spec }
  })
})

/**
 * Opens the session: a runner process per connection slot, built one after the other (their `make`
 * creates the tables).
 */
export const openCronSession = (implementation: CronImplementation, database: IsolatedDatabase, dialect: Dialect, runners: number, pool: ReadonlyArray<EntryInput>, skipMs: number) =>
  Effect.gen(function*() {
    yield* createFiredTable(database.sql).pipe(Effect.mapError(harnessError("creating the deliveries table")))
    let fireSeq = 0
    const processes: Array<RunnerProcess> = []

    for (let index = 0; index < runners; index++) {
      const connection = database.connections[index] ?? database.sql
      processes.push(yield* startRunner(implementation, dialect, makeStorageBoundary(connection, database.platformAlarm), index))
    }
    const concurrent = new Set(processes.map((_, index) => database.connections[index] ?? database.sql)).size > 1
    // A session of its own to watch the runners' sessions from (Postgres: pg_blocking_pids).
    const observer = concurrent ? database.connections[runners] : undefined
    const pids: ReadonlyArray<number | null> = observer === undefined
      ? processes.map(() => null)
      : yield* Effect.forEach(processes, (process) => backendPid(database.connections[process.index]!))
    let lastRace: RaceEvidence | null = null
    let lastBootstrapOpenTogether = 0
    let lastFault: ReturnType<CronSession["lastFault"]> = undefined
    const restart = (process: RunnerProcess) => restartRunner(implementation, dialect, process)

    const handlerOf = (process: RunnerProcess): CommandHandler => (command) =>
      Effect.gen(function*() {
        const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        fireSeq += 1
        const sql = process.boundary.sql
        yield* sql`INSERT INTO ${sql.literal(FIRED_TABLE)} (seq, command_id, actor_id, timer_key, command, payload, at_ms)
          VALUES (${fireSeq}, ${command.commandId}, ${command.ref.id}, ${command.timerKey}, ${command.command}, ${command.payload}, ${now})`
      }).pipe(Effect.orDie)

    const operationOf = (process: RunnerProcess, command: Command): Effect.Effect<Json, unknown> => {
      switch (command.op) {
        case "turn": {
          const body = Effect.gen(function*() {
            if (command.turnMs > 0) yield* TestClock.adjust(command.turnMs)
            if (command.rejected) return yield* Effect.fail(new TurnRejected("the scripted turn rejects"))
          })
          const entries = process.schedule?.entries ?? []
          // The application's own turn transaction: the body, then writeTicks at the time of the write (N4).
          const turn = command.ownTransaction === true
            ? process.boundary.sql.withTransaction(Effect.gen(function*() {
              yield* body
              yield* process.runtime.writeTicks(ref(command.actorId), entries, yield* Clock.currentTimeMillis)
            }))
            : process.runtime.runTurn(ref(command.actorId), entries, body)
          return Effect.as(turn, null)
        }
        case "bootstrap":
          return Effect.as(process.runtime.bootstrapTicks(ref(SINGLETON_ID), process.schedule?.entries ?? []), null)
        case "claim":
          return claimAll(process)
        case "settle":
          return settleOne(process, handlerOf(process))
        default:
          return Effect.die(new Error(`command ${command.op} is not a runner operation`))
      }
    }

    /** A runner operation under its boundary: a crash ends the process, a failure of claim or settle drops its claims. */
    const runOperation = (process: RunnerProcess, command: Command) =>
      Effect.gen(function*() {
        const fault = "fault" in command ? command.fault : undefined
        process.boundary.arm(fault)
        const outcome = yield* process.boundary.run(operationOf(process, command))
        lastFault = fault === undefined ? undefined : faultAsStruck(fault, process.boundary, command.op)
        const result = resultJson(outcome, errorName)
        if (outcome._tag === "Crashed") yield* restart(process)
        else if (Exit.isFailure(outcome.exit) && (command.op === "claim" || command.op === "settle")) process.held = []
        return result
      })

    const declare = (process: RunnerProcess, entries: ReadonlyArray<DeclaredEntrySpec> | null) =>
      Effect.gen(function*() {
        if (entries === null) {
          process.input = null
          process.schedule = null
          return { _tag: "Success", value: [] } as Json
        }
        const input = scheduleInput(pool, skipMs, entries)
        const exit = yield* Effect.exit(process.runtime.defineSchedule(input))
        if (Exit.isFailure(exit)) return failureJson(exit.cause, errorName)
        process.input = input
        process.schedule = exit.value
        return { _tag: "Success", value: exit.value.entries.map((entry) => entry.key) } as Json
      })

    /** A runner's claim or settling phase as a race entry: under its boundary, with its result as JSON. */
    const raceEntry = (op: { readonly op: "claim" | "settle"; readonly runner: number }): RaceEntry<Json> => {
      const process = processes[op.runner]!
      const command: Command = { op: op.op, runner: op.runner }
      return {
        label: `runner${op.runner}`,
        pid: pids[op.runner] ?? null,
        effect: Effect.gen(function*() {
          process.boundary.arm(undefined)
          const outcome = yield* process.boundary.run(operationOf(process, command))
          if (outcome._tag === "Completed" && Exit.isFailure(outcome.exit)) process.held = []
          return resultJson(outcome, errorName)
        })
      }
    }

    const race = (ops: ReadonlyArray<{ readonly op: "claim" | "settle"; readonly runner: number }>, order: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        const entries = ops.map(raceEntry)
        const delivering = ops.some((op) => op.op === "settle" && processes[op.runner]!.held[0]?.phase === "deliver")
        const distinct = new Set(ops.map((op) => op.runner)).size === ops.length
        const overlapping = observer !== undefined && entries.length === 2 && distinct && !delivering
        const { exits, evidence } = overlapping
          ? yield* runRaceOverBoundaries(ops.map((op) => processes[op.runner]!.boundary), [entries[0]!, entries[1]!], order, observer)
          : { exits: yield* runSequential(entries, order), evidence: "sequential" as const }
        lastRace = evidence
        return { _tag: "Success", value: exits.map((exit) => (Exit.isSuccess(exit) ? exit.value : failureJson(exit.cause, errorName))) } as Json
      })

    const bootstrapAll = (order: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        for (const process of processes) process.boundary.arm(undefined)
        lastBootstrapOpenTogether = 0
        const bootstrapOf = (process: RunnerProcess) => process.runtime.bootstrapTicks(ref(SINGLETON_ID), process.schedule?.entries ?? [])
        if (!concurrent) {
          for (const index of order) {
            const exit = yield* Effect.exit(bootstrapOf(processes[index]!))
            if (Exit.isFailure(exit)) return failureJson(exit.cause, errorName)
          }
          return { _tag: "Success", value: null } as Json
        }
        const operations = processes.map((process) => ({ label: `runner${process.index}`, effect: bootstrapOf(process) }))
        const hooks = yield* makeScriptedHooks
        const { exits, openTogether } = yield* withOpenTransactionPoints(processes.map((process) => process.boundary), hooks, runOverlapping(hooks, operations, order, BOOTSTRAP_OVERLAP))
        lastBootstrapOpenTogether = openTogether
        const failed = exits.find(Exit.isFailure)
        return (failed === undefined ? { _tag: "Success", value: null } : failureJson(failed.cause, errorName)) as Json
      })

    const call = (command: Command, _atMs: number): Effect.Effect<Json, HarnessError> =>
      Effect.gen(function*() {
        switch (command.op) {
          case "declare":
            return yield* declare(processes[command.runner]!, command.entries)
          case "bootstrapAll":
            return yield* bootstrapAll(command.order)
          case "race":
            return yield* race(command.ops, command.order)
          case "restart":
            yield* restart(processes[command.runner]!)
            return { _tag: "Success", value: null } as Json
          case "turn":
          case "bootstrap":
          case "claim":
          case "settle":
            return yield* runOperation(processes[command.runner]!, command)
          default:
            return yield* Effect.die(new Error(`command ${command.op} has no implementation call`))
        }
      })

    const nextOf = (runner: number, key: string, afterMs: number): Json => {
      const entry = processes[runner]!.schedule?.entries.find((candidate) => candidate.key === key)
      if (entry === undefined) return "undeclared"
      try {
        return entry.next(afterMs)
      } catch (error) {
        return `Defect: ${error instanceof Error ? error.message : String(error)}`
      }
    }

    const nextOfSpec = (spec: string, zone: string, afterMs: number): Effect.Effect<Json> =>
      Effect.map(Effect.exit(processes[0]!.runtime.defineSchedule({ skipMs, entries: [{ spec, zone, command: "probe", payload: "{}" }] })), (exit): Json => {
        if (Exit.isFailure(exit)) return errorName(Cause.squash(exit.cause))
        try {
          return exit.value.entries[0]!.next(afterMs)
        } catch (error) {
          return `Defect: ${error instanceof Error ? error.message : String(error)}`
        }
      })

    const session: CronSession = { call, nextOf, nextOfSpec, lastRace: () => lastRace, lastBootstrapOpenTogether: () => lastBootstrapOpenTogether, lastFault: () => lastFault }
    return session
  })

