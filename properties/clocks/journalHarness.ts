/**
 * The journal the harness hands to a clocks implementation: the shipped SQL journal over the
 * process's client, wrapped so the harness can fail the n-th durable emit of an operation, or several
 * from it on (a failing journal write or a journal outage, C11) and latch the lossy sink (C3, B5), and see every lossy record (B4) and every
 * part of a record that is not a JSON value (`harness/JsonValues.ts`: C2's byte-equal comparison is of
 * JSON text, which such a part does not survive). Faults are
 * failures of a dependency the harness owns, never a value the implementation could recognise.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { nonJsonPaths } from "../../harness/JsonValues.ts"
import { EVENT, identity, journalEmitFails } from "../../models/clocks/keys.ts"
import { type Journal, JournalError, type JournalInput } from "../../subjects/clocks/api.ts"
import type { ClocksDialect } from "../../subjects/clocks/dialect.ts"
import { makeSqlJournal } from "../../subjects/clocks/journal.ts"
import { modelEventType } from "./eventTypes.ts"

/** The harness's controls over one process's journal. */
export interface JournalControls {
  /**
   * Arms the fault of the next operation: its `failEmit`-th durable emit fails (undefined: none), and
   * with `outageEmits` that many consecutive emits from it on (a journal outage; default 1).
   */
  readonly arm: (failEmit: number | undefined, outageEmits?: number) => void
  /** Latches the lossy sink: every flush fails from now on. */
  readonly latch: () => void
  /** Event types of every record that went to the lossy channel. */
  readonly lossyRecords: () => ReadonlyArray<string>
}

/** Bound on remembered lossy records, and on remembered non-JSON parts of records. */
const MAX_LOSSY_RECORDED = 1_000

/** Bound on remembered clock-scheduled identities (a scenario's sweeps announce far fewer). */
const MAX_ANNOUNCED = 10_000

/** What the journals of a scenario's processes share: the latch, and what the harness saw handed over. */
export interface SharedJournalState {
  latched: boolean
  flushFailures: number
  /** Event types of every record that went to the lossy channel. */
  readonly lossy: Array<string>
  /** `<event type> <path>` of every part of a handed record that is not a JSON value. */
  readonly nonJson: Array<string>
  /**
   * Identity (`runId|sourceId|seq`) of every clock-scheduled record handed to the journal, durable or
   * lossy, accepted or a `Duplicate`: a sweep's re-announcement (C12) changes no stored record, so it is
   * seen only here.
   */
  readonly announced: Array<string>
}

/** Notes, in `shared`, the identity of `input` when it is a clock-scheduled record (any namespace, `eventTypes.ts`). */
const noteAnnounced = (shared: SharedJournalState, input: JournalInput): void => {
  if (modelEventType(input.eventType) !== EVENT.clockScheduled || shared.announced.length >= MAX_ANNOUNCED) return
  shared.announced.push(identity(input.runId, input.sourceId, input.sourceSeq))
}

/** Notes, in `shared`, each part of `input`'s payload and meta that is not a JSON value. */
const noteNonJson = (shared: SharedJournalState, input: JournalInput): void => {
  for (const path of [...nonJsonPaths(input.payload, "$.payload"), ...nonJsonPaths(input.meta, "$.meta")]) {
    if (shared.nonJson.length < MAX_LOSSY_RECORDED) shared.nonJson.push(`${input.eventType} ${path}`)
  }
}

/** Builds the wrapped journal of one process; `shared` holds the latch and the lossy record across processes. */
export const makeHarnessJournal = (
  sql: SqlClient.SqlClient,
  dialect: ClocksDialect,
  shared: SharedJournalState
): Effect.Effect<{ readonly journal: Journal; readonly controls: JournalControls }, SqlError> =>
  Effect.gen(function*() {
    let failEmit: number | undefined
    let outageEmits = 1
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
          noteNonJson(shared, input)
          noteAnnounced(shared, input)
          emits++
          if (journalEmitFails(emits, failEmit, outageEmits)) {
            return Effect.fail(new JournalError({ reason: "unavailable", message: "the journal's storage refused the write" }))
          }
          return inner.emitDurableUnfenced(input)
        }),
      emitLossy: (input) =>
        Effect.suspend(() => {
          noteNonJson(shared, input)
          noteAnnounced(shared, input)
          if (shared.lossy.length < MAX_LOSSY_RECORDED) shared.lossy.push(input.eventType)
          return inner.emitLossy(input)
        }),
      flush: inner.flush
    }
    return {
      journal,
      controls: {
        arm: (n, outage = 1) => {
          failEmit = n
          outageEmits = Math.max(1, outage)
          emits = 0
        },
        latch: () => {
          shared.latched = true
        },
        lossyRecords: () => shared.lossy
      }
    }
  })
