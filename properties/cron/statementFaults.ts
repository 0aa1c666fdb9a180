/**
 * The targeted failed statement of cron (`statementFails`, `harness/StatementFault.ts`), aimed at a
 * tick write and appended to every fault scenario (`CronScenario.failedTickWrite`, drawn after every
 * other draw, so each earlier draw keeps its bytes): a runner declares one pool entry, so it has
 * entries to write ticks for, then runs a turn through `runTurn` (not rejected) or a bootstrap, one
 * statement of whose transaction fails. N4, N5: the ticks are written in the turn's (the bootstrap's)
 * transaction, so a failed insert fails the call and keeps nothing of it; a runtime that swallows the
 * insert's failure returns success. The positional `failedStatements` seldom land there: most of their
 * positions fall past a scenario's last transaction, and most transactions are claims and settling
 * phases.
 */
import * as fc from "fast-check"
import { statementFault, statementOrdinalWithin } from "../../harness/StatementFaultDraws.ts"
import { ACTORS, type Command, RUNNERS } from "./scenario.ts"

/**
 * Outermost statements of each tick-writing transaction in upstream's layout (seed 001; the shipped
 * runtime and `examples/third-party-cron` alike): a turn's tick insert (the scripted turn body runs
 * none); a bootstrap's generation row, then its tick insert.
 */
export const TICK_WRITE_STATEMENTS = { turn: 1, bootstrap: 2 } as const

/** The tick write that fails: a turn of `actorId`, or the singleton's bootstrap, with its failing statement. */
type TickWrite =
  | { readonly op: "turn"; readonly actorId: string; readonly statement: number }
  | { readonly op: "bootstrap"; readonly statement: number }

/** A turn or a bootstrap (equally often), its statement drawn over that transaction's (`statementOrdinalWithin`). */
const tickWrite: fc.Arbitrary<TickWrite> = fc.oneof(
  fc.record({ op: fc.constant("turn" as const), actorId: fc.constantFrom(...ACTORS), statement: statementOrdinalWithin(TICK_WRITE_STATEMENTS.turn) }),
  fc.record({ op: fc.constant("bootstrap" as const), statement: statementOrdinalWithin(TICK_WRITE_STATEMENTS.bootstrap) })
)

/** The commands of one failed tick write by `runner`, after it declares pool entry `index`. */
const failedTickWriteCommands = (runner: number, index: number, write: TickWrite): ReadonlyArray<Command> => {
  const fault = statementFault(1, write.statement)
  const declare: Command = { op: "declare", runner, entries: [{ index, command: "ping" }] }
  return write.op === "turn"
    ? [declare, { op: "turn", runner, actorId: write.actorId, turnMs: 0, rejected: false, fault }]
    : [declare, { op: "bootstrap", runner, fault }]
}

/**
 * The appended failed tick write of a fault scenario whose pool holds `poolSize` entries: a runner
 * declares one of them, then its turn or bootstrap has one statement fail (two commands, within
 * `MAX_STATEMENT_TIMELINE_COMMANDS` of `harness/StatementFaultDraws.ts`).
 *
 * @example fc.sample(failedTickWrite(2), 1) // [[{ op: "declare", runner: 1, entries: [{ index: 0, command: "ping" }] }, { op: "bootstrap", runner: 1, fault: { transaction: 1, phase: "statementFails", statement: 2 } }]]
 */
export const failedTickWrite = (poolSize: number): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(fc.nat({ max: RUNNERS - 1 }), fc.nat({ max: Math.max(0, poolSize - 1) }), tickWrite).map(([runner, index, write]) => failedTickWriteCommands(runner, index, write))
