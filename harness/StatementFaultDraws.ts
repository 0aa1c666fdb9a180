/**
 * Drawing the failed-statement fault (`statementFails`, `StatementFault.ts`) after a scenario's
 * commands, for any subject: a subject that adds the fault this way keeps every command draw of its
 * properties as it was (fast-check draws a tuple's parts in order), so a counterexample found before
 * keeps its bytes. The drawn faults go to commands that take faults and carry none yet.
 */
import * as fc from "fast-check"
import { assignPicked, type Picked } from "./DrawnAfter.ts"
import type { StorageFault } from "./Faults.ts"

/**
 * Statements a `statementFails` fault names: the first most often (every transaction has one), 2 to 4
 * often, up to 12 sometimes, for implementations that run more (one that ensures its tables in every
 * transaction, say). A transaction that runs fewer is refused at COMMIT instead, which a model treats
 * alike, so large ordinals are never wasted, only less sharp.
 */
export const statementOrdinalArbitrary: fc.Arbitrary<number> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(1) },
  { weight: 3, arbitrary: fc.integer({ min: 2, max: 4 }) },
  { weight: 2, arbitrary: fc.integer({ min: 5, max: 12 }) }
)

/**
 * The statement a `statementFails` fault names in a transaction that runs `statements` statements (in
 * the layout a subject measured): three draws in four uniformly over them, so each of its statements
 * fails about as often, and the fourth `statementOrdinalArbitrary` (up to 12), for implementations that
 * run more. A draw past the transaction's last statement is refused at COMMIT instead. Shrinks to 1.
 */
export const statementOrdinalWithin = (statements: number): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1, max: Math.max(1, statements) }) },
    { weight: 1, arbitrary: statementOrdinalArbitrary }
  )

/** One drawn statement fault: which free command (modulo their count), which transaction, which statement. */
export interface DrawnStatementFault extends Picked {
  readonly transaction: number
  readonly statement: number
}

/**
 * Up to `maxFaults` statement faults, each on transaction 1 twice as often as on 2 to `maxTransaction`
 * (most calls run one transaction).
 */
export const drawnStatementFaultsArbitrary = (maxTransaction: number, maxFaults: number): fc.Arbitrary<ReadonlyArray<DrawnStatementFault>> =>
  fc.array(
    fc.record({
      pick: fc.nat({ max: 63 }),
      transaction: fc.oneof({ weight: 2, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: Math.min(2, maxTransaction), max: maxTransaction }) }),
      statement: statementOrdinalArbitrary
    }),
    { maxLength: maxFaults }
  )

/** The `statementFails` fault on `transaction`'s `statement`-th statement. */
export const statementFault = (transaction: number, statement: number): StorageFault & { readonly phase: "statementFails" } => ({
  transaction,
  phase: "statementFails",
  statement
})

/**
 * Gives each drawn fault to the `pick`-th (modulo their count) of the commands that `takesFaults` and
 * carry no `fault` yet; a draw with no such command left is dropped.
 */
export const assignStatementFaults = <C extends object>(
  commands: ReadonlyArray<C>,
  drawn: ReadonlyArray<DrawnStatementFault>,
  takesFaults: (command: C) => boolean
): ReadonlyArray<C> => {
  const unfaulted = (command: C) => !("fault" in command) || command.fault === undefined
  return assignPicked(commands, drawn, (command) => takesFaults(command) && unfaulted(command), (command, { transaction, statement }) => ({
    ...command,
    fault: statementFault(transaction, statement)
  }))
}

/** Most commands a subject's targeted statement-fault timeline may append. */
export const MAX_STATEMENT_TIMELINE_COMMANDS = 3

/** The statement faults of one scenario: a subject's targeted timeline and faults on the drawn commands. */
export interface DrawnStatementFaults<C> {
  readonly timeline: ReadonlyArray<C>
  readonly onCommands: ReadonlyArray<DrawnStatementFault>
}

/**
 * A scenario's statement faults: the subject's `timeline` (at most `MAX_STATEMENT_TIMELINE_COMMANDS`
 * commands, one of them carrying a `statementFails` fault) and up to `maxFaults` faults on its drawn
 * commands, on transactions 1 to `maxTransaction`.
 */
export const drawnStatementFaults = <C>(timeline: fc.Arbitrary<ReadonlyArray<C>>, maxTransaction: number, maxFaults: number): fc.Arbitrary<DrawnStatementFaults<C>> =>
  fc.record({ timeline, onCommands: drawnStatementFaultsArbitrary(maxTransaction, maxFaults) })

/**
 * The drawn commands with their statement faults (`assignStatementFaults`), then the targeted
 * timeline: appended, so a divergence the drawn commands show stays at the same step, and a scenario
 * holds at most its shape's commands plus `MAX_STATEMENT_TIMELINE_COMMANDS`.
 */
export const withStatementFaults = <C extends object>(
  commands: ReadonlyArray<C>,
  drawn: DrawnStatementFaults<C>,
  takesFaults: (command: C) => boolean
): ReadonlyArray<C> => {
  if (drawn.timeline.length > MAX_STATEMENT_TIMELINE_COMMANDS) throw new Error(`a statement-fault timeline has more than ${MAX_STATEMENT_TIMELINE_COMMANDS} commands`)
  return [...assignStatementFaults(commands, drawn.onCommands, takesFaults), ...drawn.timeline]
}
