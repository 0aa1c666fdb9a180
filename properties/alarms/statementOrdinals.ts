/**
 * Which statement a `statementFails` fault names (`harness/StatementFault.ts`), per kind of scheduler
 * transaction: drawn uniformly over the statements that kind of transaction runs, so every statement of
 * a schedule, a cancel, a transaction, an acknowledgement, a failure write and the after-batch
 * reconcile (R4, R6, R23-R26) fails about as often as any other, on every adapter.
 *
 * The counts are the shipped scheduler's outermost statements, measured on sqlite, pglite and postgres
 * by logging every statement of every transaction the faults property runs. They are the same on pglite
 * and postgres and one fewer on sqlite (no transaction lock), so the ranges are Postgres's: on sqlite the
 * last ordinal of a range is one past the end, and that transaction is refused at COMMIT instead, which
 * the model treats alike. Once the tables exist, every transaction starts with the lock and the
 * migration check (R3, R4) and ends with the reconcile read and the platform alarm write (R6); the
 * first transaction on a fresh database also creates the tables and the wake index. Implementations
 * that run more statements are still reached by the draw over the whole range (`ALARM_MAX_STATEMENT`).
 * `test/properties/alarms-statement-ordinals.test.ts` checks the counts against the shipped scheduler.
 */
import * as fc from "fast-check"
import type { TransactionFault } from "../../models/alarms/index.ts"

/** Statements before a transaction's own, once the tables exist: the transaction lock (Postgres) and the migration check. */
const PREFIX_STATEMENTS = 2
/** Statements after a transaction's own: the reconcile read and the platform alarm write (R6). */
const RECONCILE_STATEMENTS = 2
/** Statements the first transaction on a fresh database adds: two tables, the column check, the backfill, the old index dropped, the wake index (R3). */
const MIGRATION_STATEMENTS = 6
/** Statements of one schedule (R8, R17): read the existing row, replace it, write the attempts row, set `wake_at`. */
const SCHEDULE_STATEMENTS = 4
/** Statements of one cancel (R19): delete the row and its attempts row. */
const CANCEL_STATEMENTS = 2
/** Statements of a one-shot's acknowledgement (R23): delete the row and its attempts row. */
const ACKNOWLEDGE_STATEMENTS = 2
/** Statements of a repeat's acknowledgement (R23): move `run_at`, write the attempts row, set `wake_at`. */
const REPEAT_ACKNOWLEDGE_STATEMENTS = 3
/** Statements of a failure write (R25): re-read the row, write the attempts row, set `wake_at`. */
const FAILURE_WRITE_STATEMENTS = 3
/** Most mutations a drawn `transaction` command runs (`transactionMutationOf` in arbitraries.ts). */
const MAX_TRANSACTION_MUTATIONS = 3

/** A kind of scheduler transaction a statement fault names. */
export type FaultedTransaction =
  | "schedule"
  | "cancel"
  | "transaction"
  | "timelineTransaction"
  | "acknowledge"
  | "failureWrite"
  | "afterBatch"
  /** Any transaction of a dispatch: a handler's schedule, an acknowledgement (of a repeat too), a failure write or the after-batch reconcile. */
  | "dispatch"

/** Outermost statements of a transaction whose own statements number `own`, once the tables exist (Postgres). */
const transactionOf = (own: number): number => PREFIX_STATEMENTS + own + RECONCILE_STATEMENTS

/**
 * Outermost statements of each kind of transaction once the tables exist, on Postgres (sqlite: one
 * fewer): a schedule 8, a cancel 6, a drawn transaction up to 16 (three schedules), the timeline's
 * transaction of two schedules 12, a one-shot's acknowledgement 6 (a repeat's 7), a failure write 7, the
 * empty transaction that reconciles after a batch 4, and any transaction of a dispatch up to 8.
 */
export const TRANSACTION_STATEMENTS: Readonly<Record<FaultedTransaction, number>> = {
  schedule: transactionOf(SCHEDULE_STATEMENTS),
  cancel: transactionOf(CANCEL_STATEMENTS),
  transaction: transactionOf(MAX_TRANSACTION_MUTATIONS * SCHEDULE_STATEMENTS),
  timelineTransaction: transactionOf(2 * SCHEDULE_STATEMENTS),
  acknowledge: transactionOf(ACKNOWLEDGE_STATEMENTS),
  failureWrite: transactionOf(FAILURE_WRITE_STATEMENTS),
  afterBatch: transactionOf(0),
  dispatch: transactionOf(Math.max(SCHEDULE_STATEMENTS, REPEAT_ACKNOWLEDGE_STATEMENTS, FAILURE_WRITE_STATEMENTS))
}

/**
 * Highest statement a `statementFails` fault names: the longest transaction any command runs, a drawn
 * transaction of three schedules that also migrates a fresh database, on Postgres (22).
 */
export const ALARM_MAX_STATEMENT = MIGRATION_STATEMENTS + TRANSACTION_STATEMENTS.transaction

/** Of every `OWN_RANGE_SLOTS + 1` draws, this many name a statement of the kind's own range, the last one any up to `ALARM_MAX_STATEMENT`. */
const OWN_RANGE_SLOTS = 3

/** Greatest common divisor. */
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))

/** The smallest number every range length divides, so that each range is drawn exactly uniformly. */
const RANGE_CYCLE = [...Object.values(TRANSACTION_STATEMENTS), ALARM_MAX_STATEMENT].reduce((cycle, length) => (cycle * length) / gcd(cycle, length), 1)

/**
 * How many values an ordinal draw takes (0 to `ORDINAL_DRAWS - 1`): one integer, as the uniform 1 to 16
 * it replaces was, so every other draw of a scenario keeps its bytes and only the ordinals change.
 */
export const ORDINAL_DRAWS = (OWN_RANGE_SLOTS + 1) * RANGE_CYCLE

/**
 * The statement a draw (0 to `ORDINAL_DRAWS - 1`) names in a `kind` transaction: three draws in four
 * uniformly over its own statements, the fourth uniformly up to `ALARM_MAX_STATEMENT` (a first
 * transaction that migrates, an implementation that runs more, or a COMMIT refused instead). Counted
 * cyclically, so the draws fast-check favours, near either end of the range, name the first and the
 * last statements of the transaction (the lock and the migration check; the reconcile and the
 * platform alarm write), and a draw that shrinks toward 0 names the first.
 */
export const ordinalOf = (kind: FaultedTransaction, draw: number): number => {
  const slot = draw % (OWN_RANGE_SLOTS + 1)
  const step = Math.floor(draw / (OWN_RANGE_SLOTS + 1))
  return 1 + (step % (slot < OWN_RANGE_SLOTS ? TRANSACTION_STATEMENTS[kind] : ALARM_MAX_STATEMENT))
}

/** The ordinal of the failing statement of a `kind` transaction (`ordinalOf`). */
export const statementOrdinal = (kind: FaultedTransaction): fc.Arbitrary<number> =>
  fc.integer({ min: 0, max: ORDINAL_DRAWS - 1 }).map((draw) => ordinalOf(kind, draw))

/**
 * `fault` (drawn with `maxStatement: ORDINAL_DRAWS`) with the statement of a `statementFails` fault
 * turned into one of a `kind` transaction (`ordinalOf`); other faults unchanged.
 */
export const withStatementOrdinal = (fault: fc.Arbitrary<TransactionFault>, kind: FaultedTransaction): fc.Arbitrary<TransactionFault> =>
  fault.map((drawn) => (drawn.phase === "statementFails" ? { ...drawn, statement: ordinalOf(kind, (drawn.statement ?? 1) - 1) } : drawn))
