/**
 * One step of the clocks model: a command at a virtual time, executed by the transaction interpreter
 * (`run.ts`), with the predictions the property compares and the rules that decide each of them.
 */
import {
  clockDeferred,
  clockIdentity,
  consumedIdentity,
  completedIdentity,
  effectDescriptor,
  effectIdentity,
  effectOutput,
  EVENT,
  keyOf,
  otherProcess
} from "./keys.ts"
import { Crash, Defect, Run, scheduledPayload } from "./run.ts"
import type { Command, FaultedCommand, FireRace, Json, ModelState, ObservableRules, Operation, ProcessName, StepOutcome, TimerState } from "./types.ts"
import { inPassOrder } from "./passOrder.ts"

/** Bound on fire instants one `advance` walks through. */
export const MAX_INSTANTS_PER_ADVANCE = 500

const success = (value: Json): Json => ({ _tag: "Success", value })

/** Executes `command` on `run`; returns the call's value. */
const execute = (run: Run, command: Command, effectRecordsInJournalTransactions: boolean): Json => {
  const now = run.state.nowMs
  switch (command.op) {
    case "scheduleClock":
      schedule(run, "A", command.exec, command.clock, command.durationMs)
      return success(null)
    case "scheduleRace":
      // Whatever overlapped, the first to commit inserts and the second finds its row (C8).
      run.state.processB = true
      schedule(run, command.first, command.exec, command.clock, command.durationsMs[command.first])
      schedule(run, otherProcess(command.first), command.exec, command.clock, command.durationsMs[otherProcess(command.first)])
      return success(null)
    case "deferredDone":
      run.transaction("A", (draft) => run.complete("A", draft, command.exec, command.deferred, { _tag: "Success", value: command.value }, command.metadata ?? null))
      run.flushes++
      run.resume({ process: "A", executionId: command.exec, reason: "deferred", sourceId: null })
      return success(null)
    case "deferredDoneIfWaiting": {
      run.reached.add("C6")
      // The harness stops the run waiting as the transaction begins: the check inside it sees that.
      if (command.stopsWaiting === "atBegin") delete run.state.waiting[command.exec]
      const outcome = run.transaction("A", (draft) => {
        const waiting = draft.waiting[command.exec]
        if (waiting === undefined || waiting.reason !== command.reason || waiting.token !== command.token) return "NotWaiting" as const
        return run.complete("A", draft, command.exec, command.deferred, { _tag: "Success", value: command.value }, null)
      })
      if (outcome !== "NotWaiting") run.flushes++
      if (outcome !== "NotWaiting") run.resume({ process: "A", executionId: command.exec, reason: "deferred", sourceId: null })
      if (command.stopsWaiting === "after") delete run.state.waiting[command.exec]
      return success(outcome)
    }
    case "deferredResult":
      return success(deferredResult(run, "A", command.exec, command.deferred))
    case "resultRace":
      return success(resultRace(run, command))
    case "sweep":
      if (command.process === "B") run.state.processB = true
      run.sweep(command.process, command.withFlow, command.flow)
      return success(null)
    case "advance":
      advance(run, now + command.ms, command.race)
      return success(null)
    case "restart":
      // The restart's recovery (its registration sweep) may itself be faulted.
      restart(run, "A", true)
      return success(null)
    case "effect":
      return effect(run, command.exec, command.attempt, command.fails, effectRecordsInJournalTransactions)
    default:
      harnessCommand(run, command)
      return success(null)
  }
}

/**
 * C8 as `process` runs it: in one transaction, insert the clock due at now + `durationMs` or find the
 * stored row unchanged, and emit clock-scheduled from the stored row; after commit flush and arm it.
 */
const schedule = (run: Run, process: ProcessName, exec: string, clockName: string, durationMs: number): void => {
  const key = keyOf(exec, clockName)
  run.reached.add("C8")
  run.transaction(process, (draft) => {
    const stored = draft.clocks[key] ??
      { executionId: exec, clockName, deferredName: clockDeferred(clockName), dueAtMs: run.state.nowMs + durationMs, completedAtMs: null }
    draft.clocks[key] = stored
    run.emit(process, draft, clockIdentity(exec, clockName, 0), EVENT.clockScheduled, scheduledPayload(stored))
  })
  run.flushes++
  run.arm(process, key)
}

/** C7: the stored exit as `process` reads it, with its first consumption recorded once. */
const deferredResult = (run: Run, process: ProcessName, exec: string, deferred: string): Json => {
  run.reached.add("C7")
  const row = run.state.deferreds[keyOf(exec, deferred)]
  if (row === undefined) return { _tag: "None" }
  run.transaction(process, (draft) => {
    const current = draft.deferreds[keyOf(exec, deferred)]!
    if (current.consumedAtMs !== null) return
    draft.deferreds[keyOf(exec, deferred)] = { ...current, consumedAtMs: draft.nowMs }
    run.emit(process, draft, consumedIdentity(exec, deferred), EVENT.deferredConsumed, {
      flowName: "flow",
      executionId: exec,
      deferredName: deferred,
      consumedAtMs: draft.nowMs
    })
  })
  return { _tag: "Some", value: row.exit }
}

/**
 * Both processes' reads of one deferred (`resultRace`), as `{A, B}` results. The held read found the
 * row (or none) before time moved on; `first` reads after the lag and records the first consumption;
 * the held one then finds it recorded. Ran through: the held read finished before time moved on.
 * Committed first: the held read consumed first, at the time before the lag or after it, and `first`
 * then finds it recorded.
 */
const resultRace = (run: Run, command: Extract<Command, { op: "resultRace" }>): Json => {
  run.state.processB = true
  const held = otherProcess(command.first)
  const results: Record<ProcessName, Json> = { A: null, B: null }
  const heldBeforeLag = command.heldRanThrough === true || command.heldCommittedFirst === "atStart"
  if (heldBeforeLag) results[held] = deferredResult(run, held, command.exec, command.deferred)
  const seenByHeld = run.state.deferreds[keyOf(command.exec, command.deferred)] !== undefined
  advance(run, run.state.nowMs + command.lagMs, undefined)
  const heldRead = () => (seenByHeld ? deferredResult(run, held, command.exec, command.deferred) : { _tag: "None" })
  if (command.heldCommittedFirst === "afterLag") results[held] = heldRead()
  results[command.first] = deferredResult(run, command.first, command.exec, command.deferred)
  if (!heldBeforeLag && command.heldCommittedFirst !== "afterLag") results[held] = heldRead()
  return { A: results.A, B: results.B }
}

/**
 * The race's order of a batch of due timers: when the batch is exactly A's and B's timer of one clock,
 * the first-released fires now and the second now (lag 0) or, held, at `instant + lagMs`.
 */
const raced = (run: Run, batch: ReadonlyArray<TimerState>, race: FireRace, instant: number, targetMs: number): ReadonlyArray<TimerState> | null => {
  const [one, two] = batch
  if (batch.length !== 2 || one === undefined || two === undefined || one.key !== two.key || one.process === two.process) return null
  const byProcess = (name: ProcessName) => (one.process === name ? one : two)
  const first = race.order[0] === 1 ? "B" : "A"
  const second = otherProcess(first)
  const lagMs = Math.max(0, Math.min(race.lagMs, targetMs - instant))
  run.race = { atMs: instant, key: one.key, first, second, lagMs, overlap: race.overlap && lagMs === 0 }
  run.reached.add("IG1")
  if (lagMs === 0) return [byProcess(first), byProcess(second)]
  const held = byProcess(second)
  const index = run.state.timers.indexOf(held)
  run.state.timers[index] = { ...held, atMs: instant + lagMs, seq: ++run.state.seq }
  return [byProcess(first)]
}

/**
 * Walks virtual time to `targetMs`, firing every live timer at its instant, in registration order
 * (reversed when the operation says so: no rule orders the fires of one instant).
 */
const advance = (run: Run, targetMs: number, race: FireRace | undefined): void => {
  let pending = race
  for (let instants = 0; instants < MAX_INSTANTS_PER_ADVANCE; instants++) {
    const due = run.state.timers.filter((timer) => timer.atMs <= targetMs)
    if (due.length === 0) break
    const instant = Math.max(run.state.nowMs, Math.min(...due.map((timer) => timer.atMs)))
    run.state.nowMs = instant
    run.fireInstantsMs.push(instant)
    const batch = inPassOrder(run.state.timers.filter((timer) => timer.atMs <= instant).sort((a, b) => a.seq - b.seq), run.passOrder)
    const ordered = pending === undefined ? null : raced(run, batch, pending, instant, targetMs)
    if (ordered !== null) pending = undefined
    const resumesBefore = run.resumes.length
    const transactionsBefore = run.transactions
    if ((ordered ?? batch).length > 1) run.noted.add("severalFiresAtOneInstant")
    for (const timer of ordered ?? batch) run.fire(timer)
    run.fireResumes.push(run.resumes.length - resumesBefore)
    run.fireTransactions.push(run.transactions - transactionsBefore)
  }
  run.state.nowMs = Math.max(run.state.nowMs, targetMs)
}

/**
 * `process` dies (its timers with it) and starts again with its registration sweep (C12); the faults
 * of the step strike that sweep only when `keepFaults` (a generated restart, not the one after a crash).
 */
const restart = (run: Run, process: ProcessName, keepFaults = false): void => {
  run.state.timers = run.state.timers.filter((timer) => timer.process !== process)
  if (!keepFaults) {
    run.fault = undefined
    run.journalFault = undefined
  }
  run.sweep(process, true)
}

/**
 * C13: intended before the effect, then succeeded or unknown; each record in a transaction of the
 * engine's, or in the journal's own when `journalOwn` (`Operation.effectRecordsInJournalTransactions`).
 */
const effect = (run: Run, exec: string, attempt: number, fails: boolean, journalOwn: boolean): Json => {
  run.reached.add("C13")
  const descriptor = effectDescriptor(exec, attempt)
  // The seed's wire contract (`EffectRecords.boundary`): the whole payload and meta are defined.
  const record = (status: "intended" | "succeeded" | "unknown", output?: Json) =>
    run.transaction("A", (draft) =>
      run.emit("A", draft, effectIdentity(exec, attempt, status), EVENT.effectBoundary, {
        version: 1,
        effect: {
          id: descriptor.id,
          kind: descriptor.kind,
          tier: descriptor.tier,
          status,
          runId: descriptor.runId,
          lineageId: descriptor.lineageId,
          attempt,
          durableBoundary: true,
          providerStream: false,
          ...(output === undefined ? {} : { output })
        }
      }, null, {
        lineageId: descriptor.lineageId,
        timeTravel: { effectId: descriptor.id, kind: descriptor.kind, tier: descriptor.tier, status }
      }), journalOwn)
  record("intended")
  run.state.effectRuns++
  if (fails) {
    record("unknown")
    return { _tag: "Failure", error: "ScriptedEffectError" }
  }
  record("succeeded", effectOutput(attempt))
  return success(effectOutput(attempt))
}

/** Commands the harness performs itself (no implementation call). */
const harnessCommand = (run: Run, command: Command): void => {
  switch (command.op) {
    case "rewind": {
      delete run.state.deferreds[keyOf(command.exec, command.deferred)]
      if (!command.keepRecords) {
        delete run.state.journal[completedIdentity(command.exec, command.deferred)]
        delete run.state.journal[consumedIdentity(command.exec, command.deferred)]
      }
      return
    }
    case "setWaiting":
      run.state.waiting[command.exec] = { reason: command.reason, token: command.token }
      return
    case "clearWaiting":
      delete run.state.waiting[command.exec]
      return
    case "latchLossy":
      run.state.lossyLatched = true
      return
    default:
      return
  }
}

/** Rules deciding each observable of a command, before modifiers. */
const BASE_RULES: Readonly<Record<Command["op"], ObservableRules>> = {
  scheduleClock: { result: ["C8"], resumes: ["C9", "C10"], deferreds: ["C9", "C10"], clocks: ["C8"], journal: ["C8"] },
  scheduleRace: { result: ["C8"], resumes: ["C9", "C10"], deferreds: ["C9", "C10"], clocks: ["C8"], journal: ["C8"] },
  deferredDone: { result: ["C5"], resumes: ["C5", "B1b"], deferreds: ["C5"], clocks: ["C1"], journal: ["C5"] },
  deferredDoneIfWaiting: { result: ["C6"], resumes: ["C6"], deferreds: ["C6"], clocks: ["C1"], journal: ["C6"] },
  deferredResult: { result: ["C7"], resumes: ["C7"], deferreds: ["C7"], clocks: ["C1"], journal: ["C7"] },
  resultRace: { result: ["C7"], resumes: ["C7", "C10"], deferreds: ["C7", "C10"], clocks: ["C1", "C10"], journal: ["C7", "C10"] },
  sweep: { result: ["C12"], resumes: ["C12", "B1d"], deferreds: ["C12", "B1c"], clocks: ["C12", "B1c"], journal: ["C12"] },
  restart: { result: ["C12"], resumes: ["C12", "B1d"], deferreds: ["C12", "B1c"], clocks: ["C12", "B1c"], journal: ["C12"] },
  advance: { result: ["C10"], resumes: ["C10"], deferreds: ["C10", "B1a"], clocks: ["C10", "B1a"], journal: ["C10"] },
  effect: { result: ["C13"], resumes: ["C13"], deferreds: ["C13"], clocks: ["C13"], journal: ["C13"] },
  rewind: { result: ["C9"], resumes: ["C9"], deferreds: ["C9"], clocks: ["C9"], journal: ["C9"] },
  setWaiting: { result: ["C6"], resumes: ["C6"], deferreds: ["C6"], clocks: ["C6"], journal: ["C6"] },
  clearWaiting: { result: ["C6"], resumes: ["C6"], deferreds: ["C6"], clocks: ["C6"], journal: ["C6"] },
  latchLossy: { result: ["C3", "B5"], resumes: ["C3", "B5"], deferreds: ["C3", "B5"], clocks: ["C3", "B5"], journal: ["C3", "B5"] }
}

/**
 * The rules of a step: the command's, plus what happened. A storage fault or a failing journal write
 * adds C4 (what commits together), except to an effect, whose records no engine state holds (C13); a fire retried in the step adds C11 to its resumes; a fire with the
 * lossy sink latched adds C3's "flush failures are ignored" to its resumes. Attribution picks the
 * requirement citing most of them, the first in rule order among equals, and the added causes come
 * first, so the added cause wins over the command's own rule.
 */
const rulesOf = (command: FaultedCommand, run: Run, crashed: boolean, result: Json): ObservableRules => {
  const base = BASE_RULES[command.op]
  // An idempotency conflict fails the call and rolls back its transaction (C2, then C4 for what stays).
  const conflict = (result as { readonly error?: unknown } | null)?.error === "JournalError:idempotency_conflict"
  // A failed read commits nothing and is C12's alone (the sweep must not report what it could not read).
  const storageFaulted = command.fault !== undefined && command.fault.phase !== "readFails"
  const faulted = crashed || storageFaulted || command.journalFault !== undefined || conflict
  // C4 is the engine state transaction holding its journal write; an effect's boundary records commit
  // in the journal's own transactions, outside any engine state (C13), so their failure is C13's alone.
  const durable = faulted && command.op !== "effect" ? ["C4", "B8"] : []
  const retried = run.reached.has("C11") ? ["C11", "B3"] : []
  // A re-arm kept a live timer in its backoff: one live timer per key (C9) during a retry (C11).
  const kept = run.noted.has("rearmKeptInBackoff") ? ["C9", "C11", "B3"] : []
  const answer = (result as { readonly value?: unknown } | null)?.value
  // deferredDoneIfWaiting's Created/Existing answer is C5's first-writer rule; NotWaiting is C6's.
  const resultRules = conflict ? ["C2"] : command.op === "deferredDoneIfWaiting" && answer !== "NotWaiting" && answer !== undefined ? ["C5"] : base.result
  return {
    // The added causes come first: where a requirement of the command's own rule cites as many, the
    // cause still wins (attribution names the first in rule order among equals).
    result: [...kept, ...retried, ...(conflict ? [] : durable), ...resultRules],
    resumes: [...kept, ...retried, ...durable, ...base.resumes],
    deferreds: [...kept, ...(faulted ? durable : base.deferreds)],
    clocks: [...kept, ...(faulted ? durable : base.clocks)],
    journal: [...kept, ...(faulted ? durable : base.journal)]
  }
}

/** Steps the model. */
export const step = (state: ModelState, operation: Operation): StepOutcome => {
  const run = new Run(state, operation.command, operation.atMs)
  run.passOrder = operation.passOrder ?? 0
  run.sweepWakesFirst = operation.sweepWakesFirst === true
  let result: Json
  let crashed = false
  try {
    result = execute(run, operation.command, operation.effectRecordsInJournalTransactions === true)
  } catch (error) {
    if (error instanceof Crash) {
      crashed = true
      result = { _tag: "Crashed", transaction: error.transaction, phase: error.phase }
      run.reached.add("C4")
      const transactions = run.transactions
      restart(run, error.process)
      run.transactions = transactions
    } else if (error instanceof Defect) {
      result = { _tag: "Failure", error: error.error }
    } else throw error
  }
  const next = run.state as ModelState
  return {
    state: next,
    result,
    resumes: run.resumes,
    optionalResumes: run.optionalResumes,
    fireInstantsMs: run.fireInstantsMs,
    fireResumes: run.fireResumes,
    fireTransactions: run.fireTransactions,
    race: run.race,
    crashed,
    transactions: run.transactions,
    flushes: run.flushes,
    rules: rulesOf(operation.command, run, crashed, result),
    reached: [...run.reached].sort(),
    announced: [...new Set(run.announced)].sort(),
    noted: [...run.noted].sort(),
    faultVoided: run.faultVoided,
    why: `${operation.command.op} at ${operation.atMs}: ${crashed ? "the process crashed and restarted with its registration sweep" : "it ran to the end"}`
  }
}
