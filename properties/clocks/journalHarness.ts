/**
 * The journal the harness hands to a clocks implementation: the shipped SQL journal over the
 * process's client, wrapped so the harness can fail the n-th durable emit of an operation (a failing
 * journal write, C11) and latch the lossy sink (C3, B5), and see every lossy record (B4). Faults are
 * failures of a dependency the harness owns, never a value the implementation could recognise.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { type Journal, JournalError } from "../../subjects/clocks/api.ts"
import type { ClocksDialect } from "../../subjects/clocks/dialect.ts"
import { makeSqlJournal } from "../../subjects/clocks/journal.ts"

/** The harness's controls over one process's journal. */
export interface JournalControls {
  /** Arms the fault of the next operation: its `failEmit`-th durable emit fails (undefined: none). */
  readonly arm: (failEmit: number | undefined) => void
  /** Latches the lossy sink: every flush fails from now on. */
  readonly latch: () => void
  /** Event types of every record that went to the lossy channel. */
  readonly lossyRecords: () => ReadonlyArray<string>
}

/** Bound on remembered lossy records. */
const MAX_LOSSY_RECORDED = 1_000

/** Builds the wrapped journal of one process; `shared` holds the latch and the lossy record across processes. */
export const makeHarnessJournal = (
  sql: SqlClient.SqlClient,
  dialect: ClocksDialect,
  shared: { latched: boolean; flushFailures: number; readonly lossy: Array<string> }
): Effect.Effect<{ readonly journal: Journal; readonly controls: JournalControls }, SqlError> =>
  Effect.gen(function*() {
    let failEmit: number | undefined
    let emits = 0
    const inner = yield* makeSqlJournal(sql, dialect, () =>
      Effect.suspend(() => {
        if (!shared.latched) return Effect.void
        shared.flushFailures++
        return Effect.fail(new JournalError({ reason: "sink_failed", message: "the lossy sink latched a failure" }))
      }))
    const journal: Journal = {
      emitDurableUnfenced: (input) =>
        Effect.suspend(() => {
          emits++
          if (failEmit !== undefined && emits === failEmit) {
            return Effect.fail(new JournalError({ reason: "unavailable", message: "the journal's storage refused the write" }))
          }
          return inner.emitDurableUnfenced(input)
        }),
      emitLossy: (input) =>
        Effect.suspend(() => {
          if (shared.lossy.length < MAX_LOSSY_RECORDED) shared.lossy.push(input.eventType)
          return inner.emitLossy(input)
        }),
      flush: inner.flush
    }
    return {
      journal,
      controls: {
        arm: (n) => {
          failEmit = n
          emits = 0
        },
        latch: () => {
          shared.latched = true
        },
        lossyRecords: () => shared.lossy
      }
    }
  })
