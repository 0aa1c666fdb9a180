/**
 * The one fault vocabulary of the harness. Faults are generated data, drawn from the same seed as the
 * operations, so they live in the search space and shrink like any other input.
 *
 * Storage faults strike the n-th outermost storage transaction an operation runs, at the storage
 * boundary the harness owns (`StorageBoundary.ts`): an implementation needs no hook point, no
 * cooperation and no knowledge of the harness to be crashed. A subject's model gives each fault the
 * same meaning at the same transaction boundary.
 */
import * as fc from "fast-check"

/**
 * Where a storage fault strikes its transaction:
 * - `inside`: the process dies before the transaction commits, so nothing of it is kept;
 * - `afterCommit`: the process dies right after the commit, before the implementation continues;
 * - `lostReply`: the commit succeeds, but the caller sees a failure (Jepsen's `:info` outcome);
 * - `setAlarmFails`: the platform alarm write made during the transaction fails (no crash);
 * - `commitRefused`: the body runs to its end, then the database refuses the COMMIT (a serialization
 *   failure, as Postgres reports under contention; SQLite's `SQLITE_BUSY` is its kin), so the
 *   transaction rolls back and the caller sees an `SqlError` (retryable reason `SerializationError`).
 *   A clean abort: no crash, no rebuild; whatever the implementation keeps in memory stays.
 * - `statementFails`: the `statement`-th statement at the transaction's outermost level fails, with
 *   the backend's meaning (`StatementFault.ts`): on Postgres a deadlock victim, which aborts the
 *   transaction (every later statement of it fails, and it rolls back); on SQLite a full disk, which
 *   undoes that statement alone and leaves the transaction open. A transaction that runs fewer
 *   statements is refused at COMMIT instead, so a model needs no statement count: when the error
 *   propagates nothing of it commits and the caller sees an `SqlError`, unless the body fails on its
 *   own first, whose error then stands. A body that goes on past the failure to its COMMIT (SQLite
 *   only) is judged as if the statement had not failed (`StruckFault.ts`). No crash, no rebuild.
 * - `readFails`: the `statement`-th read the operation runs outside any transaction (a statement that
 *   writes nothing, so it commits nothing) fails before it runs, as a dropped connection or a statement
 *   timeout would: nothing changes, and the caller sees an `SqlError` unless the implementation handles
 *   it as its rules say. `transaction` is not used (reads run in none); an operation that runs fewer
 *   reads is not struck. No crash, no rebuild.
 */
export type StorageFaultPhase = "inside" | "afterCommit" | "lostReply" | "setAlarmFails" | "commitRefused" | "statementFails" | "readFails"

/**
 * Every storage fault phase (the vocabulary). A subject draws only the phases its model gives a
 * meaning (`StorageFaultSpace.phases`, no default), so adding a phase changes no subject's draws.
 */
export const STORAGE_FAULT_PHASES: ReadonlyArray<StorageFaultPhase> = ["inside", "afterCommit", "lostReply", "setAlarmFails", "commitRefused", "statementFails", "readFails"]

/** The phases that end the process (the harness interrupts the operation and rebuilds the service). */
export const CRASH_PHASES: ReadonlyArray<StorageFaultPhase> = ["inside", "afterCommit"]

/**
 * The coverage situation (`Coverage.ts`) of each storage fault phase as it struck a transaction, named
 * the same in every subject's table.
 */
export const FAULT_SITUATIONS = {
  inside: "faultInsideTransaction",
  afterCommit: "faultAfterCommit",
  lostReply: "faultLostReply",
  setAlarmFails: "faultSetAlarmFailed",
  commitRefused: "faultCommitRefused",
  statementFails: "faultStatementFailed",
  readFails: "faultReadFailed"
} as const satisfies Record<StorageFaultPhase, string>

/** A fault in the `transaction`-th (1-based) outermost storage transaction of one operation. */
export interface StorageFault {
  readonly transaction: number
  readonly phase: StorageFaultPhase
  /**
   * For `statementFails`: the 1-based outermost-level statement of the transaction that fails; for
   * `readFails`: the 1-based read outside any transaction that fails.
   */
  readonly statement?: number
}

/** Options of `storageFaultArbitrary`. */
export interface StorageFaultSpace<P extends StorageFaultPhase = StorageFaultPhase> {
  /** Highest transaction ordinal a fault may name (an operation that runs fewer is not faulted). */
  readonly maxTransaction: number
  /**
   * Phases to draw, in shrinking order (toward the first): exactly those the subject's model gives a
   * meaning. Required, so a phase added to the vocabulary never changes a subject's draws silently.
   */
  readonly phases: ReadonlyArray<P>
  /** Highest statement ordinal a `statementFails` fault may name (default 4). */
  readonly maxStatement?: number
}

/** Default highest statement ordinal of a `statementFails` fault. */
export const DEFAULT_MAX_STATEMENT = 4

/**
 * Generates one storage fault; shrinks toward the first transaction and the first phase.
 *
 * @example storageFaultArbitrary({ maxTransaction: 3, phases: ["inside", "lostReply"] }) // { transaction: 2, phase: "lostReply" }, ...
 */
export const storageFaultArbitrary = <P extends StorageFaultPhase>(
  space: StorageFaultSpace<P>
): fc.Arbitrary<StorageFault & { readonly phase: P }> => {
  const phases = space.phases
  if (phases.length === 0) throw new Error("storageFaultArbitrary needs at least one phase")
  const base = fc.record({
    transaction: fc.integer({ min: 1, max: Math.max(1, space.maxTransaction) }),
    phase: fc.constantFrom(...phases)
  })
  if (!phases.includes("statementFails" as P)) return base
  // Drawn only when the subject opts in, so the draws of every other subject stay as they were.
  return fc.tuple(base, fc.integer({ min: 1, max: Math.max(1, space.maxStatement ?? DEFAULT_MAX_STATEMENT) })).map(([fault, statement]) =>
    fault.phase === "statementFails" ? { ...fault, statement } : fault
  )
}

/** Whether the fault ends the process. */
export const isCrash = (fault: StorageFault): boolean => CRASH_PHASES.includes(fault.phase)

/**
 * The fault in plain words; `label` names the transaction when known (`acknowledge:…`), and `reached`
 * says whether the operation ran that many transactions at all.
 *
 * @example describeStorageFault({ transaction: 2, phase: "inside" }, "acknowledge", true)
 * // "crash inside storage transaction 2 (acknowledge), before it committed"
 */
export const describeStorageFault = (fault: StorageFault, label: string | undefined, reached: boolean): string => {
  const where = `storage transaction ${fault.transaction}${!reached ? " (not reached)" : label === undefined ? "" : ` (${label})`}`
  switch (fault.phase) {
    case "inside":
      return `crash inside ${where}, before it committed`
    case "afterCommit":
      return `crash right after ${where} committed`
    case "lostReply":
      return `${where} committed but its reply was lost`
    case "setAlarmFails":
      return `the platform alarm write fails in ${where}`
    case "commitRefused":
      return `the database refuses to commit ${where} (serialization failure): it rolls back, the process goes on`
    case "statementFails":
      return `statement ${fault.statement ?? 1} of ${where} fails (on Postgres a deadlock victim, aborting the transaction; on SQLite a full disk, undoing that statement alone), or its COMMIT is refused if it runs fewer: an error that propagates rolls it back, the process goes on`
    case "readFails":
      return `read ${fault.statement ?? 1} outside any transaction${reached ? label === undefined ? "" : ` (${label})` : " (not reached)"} fails before it runs (connection lost): nothing changes, the process goes on`
  }
}

/**
 * Whether a model voids a drawn fault: a failed statement in a transaction whose body fails on its
 * own. Which error surfaces first then depends on the implementation's statement order, which no
 * reference rule fixes, so the harness does not inject the fault and the step's words say so.
 *
 * @example voidsStorageFault("statementFails", true) // true
 */
export const voidsStorageFault = (phase: StorageFaultPhase, bodyFailsOnItsOwn: boolean): boolean =>
  phase === "statementFails" && bodyFailsOnItsOwn

/** The step's fault words for a fault its model voided (`voidsStorageFault`). */
export const VOIDED_FAULT_WORDS = "not injected: that transaction fails on its own, and which error comes first depends on the implementation's statement order"

/**
 * The command with `fault` in place of the one it drew (none when undefined): a model is told a
 * fault as it struck (`struckFault`), or not at all when it voided it.
 *
 * @example withStorageFault({ op: "claim", fault: { transaction: 1, phase: "statementFails", statement: 9 } }, { transaction: 1, phase: "commitRefused" })
 * // { op: "claim", fault: { transaction: 1, phase: "commitRefused" } }
 */
export const withStorageFault = <C extends object>(command: C, fault: StorageFault | undefined): C => {
  if (!("fault" in command)) return command
  const { fault: drawn, ...rest } = command as C & { readonly fault?: StorageFault }
  if (fault === undefined) return drawn === undefined ? command : (rest as C)
  return { ...rest, fault } as C
}

/**
 * The command without its storage fault (`fault`), for a fault the model voided.
 *
 * @example withoutStorageFault({ op: "cancel", fault: { transaction: 1, phase: "statementFails" } }) // { op: "cancel" }
 */
export const withoutStorageFault = <C extends object>(command: C): C => withStorageFault(command, undefined)
