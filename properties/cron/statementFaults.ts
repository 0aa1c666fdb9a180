/**
 * The targeted failed statement of cron (`statementFails`, `harness/StatementFault.ts`), aimed at a
 * tick write and appended to every fault scenario (`CronScenario.failedTickWrite`, drawn after every
 * other draw, so each earlier draw keeps its bytes): a runner declares one pool entry, so it has
 * entries to write ticks for, then
 * - runs a turn through `runTurn` (not rejected) or a bootstrap, one statement of whose transaction
 *   fails. N4, N5: the ticks are written in the turn's (the bootstrap's) transaction, so a failed
 *   insert fails the call and keeps nothing of it; a runtime that swallows the insert's failure returns
 *   success;
 * - or bootstraps, lets the tick fall due, claims it and settles it through its delivery, and one
 *   statement of the settling after the delivery (settleFired) fails. N8: the delivered tick's row is
 *   rewritten to the next tick in that transaction, so a failed rewrite fails the settle and leaves the
 *   row claimed, to be rewritten after the lease; a relay that swallows it and does something else
 *   (deletes the row) loses the entry's ticks. Under SQLite's meaning of a failed statement the
 *   transaction stays open, so such a relay commits (`StatementFault.ts`).
 *
 * The positional `failedStatements` seldom land there: most of their positions fall past a scenario's
 * last transaction, and most transactions are claims and settling phases.
 */
import * as fc from "fast-check"
import { statementFault, statementOrdinalWithin } from "../../harness/StatementFaultDraws.ts"
import { ACTORS, type Command, RUNNERS } from "./scenario.ts"

/**
 * Outermost statements of each tick-writing transaction in upstream's layout (seed 001; the shipped
 * runtime and `examples/third-party-cron` alike): a turn's tick insert (the scripted turn body runs
 * none); a bootstrap's generation row, then its tick insert; settleFired's rewrite of the row.
 */
export const TICK_WRITE_STATEMENTS = { turn: 1, bootstrap: 2, settleFired: 1 } as const

/** Most commands a failed tick write appends: the declaration, a bootstrap, due, a claim and three settling phases. */
export const MAX_FAILED_TICK_WRITE_COMMANDS = 7

/** The tick write that fails: a turn of `actorId`, the singleton's bootstrap, or the rewrite after a delivery, with its failing statement. */
type TickWrite =
  | { readonly op: "turn"; readonly actorId: string; readonly statement: number }
  | { readonly op: "bootstrap"; readonly statement: number }
  | { readonly op: "settleFired"; readonly statement: number }

/** A turn, a bootstrap or a delivered tick's rewrite (equally often), its statement drawn over that transaction's (`statementOrdinalWithin`). */
const tickWrite: fc.Arbitrary<TickWrite> = fc.oneof(
  fc.record({ op: fc.constant("turn" as const), actorId: fc.constantFrom(...ACTORS), statement: statementOrdinalWithin(TICK_WRITE_STATEMENTS.turn) }),
  fc.record({ op: fc.constant("bootstrap" as const), statement: statementOrdinalWithin(TICK_WRITE_STATEMENTS.bootstrap) }),
  fc.record({ op: fc.constant("settleFired" as const), statement: statementOrdinalWithin(TICK_WRITE_STATEMENTS.settleFired) })
)

/** The commands of one failed tick write by `runner`, after it declares pool entry `index`. */
const failedTickWriteCommands = (runner: number, index: number, write: TickWrite): ReadonlyArray<Command> => {
  const fault = statementFault(1, write.statement)
  const declare: Command = { op: "declare", runner, entries: [{ index, command: "ping" }] }
  if (write.op === "turn") return [declare, { op: "turn", runner, actorId: write.actorId, turnMs: 0, rejected: false, fault }]
  if (write.op === "bootstrap") return [declare, { op: "bootstrap", runner, fault }]
  // The claim's first tick goes through its three settling phases: settleUnfired, the delivery, then settleFired.
  return [declare, { op: "bootstrap", runner }, { op: "advanceToDue" }, { op: "claim", runner }, { op: "settle", runner }, { op: "settle", runner }, { op: "settle", runner, fault }]
}

/**
 * The appended failed tick write of a fault scenario whose pool holds `poolSize` entries: a runner
 * declares one of them, then its turn or bootstrap has one statement fail (two commands), or it
 * bootstraps, claims the due tick and settles it, the settling after the delivery with one statement
 * failing (seven commands, `MAX_FAILED_TICK_WRITE_COMMANDS`).
 *
 * @example fc.sample(failedTickWrite(2), 1) // [[{ op: "declare", runner: 1, entries: [{ index: 0, command: "ping" }] }, { op: "bootstrap", runner: 1, fault: { transaction: 1, phase: "statementFails", statement: 2 } }]]
 */
export const failedTickWrite = (poolSize: number): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(fc.nat({ max: RUNNERS - 1 }), fc.nat({ max: Math.max(0, poolSize - 1) }), tickWrite).map(([runner, index, write]) => {
    const commands = failedTickWriteCommands(runner, index, write)
    if (commands.length > MAX_FAILED_TICK_WRITE_COMMANDS) throw new Error(`invariant: a failed tick write appends at most ${MAX_FAILED_TICK_WRITE_COMMANDS} commands`)
    return commands
  })

/** The statements of the transaction the last command of a failed tick write runs (a turn's, a bootstrap's, or settleFired's). */
export const tickWriteStatements = (write: Extract<Command, { op: "turn" | "bootstrap" | "settle" }>): number =>
  write.op === "settle" ? TICK_WRITE_STATEMENTS.settleFired : TICK_WRITE_STATEMENTS[write.op]
