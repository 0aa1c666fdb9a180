/**
 * The state, operations and predictions of the clocks reference model (reference page `clocks.md`,
 * seed 003). Plain JSON, no Effect, no I/O; the model never imports an implementation.
 */
import type { ClocksSituation } from "./situations.ts"

/** Any JSON value. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/** The one flow of the scenarios, and the journal source the harness configures. */
export const FLOW = "flow"
/** A second flow name the engine is swept with (C12): no scenario puts a row in it. */
export const OTHER_FLOW = "other-flow"
/** The journal source (`src` in identities). */
export const SOURCE = "engine"

/** Processes: A is restarted after crashes; B is a second engine on the same storage. */
export type ProcessName = "A" | "B"

/** A stored completion, as observed. */
export interface DeferredState {
  readonly executionId: string
  readonly deferredName: string
  readonly exit: Json
  readonly metadata: Json
  readonly completedAtMs: number
  readonly consumedAtMs: number | null
}

/** A stored clock, as observed. */
export interface ClockState {
  readonly executionId: string
  readonly clockName: string
  readonly deferredName: string
  readonly dueAtMs: number
  readonly completedAtMs: number | null
}

/** A journal record: its projection (payload without digests) and its full content for conflicts. */
export interface RecordState {
  readonly eventType: string
  readonly payload: Json
  readonly content: string
  /** The value the record's digests name (deferred-completed: `{exit, metadata}` of the stored row), else null. */
  readonly named: Json
  /** The record's meta when the seed defines it exactly (effect-boundary records); null: the run's root lineage. */
  readonly meta: Json
}

/** A live timer of a process. */
export interface TimerState {
  readonly process: ProcessName
  /** Clock key `exec/clock`. */
  readonly key: string
  readonly atMs: number
  /** Failed fires so far. */
  readonly failures: number
  /** Registration order (the virtual clock wakes equal deadlines in this order). */
  readonly seq: number
}

/** The model's whole state. */
export interface ModelState {
  readonly nowMs: number
  readonly deferreds: Readonly<Record<string, DeferredState>>
  readonly clocks: Readonly<Record<string, ClockState>>
  /** Records by identity `runId|sourceId|seq`. */
  readonly journal: Readonly<Record<string, RecordState>>
  readonly timers: ReadonlyArray<TimerState>
  readonly processB: boolean
  readonly waiting: Readonly<Record<string, { readonly reason: string; readonly token: string }>>
  readonly lossyLatched: boolean
  /** Executions of scripted irreversible effects. */
  readonly effectRuns: number
  readonly seq: number
}

/**
 * A storage fault on the n-th outermost transaction of process A in one operation. `statementFails`:
 * the transaction's `statement`-th statement fails and the transaction rolls back (or its COMMIT is refused when it runs
 * fewer), which the model treats as `commitRefused`; where the transaction's body fails on its own the
 * model voids it (`StepOutcome.faultVoided`) and the harness does not inject it. `readFails` (a sweep's
 * or restart's only): the `statement`-th read outside any transaction fails before it runs, a dropped
 * connection; `transaction` is not used. The model assumes it strikes the sweep's reads in its own
 * order (the pending clocks, then the completions); the harness steps it again without the fault when
 * the implementation ran fewer reads (`StorageBoundary.readsOutside`).
 */
export interface TransactionFault {
  readonly transaction: number
  readonly phase: "inside" | "afterCommit" | "lostReply" | "commitRefused" | "statementFails" | "readFails"
  /** For `statementFails`: which outermost-level statement fails (the model needs no statement count); for `readFails`: which read. */
  readonly statement?: number
}

/**
 * Both processes' fires of one clock at one instant, released in a generated order (the concurrent
 * property). It applies at the advance's first instant whose due timers are exactly one of A and one of
 * B for the same clock; elsewhere it is ignored.
 */
export interface FireRace {
  /** Release order over the processes `[A, B]`: `[1, 0]` releases B's fire first. */
  readonly order: ReadonlyArray<number>
  /** Virtual ms the second fire is held at `clocks.fire.begin` after the first one finished (clamped to the advance). */
  readonly lagMs: number
  /** With lag 0, on engines with independent connections: the second runs into the first's open transaction. */
  readonly overlap: boolean
}

/** A race as it applied in one step (the harness realises exactly this). */
export interface AppliedRace {
  readonly atMs: number
  /** Clock key `exec/clock`. */
  readonly key: string
  readonly first: ProcessName
  readonly second: ProcessName
  readonly lagMs: number
  readonly overlap: boolean
}

/** One command of a scenario. */
export type Command =
  | { readonly op: "scheduleClock"; readonly exec: string; readonly clock: string; readonly durationMs: number }
  | {
    /** Both processes schedule one clock at once (C8: one transaction; the loser returns the stored row). */
    readonly op: "scheduleRace"
    readonly exec: string
    readonly clock: string
    /** Each process's duration: the first to commit sets the deadline, the other is handed it. */
    readonly durationsMs: Readonly<Record<ProcessName, number>>
    /** The process whose transaction commits first. */
    readonly first: ProcessName
    /** On engines with independent connections and row locks: the second runs into the first's open transaction. */
    readonly overlap: boolean
  }
  | {
    readonly op: "deferredDone"
    readonly exec: string
    readonly deferred: string
    /** The success value of the completion's exit (any JSON: objects in varying key order, arrays). */
    readonly value: Json
    /** Opaque correlation metadata (C5), absent when undefined. */
    readonly metadata?: Json
  }
  | {
    readonly op: "deferredDoneIfWaiting"
    readonly exec: string
    readonly deferred: string
    readonly value: Json
    readonly reason: string
    readonly token: string
    /**
     * The run stops waiting while the call runs (its flow moved on): `atBegin`, as the call's first
     * storage transaction begins, so a check made in that transaction (C6) finds it not waiting; `after`,
     * once the call returned (an engine that began no transaction, so the harness could not place it).
     */
    readonly stopsWaiting?: "atBegin" | "after"
  }
  | { readonly op: "deferredResult"; readonly exec: string; readonly deferred: string }
  | {
    /**
     * Both processes read one deferred at once (C7: its first read records consumption once). The
     * process other than `first` starts first and is held before its transaction begins, having read
     * outside any transaction; virtual time moves on by `lagMs` (timers fire as in an advance); then
     * `first` reads to completion, and the held one is released. `first` consumes, at the later time;
     * the held one returns the stored exit and records nothing. `heldRanThrough` (set by the harness,
     * never drawn): the held read began no transaction the harness could hold, so it ran to completion
     * before time moved on. `heldCommittedFirst` (set by the harness, never drawn): the held read was
     * held inside its transaction, after its read, and `first` waited on it, so the held one committed
     * first, with the time it took before the lag (`"atStart"`) or after it (`"afterLag"`: no rule says
     * when within its transaction an engine reads the clock).
     *
     * `heldCommittedFirst: "atStart"` predicts what `heldRanThrough` predicts: the harness sets it only
     * when no timer fires during the lag, and then the held read's commit before or after the lag
     * cannot differ. Both stay, because `heldRanThrough` also covers a read held before BEGIN with
     * fires in the lag, where its place among those fires matters, and `heldCommittedFirst` records
     * the lock wait the server showed.
     */
    readonly op: "resultRace"
    readonly exec: string
    readonly deferred: string
    readonly first: ProcessName
    readonly lagMs: number
    readonly heldRanThrough?: boolean
    readonly heldCommittedFirst?: "atStart" | "afterLag"
  }
  | {
    readonly op: "sweep"
    readonly process: ProcessName
    readonly withFlow: boolean
    /** The flow name passed when `withFlow` (default `FLOW`; `OTHER_FLOW` holds no rows). */
    readonly flow?: string
  }
  | { readonly op: "advance"; readonly ms: number; readonly race?: FireRace }
  | { readonly op: "restart" }
  | { readonly op: "rewind"; readonly exec: string; readonly deferred: string; readonly keepRecords: boolean }
  | { readonly op: "setWaiting"; readonly exec: string; readonly reason: string; readonly token: string }
  | { readonly op: "clearWaiting"; readonly exec: string }
  | { readonly op: "latchLossy" }
  | { readonly op: "effect"; readonly exec: string; readonly attempt: number; readonly fails: boolean }

/**
 * A command with its faults: a storage fault and/or the `journalFault`-th durable emit of process A
 * failing, and with `journalOutageEmits` that many consecutive emits from it on (a journal outage
 * that outlasts several fire retries, C11; default 1).
 */
export type FaultedCommand = Command & { readonly fault?: TransactionFault; readonly journalFault?: number; readonly journalOutageEmits?: number }

/** What the model steps: a command at a virtual time. */
export interface Operation {
  readonly command: FaultedCommand
  readonly atMs: number
  /**
   * An `effect` command's records each commit in the journal's own transaction (C13 fixes the records,
   * not a transaction of the engine's around each; `alternatives.ts`): a refused write is then the
   * journal's `unavailable`, and a failing emit starts no storage transaction. Absent: the engine's.
   */
  readonly effectRecordsInJournalTransactions?: boolean
  /**
   * The order the step's passes take where C12 and C9 fix none (`alternatives.ts`, `passOrder.ts`): the
   * index of an order of a sweep's pending clocks (canonically ascending key order) and of the timers
   * due at one instant (canonically the order of arming), counted as `harness/Alternatives.ts`'s
   * `orderAt` counts them, modulo each list's number of orders. Absent or 0: the canonical orders.
   */
  readonly passOrder?: number
  /**
   * A sweep's wake pass (C12 with a flow name) runs before its clock pass. C12 orders the two passes
   * not at all; they differ only under a failed read (`readFails`), in which pass ran before it.
   * Absent: the clock pass first (upstream's).
   */
  readonly sweepWakesFirst?: boolean
}

/** One `scheduleResume` call. */
export interface Resume {
  readonly process: ProcessName
  readonly executionId: string
  readonly reason: "deferred" | "clock"
  readonly sourceId: string | null
}

/** Rules deciding each observable of a step. */
export interface ObservableRules {
  readonly result: ReadonlyArray<string>
  readonly resumes: ReadonlyArray<string>
  readonly deferreds: ReadonlyArray<string>
  readonly clocks: ReadonlyArray<string>
  readonly journal: ReadonlyArray<string>
}

/** What one step predicts. */
export interface StepOutcome {
  readonly state: ModelState
  /** `{_tag: "Success", value}`, `{_tag: "Failure", error}` or `{_tag: "Crashed", transaction, phase}`. */
  readonly result: Json
  /** Resumes the step must make (any order). */
  readonly resumes: ReadonlyArray<Resume>
  /** Resumes the step may make (a sweep's wake of a completion its own fire made meanwhile). */
  readonly optionalResumes: ReadonlyArray<Resume>
  /** The instants at which timers fired, in order (the harness advances through them). */
  readonly fireInstantsMs: ReadonlyArray<number>
  /** Per fire instant (as `fireInstantsMs`), the resumes its fires must make (the harness waits for them). */
  readonly fireResumes: ReadonlyArray<number>
  /** Per fire instant, the storage transactions its fires start on process A (the harness waits for them too). */
  readonly fireTransactions: ReadonlyArray<number>
  /** The fire race that applied in this step, if any. */
  readonly race: AppliedRace | null
  /** Process A crashed and was restarted (its registration sweep ran). */
  readonly crashed: boolean
  /** Storage transactions process A started. */
  readonly transactions: number
  /** Lossy flushes the step makes (after each committed call or fire, and per swept clock). */
  readonly flushes: number
  readonly rules: ObservableRules
  /** Rules of what the step reached (coverage). */
  readonly reached: ReadonlyArray<string>
  /** Identities of the clock-scheduled records the step's sweeps re-announce (C12), sorted, once each. */
  readonly announced: ReadonlyArray<string>
  /** Named situations the interpreter noted (`situations.ts` decides the step's whole list). */
  readonly noted: ReadonlyArray<ClocksSituation>
  /** A `statementFails` fault named a transaction whose body fails on its own: it is not injected. */
  readonly faultVoided: boolean
  /** One plain sentence: why the model expects this. */
  readonly why: string
}
