/**
 * The transaction interpreter of the clocks model: one `Run` executes one operation on a draft of
 * the state, giving every outermost storage transaction of process A its ordinal so a generated
 * storage fault strikes the same transaction the storage boundary strikes (crash inside: rolled
 * back, process gone; crash after commit: kept, process gone; lost reply: kept, the caller sees a
 * storage error; refused commit: rolled back, the caller sees a storage error, the process goes on),
 * and every durable emit of A its ordinal for journal faults.
 */
import { voidsStorageFault } from "../../harness/Faults.ts"
import { clockDeferred, clockIdentity, completedIdentity, EVENT, journalEmitFails, keyOf, RETRY_CAP_MS, retryDelayMs } from "./keys.ts"
import { canonical } from "../../harness/CodeUnitOrder.ts"
import { inPassOrder } from "./passOrder.ts"
import { CLOCKS_FAULT_SITUATIONS, type ClocksSituation } from "./situations.ts"
import { type AppliedRace, type ClockState, type FaultedCommand, FLOW, type Json, type ModelState, type ProcessName, type RecordState, type Resume, type TimerState } from "./types.ts"

/** The process crashed at a storage transaction (the harness interrupts it from outside). */
export class Crash {
  constructor(readonly transaction: number, readonly phase: "inside" | "afterCommit", readonly process: ProcessName = "A") {}
}

/** A defect the operation dies with (`JournalError` or `SqlError`, as the session names it). */
export class Defect {
  constructor(readonly error: string) {}
}

/** Bound on timer fires one operation may perform in the model (a runaway is a model bug). */
export const MAX_FIRES_PER_OPERATION = 1_000

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
/** A mutable draft of the state. */
export type Draft = Mutable<Omit<ModelState, "deferreds" | "clocks" | "journal" | "timers" | "waiting">> & {
  deferreds: Record<string, ModelState["deferreds"][string]>
  clocks: Record<string, ClockState>
  journal: Record<string, RecordState>
  timers: Array<TimerState>
  waiting: Record<string, { readonly reason: string; readonly token: string }>
}

const cloneDraft = (state: ModelState | Draft): Draft => structuredClone(state) as Draft

/** One operation's execution on the model. */
export class Run {
  state: Draft
  transactions = 0
  emits = 0
  fires = 0
  flushes = 0
  readonly resumes: Array<Resume> = []
  readonly optionalResumes: Array<Resume> = []
  readonly fireInstantsMs: Array<number> = []
  /** Per fire instant (as `fireInstantsMs`), the resumes its fires must make. */
  readonly fireResumes: Array<number> = []
  /** Per fire instant (as `fireInstantsMs`), the storage transactions its fires start on the faulted process (A). */
  readonly fireTransactions: Array<number> = []
  readonly reached = new Set<string>()
  /** Identities of the clock-scheduled records the operation's sweeps re-announced (C12), in order. */
  readonly announced: Array<string> = []
  /** Named situations the operation reached inside the interpreter (`situations.ts` adds the rest). */
  readonly noted = new Set<ClocksSituation>()
  /** The fire race that applied (set by `advance`). */
  race: AppliedRace | null = null
  /** A `statementFails` fault named a transaction whose body failed on its own (`voidsStorageFault`). */
  faultVoided = false
  /** The order passes take where no rule fixes one (`Operation.passOrder`): 0 is ascending key order for sweeps and the order of arming for one instant's fires. */
  passOrder = 0
  /** A sweep runs its wake pass before its clock pass (`Operation.sweepWakesFirst`). */
  sweepWakesFirst = false
  /** Reads outside any transaction the fault process's sweeps ran (counted for a `readFails` fault). */
  private readsOutside = 0
  fault: FaultedCommand["fault"]
  journalFault: number | undefined
  /** How many consecutive durable emits fail from `journalFault` on (a journal outage; at least 1). */
  journalOutageEmits = 1
  /** The process whose storage transactions and durable emits the command's faults strike (B's own sweeps; A otherwise). */
  readonly faultProcess: ProcessName

  constructor(state: ModelState, command: FaultedCommand, atMs: number) {
    this.state = cloneDraft(state)
    this.state.nowMs = atMs
    this.fault = command.fault
    this.journalFault = command.journalFault
    this.journalOutageEmits = Math.max(1, command.journalOutageEmits ?? 1)
    this.faultProcess = command.op === "sweep" ? command.process : "A"
  }

  /** Runs `body` as one outermost transaction of `process` (only the fault process's are counted and faulted). */
  transaction<T>(process: ProcessName, body: (draft: Draft) => T, journalOwn = false): T {
    const draft = cloneDraft(this.state)
    if (process !== this.faultProcess) {
      const value = body(draft)
      this.state = draft
      return value
    }
    // The journal opens its own transaction only after the harness's journal let the emit through: a
    // failing emit there starts no storage transaction, so no storage fault can strike it.
    if (journalOwn && this.emitFails(this.emits + 1)) {
      this.emits++
      this.failDurableEmit()
    }
    const ordinal = ++this.transactions
    let failure: Defect | undefined
    let value: T | undefined
    try {
      value = body(draft)
    } catch (error) {
      if (!(error instanceof Defect)) throw error
      failure = error
    }
    // A failed read strikes a read outside any transaction (`readOutside`), never a transaction.
    const fault = this.fault?.phase !== "readFails" && this.fault?.transaction === ordinal ? this.fault.phase : undefined
    if (fault !== undefined) this.noted.add(CLOCKS_FAULT_SITUATIONS[fault])
    if (fault === "inside") throw new Crash(ordinal, "inside", process)
    if (failure !== undefined) {
      if (fault !== undefined && voidsStorageFault(fault, true)) this.faultVoided = true
      throw failure
    }
    // The database refused the COMMIT (a clean abort): a failure like any other inside the state
    // transaction, so rows and records roll back together (C4) and the caller sees the storage error;
    // a refused fire is retried with backoff like any failed fire (C11); nothing is armed (C8). A
    // failed statement rolls the transaction back the same way, whichever of its statements it was
    // (Postgres aborts it; on SQLite the call let the error through; a recovered one is judged unfaulted).
    if (fault === "commitRefused" || fault === "statementFails") {
      this.reached.add("C4")
      throw new Defect(journalOwn ? "JournalError:unavailable" : "SqlError")
    }
    this.state = draft
    if (fault === "afterCommit") throw new Crash(ordinal, "afterCommit", process)
    if (fault === "lostReply") {
      this.reached.add("C4")
      throw new Defect(journalOwn ? "JournalError:unavailable" : "SqlError")
    }
    return value as T
  }

  /** Admits a durable record (C2): Duplicate when byte-equal, a conflict defect when not. */
  emit(process: ProcessName, draft: Draft, id: string, eventType: string, payload: Json, hidden: Json = null, meta: Json = null): void {
    if (process === this.faultProcess && this.emitFails(++this.emits)) this.failDurableEmit()
    this.reached.add("C3")
    if (draft.lossyLatched) this.reached.add("B5")
    const content = canonical({ eventType, payload, hidden, meta })
    const stored = draft.journal[id]
    if (stored !== undefined) {
      this.reached.add("C2")
      this.noted.add(stored.content === content ? "journalDuplicate" : "journalConflict")
      if (stored.content !== content) throw new Defect("JournalError:idempotency_conflict")
      return
    }
    draft.journal[id] = { eventType, payload, content, named: hidden, meta }
  }

  resume(resume: Resume, optional = false): void {
    ;(optional ? this.optionalResumes : this.resumes).push(resume)
  }

  /** Whether the fault process's `ordinal`-th durable emit of the operation fails (inside the journal's outage). */
  private emitFails(ordinal: number): boolean {
    return journalEmitFails(ordinal, this.journalFault, this.journalOutageEmits)
  }

  /** The harness's journal refuses the faulted durable emit: the caller sees the journal unavailable. */
  private failDurableEmit(): never {
    this.noted.add("durableEmitFailed")
    throw new Defect("JournalError:unavailable")
  }

  /** C5: first writer wins, and the record is emitted from the stored row. */
  complete(process: ProcessName, draft: Draft, exec: string, deferred: string, exit: Json, metadata: Json): "Created" | "Existing" {
    const key = keyOf(exec, deferred)
    const existing = draft.deferreds[key]
    if (existing === undefined) {
      draft.deferreds[key] = { executionId: exec, deferredName: deferred, exit, metadata, completedAtMs: draft.nowMs, consumedAtMs: null }
    } else this.reached.add("C5")
    const row = draft.deferreds[key]!
    this.emit(process, draft, completedIdentity(exec, deferred), EVENT.deferredCompleted, {
      flowName: "flow",
      executionId: exec,
      deferredName: deferred,
      completedAtMs: row.completedAtMs
    }, { exit: row.exit, metadata: row.metadata })
    return existing === undefined ? "Created" : "Existing"
  }

  /** C10: one fire of the timer `timer`; a failure re-arms it after the backoff (C11). */
  fire(timer: TimerState): void {
    if (++this.fires > MAX_FIRES_PER_OPERATION) throw new Error("model: too many fires in one operation")
    const clock = this.state.clocks[timer.key]!
    const at = this.state.nowMs
    this.reached.add("C10")
    this.reached.add("C1")
    if (timer.failures > 0) this.reached.add("C11")
    let completion: "Created" | "Existing" = "Created"
    try {
      this.transaction(timer.process, (draft) => {
        const metadata = { clockName: clock.clockName, dueAtMs: clock.dueAtMs, completedAtMs: at }
        completion = this.complete(timer.process, draft, clock.executionId, clock.deferredName, { _tag: "Success", value: null }, metadata)
        const row = draft.clocks[timer.key]!
        if (row.completedAtMs === null) {
          draft.clocks[timer.key] = { ...row, completedAtMs: at }
          this.emit(timer.process, draft, clockIdentity(clock.executionId, clock.clockName, 1), EVENT.clockCompleted, {
            flowName: "flow",
            executionId: clock.executionId,
            clockName: clock.clockName,
            completedAtMs: at
          })
        } else this.reached.add("IG1")
      })
    } catch (error) {
      if (!(error instanceof Defect)) throw error
      this.noted.add("fireFailedRetried")
      this.reached.add("C11")
      const delayMs = retryDelayMs(timer.failures + 1)
      if (delayMs === RETRY_CAP_MS) this.noted.add("fireRetryAtBackoffCap")
      this.replaceTimer(timer, { ...timer, failures: timer.failures + 1, atMs: at + delayMs, seq: ++this.state.seq })
      return
    }
    this.noteFired(timer, clock, completion)
    this.replaceTimer(timer, null)
    this.flushes++
    this.resume({ process: timer.process, executionId: clock.executionId, reason: "clock", sourceId: null })
  }

  /** The situations of a fire that committed: which of its writes won, and whether it was a retry. */
  private noteFired(timer: TimerState, clock: ClockState, completion: "Created" | "Existing"): void {
    this.noted.add(clock.completedAtMs === null ? "fireCompletesClock" : "fireFindsClockCompleted")
    if (completion === "Existing") this.noted.add("fireFindsCompletion")
    if (timer.failures > 0) this.noted.add("fireRetrySucceeded")
  }

  private replaceTimer(timer: TimerState, next: TimerState | null): void {
    const index = this.state.timers.findIndex((entry) => entry.process === timer.process && entry.key === timer.key)
    if (index < 0) return
    if (next === null) this.state.timers.splice(index, 1)
    else this.state.timers[index] = next
  }

  /** C9: arm `key` in `process` unless fired with its completion standing or already live; due clocks fire at once. */
  arm(process: ProcessName, key: string): void {
    const clock = this.state.clocks[key]!
    if (clock.completedAtMs !== null && this.state.deferreds[keyOf(clock.executionId, clock.deferredName)] !== undefined) return
    this.reached.add("C9")
    if (clock.completedAtMs !== null) this.noted.add("rearmAfterRewind")
    const live = this.state.timers.find((timer) => timer.process === process && timer.key === key)
    if (live !== undefined) {
      // A re-arm inside a failed fire's backoff keeps the live timer (C9 with C11).
      if (live.failures > 0) this.noted.add("rearmKeptInBackoff")
      return
    }
    const timer: TimerState = { process, key, atMs: Math.max(clock.dueAtMs, this.state.nowMs), failures: 0, seq: ++this.state.seq }
    this.state.timers.push(timer)
    if (clock.dueAtMs <= this.state.nowMs) {
      this.noted.add("armedPastDueFiresAtOnce")
      this.fire(timer)
    }
  }

  /**
   * C12: re-announce and arm every pending clock; with the flow, wake every unconsumed completion. With
   * a flow name, only that flow's clocks and completions (the seed's `pendingClocks({ flowName })`):
   * every row of the scenarios is in `FLOW`, so a sweep of another flow finds nothing. Each pass starts
   * with one read outside any transaction (the pending clocks; the completions, with a flow name).
   */
  sweep(process: ProcessName, withFlow: boolean, flow: string = FLOW): void {
    this.reached.add("C12")
    const ours = !withFlow || flow === FLOW
    const before = new Set(Object.keys(this.state.deferreds).filter((key) => this.state.deferreds[key]!.consumedAtMs === null))
    if (withFlow && this.sweepWakesFirst) this.wakePass(process, ours, before)
    this.clockPass(process, ours)
    if (withFlow && !this.sweepWakesFirst) this.wakePass(process, ours, before)
  }

  /** C12's clock pass: read the pending clocks, then re-announce and arm each. */
  private clockPass(process: ProcessName, ours: boolean): void {
    this.readOutside(process)
    const ascending = Object.keys(this.state.clocks).filter((key) => ours && this.state.clocks[key]!.completedAtMs === null).sort()
    const pending = inPassOrder(ascending, this.passOrder)
    if (pending.length > 0) this.noted.add("sweepRearmsPending")
    for (const key of pending) {
      const clock = this.state.clocks[key]!
      this.announced.push(clockIdentity(clock.executionId, clock.clockName, 0))
      this.transaction(process, (draft) =>
        this.emit(process, draft, clockIdentity(clock.executionId, clock.clockName, 0), EVENT.clockScheduled, scheduledPayload(clock)), true)
      this.flushes++
      this.arm(process, key)
    }
  }

  /** C12's wake pass (with a flow name): read the completions, then wake each unconsumed one of the flow; `before`: the unconsumed ones when the sweep began. */
  private wakePass(process: ProcessName, ours: boolean, before: ReadonlySet<string>): void {
    this.readOutside(process)
    if (!ours) return
    for (const key of Object.keys(this.state.deferreds).sort()) {
      const row = this.state.deferreds[key]!
      if (row.consumedAtMs !== null) continue
      this.noted.add("sweepWakesCompletion")
      this.resume({ process, executionId: row.executionId, reason: "deferred", sourceId: wakeOf(row.executionId, row.deferredName) }, !before.has(key))
    }
  }

  /** One read of `process` outside any transaction: the one a `readFails` fault names fails before it runs (the caller sees the storage error). */
  private readOutside(process: ProcessName): void {
    if (process !== this.faultProcess || this.fault?.phase !== "readFails") return
    if (++this.readsOutside !== Math.max(1, this.fault.statement ?? 1)) return
    this.noted.add("faultReadFailed")
    throw new Defect("SqlError")
  }
}

/** The payload of clock-scheduled from a stored clock. */
export const scheduledPayload = (clock: ClockState): Json => ({
  flowName: "flow",
  executionId: clock.executionId,
  clockName: clock.clockName,
  deferredName: clock.deferredName,
  dueAtMs: clock.dueAtMs
})

const wakeOf = (exec: string, deferred: string): string => `engine:wake:${JSON.stringify(["flow", exec, deferred])}`

export { clockDeferred }
