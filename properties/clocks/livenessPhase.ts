/**
 * The clocks subject's side of the generic liveness check (`harness/Liveness.ts`).
 *
 * After the scenario's commands (its fault window), the system runs to quiescence: first callers
 * retry every completion or schedule call whose reply was lost or failed (a caller retries until
 * acknowledged; a restart or sweep that failed is run again), and runs that were rewound replay their sleep (`scheduleClock`), as a resumed flow
 * does; then virtual time moves on in 10 s rounds until four rounds in a row saw no storage
 * transaction and no resume (40 s, longer than the 30 s backoff cap), at most 12 rounds. Crashed
 * processes were already restarted, with their registration sweep, when they crashed. Then:
 * - L1: every clock whose deadline passed has fired (completedAt set, its completion present);
 * - L2: every completion has at least one resume of its run after it committed (or was consumed,
 *   which a run does only while running);
 * - L3: the system went quiet (no timer left spinning).
 */
import { Effect } from "effect"
import { canonical, type ExecutedStep } from "../../harness/ModelBased.ts"
import { livenessStep, type LivenessPredicate } from "../../harness/Liveness.ts"
import type { ExecutionEnvironment, Json } from "../../harness/Property.ts"
import { nowMs } from "../../harness/VirtualClock.ts"
import type { HarnessError } from "../../harness/errors.ts"
import type { FaultedCommand } from "../../models/clocks/index.ts"
import { observeRows, type ObservedRows } from "./observe.ts"
import type { ClocksSession, LoggedResume } from "./session.ts"

/** Rounds of the run to quiescence. */
export const LIVENESS_BOUNDS = { maxRounds: 12, quietRounds: 4 } as const
/** Virtual time per round. */
export const LIVENESS_ROUND_MS = 10_000
/** Bound on attempts of one retried call. */
const MAX_RETRIES_PER_CALL = 3

/** What the liveness phase learns during the commands, and its step. */
export interface LivenessContext {
  /** Remembers calls to retry (failed) and rewound clocks to replay. */
  readonly noteCall: (command: FaultedCommand, result: Json) => void
  /** Remembers when each completion was first observed (the resume log's length before that step). */
  readonly noteCompletions: (observed: ObservedRows, resumeIndex: number) => void
  /** The liveness step (the loop's last). */
  readonly step: (index: number) => Effect.Effect<ExecutedStep, HarnessError>
}

interface EndState {
  readonly observed: ObservedRows
  readonly nowMs: number
  readonly resumes: ReadonlyArray<LoggedResume>
}

type Row = Readonly<Record<string, Json>>

/** Calls a caller retries until acknowledged; a restart or sweep whose recovery failed (not crashed) is run again, as an operator would. */
const RETRIED: ReadonlyArray<FaultedCommand["op"]> = ["deferredDone", "deferredDoneIfWaiting", "scheduleClock", "restart", "sweep"]

const stripFaults = (command: FaultedCommand): FaultedCommand => {
  const { fault: _fault, journalFault: _journal, journalOutageEmits: _outage, ...plain } = command
  return plain as FaultedCommand
}

/**
 * Whether `resume` resumes the run for the completion `row`: a fire's resume for a clock's deferred, a
 * completion call's resume (which names no deferred), or the sweep's wake naming exactly this deferred.
 */
const resumesCompletion = (resume: LoggedResume, row: Row): boolean => {
  if (resume.executionId !== row["executionId"]) return false
  const deferred = String(row["deferredName"])
  if (resume.reason === "clock") return deferred.endsWith(":fired")
  return resume.sourceId === null || resume.sourceId.endsWith(JSON.stringify(["flow", String(row["executionId"]), deferred]))
}

/** Builds the liveness context of one scenario. */
export const livenessPhase = (session: ClocksSession, environment: ExecutionEnvironment): LivenessContext => {
  const retries = new Map<string, FaultedCommand>()
  const rewoundClocks = new Map<string, { readonly exec: string; readonly clock: string }>()
  const firstSeen = new Map<string, number>()
  /** The resume log's length when the phase started (completions first seen during the phase count from there). */
  let phaseStart = 0
  const completionId = (row: Row) => `${String(row["executionId"])}/${String(row["deferredName"])}@${String(row["completedAtMs"])}`

  const predicates: ReadonlyArray<LivenessPredicate<EndState>> = [
    {
      observable: "clocks whose deadline passed but never fired",
      rules: ["L1"],
      why: "once faults stop, the live process fires every due clock by itself (a failed fire is retried, a restart re-arms every pending clock)",
      violations: (end) => {
        const completions = new Set((end.observed.deferreds as ReadonlyArray<Row>).map((row) => `${String(row["executionId"])}/${String(row["deferredName"])}`))
        return (end.observed.clocks as ReadonlyArray<Row>)
          .filter((row) => (row["dueAtMs"] as number) <= end.nowMs)
          .filter((row) => row["completedAtMs"] === null || !completions.has(`${String(row["executionId"])}/${String(row["deferredName"])}`))
          .map((row) => ({ clock: `${String(row["executionId"])}/${String(row["clockName"])}`, dueAtMs: row["dueAtMs"]!, completedAtMs: row["completedAtMs"] ?? null }))
      }
    },
    {
      observable: "completions never followed by a resume of their run",
      rules: ["L2"],
      why: "every committed completion is resumed at least once after its commit (the completion call, a retry, or the registration sweep's wake)",
      violations: (end) =>
        (end.observed.deferreds as ReadonlyArray<Row>)
          .filter((row) => row["consumedAtMs"] === null)
          .filter((row) => {
            const from = firstSeen.get(completionId(row)) ?? phaseStart
            return !end.resumes.slice(from).some((resume) => resumesCompletion(resume, row))
          })
          .map((row) => ({ completion: `${String(row["executionId"])}/${String(row["deferredName"])}`, completedAtMs: row["completedAtMs"]! }))
    }
  ]

  const retryRound = (index: number) =>
    Effect.gen(function*() {
      let calls = 0
      for (const command of retries.values()) {
        for (let attempt = 0; attempt < MAX_RETRIES_PER_CALL; attempt++) {
          calls++
          const result = yield* session.call(command, index, [])
          if ((result as { readonly _tag?: unknown })._tag === "Success") break
        }
      }
      const observed = yield* observeRows(environment.database.sql)
      for (const { exec, clock } of rewoundClocks.values()) {
        const row = (observed.clocks as ReadonlyArray<Row>).find((entry) => entry["executionId"] === exec && entry["clockName"] === clock)
        if (row === undefined || row["completedAtMs"] === null) continue
        calls++
        yield* session.call({ op: "scheduleClock", exec, clock, durationMs: 1_000 }, index, [])
      }
      return { active: calls > 0, note: `${calls} calls retried or replayed` }
    })

  return {
    noteCall: (command, result) => {
      const plain = stripFaults(command)
      const key = canonical(plain as unknown as Json)
      if (RETRIED.includes(command.op)) {
        if ((result as { readonly _tag?: unknown })._tag === "Failure") retries.set(key, plain)
        else if ((result as { readonly _tag?: unknown })._tag === "Success") retries.delete(key)
      }
      if (command.op === "rewind" && command.deferred.endsWith(":fired")) {
        const clock = command.deferred.slice(0, -":fired".length)
        rewoundClocks.set(`${command.exec}/${clock}`, { exec: command.exec, clock })
      }
    },
    noteCompletions: (observed, resumeIndex) => {
      for (const row of observed.deferreds as ReadonlyArray<Row>) if (!firstSeen.has(completionId(row))) firstSeen.set(completionId(row), resumeIndex)
    },
    step: (index) =>
      Effect.gen(function*() {
        const atMs = yield* nowMs
        phaseStart = session.resumeLog().length
        return yield* livenessStep<EndState>({
          driver: {
            round: (round) =>
              round === 0
                ? retryRound(index)
                : Effect.map(session.advanceQuietly(LIVENESS_ROUND_MS, index), (activity) => ({ active: activity > 0, note: `+10 s: ${activity} transactions and resumes` }))
          },
          options: LIVENESS_BOUNDS,
          observe: Effect.gen(function*() {
            return { observed: yield* observeRows(environment.database.sql), nowMs: yield* nowMs, resumes: session.resumeLog() }
          }),
          predicates,
          stalledRules: ["L3"],
          atMs,
          covered: ["CLK-020", "CLK-021", "CLK-022"],
          stateJson: (end) => ({ deferreds: end.observed.deferreds as Json, clocks: end.observed.clocks as Json, nowMs: end.nowMs })
        })
      })
  }
}
