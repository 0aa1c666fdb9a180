/**
 * The journal's own contract, asked directly once per scenario of `clocks/model` (the answers do not
 * depend on the scenario, so one property asks them). The journal the harness hands an
 * implementation is this subject's `makeSqlJournal`, and an engine's records reach only some of its
 * answers (a correct engine never re-admits an identity with another event type or meta, ignores the
 * `Admitted` / `Duplicate` answer, and emits nothing lossy), so the scenarios alone cannot tell a
 * journal that breaks C2 or C3 in those places. The probe asks, on a run id no scenario uses:
 * - C2: a fresh record is `Admitted`, the same record again `Duplicate`, the same key with another
 *   event type, payload or meta fails with `idempotency_conflict`, and only the first one is stored
 *   (inside a transaction the probe rolls back, so it leaves no row);
 * - C3: lossy records reach the sink at the next flush, in order and once; a flush of an empty queue
 *   delivers nothing;
 * - a storage failure (the harness refuses the COMMIT of the journal's own transaction) is the typed
 *   `JournalError` with reason `unavailable` (the binding contract, `api.ts`), not a raw `SqlError` or
 *   a defect; the refused transaction keeps nothing;
 * - every typed error the journal answers says what happened (a non-empty message): an error without
 *   one is answered as `<tag>:<reason> without a message`.
 */
import { Effect, Exit } from "effect"
import type { SqlClient } from "effect/sql"
import { canonical, type Check, resultJson } from "../../harness/ModelBased.ts"
import type { Json } from "../../harness/Property.ts"
import { inRolledBackTransaction } from "../../harness/RolledBackTransaction.ts"
import { makeStorageBoundary } from "../../harness/StorageBoundary.ts"
import type { HarnessError } from "../../harness/errors.ts"
import type { PlatformAlarm } from "../../adapters/contract.ts"
import type { Journal, JournalInput } from "../../subjects/clocks/api.ts"
import type { ClocksDialect } from "../../subjects/clocks/dialect.ts"
import { makeSqlJournal, readJournal } from "../../subjects/clocks/journal.ts"
import { errorName, harnessError } from "./session.ts"

/** The run id of the probe's records (no scenario's execution id). */
export const PROBE_RUN_ID = "harness:journal-probe"

/** The answer of an effect that succeeded with nothing. */
const SUCCESS: Json = { _tag: "Success", value: null }

/** A probe record; `changes` make the conflicting variants. */
const probeRecord = (changes: Partial<JournalInput> = {}): JournalInput => ({
  runId: PROBE_RUN_ID,
  sourceId: "harness:probe:clock",
  sourceSeq: 0,
  eventType: "clock-scheduled",
  payload: { dueAtMs: 1_000, names: ["a", "b"] },
  meta: { lineageId: "harness:probe" },
  ...changes
})

/**
 * An error by tag and reason, as `errorName` names it, and `without a message` when its message is
 * empty: the journal's typed errors say what happened (the binding contract, `api.ts`).
 */
const probedErrorName = (error: unknown): Json => {
  const name = errorName(error)
  const message = typeof error === "object" && error !== null ? (error as { readonly message?: unknown }).message : undefined
  return typeof message === "string" && message.trim() === "" ? `${String(name)} without a message` : name
}

/** How an effect ended, as the probe compares it: its value, or its error by tag and reason (a defect too). */
const answerOf = <A>(effect: Effect.Effect<A, unknown>): Effect.Effect<Json> =>
  Effect.map(Effect.exit(Effect.suspend(() => effect)), (exit) =>
    resultJson({ _tag: "Completed", exit: Exit.map(exit, (value) => (value === undefined ? null : (value as Json))) }, probedErrorName))

/** The admissions the probe makes, in order: a fresh record, the same again, then one field changed each. */
const ADMISSIONS: ReadonlyArray<JournalInput> = [
  probeRecord(),
  probeRecord(),
  probeRecord({ eventType: "clock-completed" }),
  probeRecord({ payload: { dueAtMs: 1_001, names: ["a", "b"] } }),
  probeRecord({ meta: { lineageId: "harness:other" } })
]

/** C2's answers, in a transaction rolled back at its end; the probe run's stored records read inside it. */
const admissionAnswers = (sql: SqlClient.SqlClient, journal: Journal) => {
  const answers: Array<Json> = []
  let stored: Json = null
  const body = Effect.gen(function*() {
    for (const input of ADMISSIONS) {
      answers.push(yield* answerOf(journal.emitDurableUnfenced(input)))
    }
    const records = yield* readJournal(sql)
    stored = records.filter((record) => record.runId === PROBE_RUN_ID).map((record) => ({ eventType: record.eventType, payload: JSON.parse(record.payload) as Json, meta: JSON.parse(record.meta) as Json }))
  })
  return Effect.map(inRolledBackTransaction(sql, body), () => ({ answers, stored }))
}

/** C3's deliveries: what each of three flushes handed the sink (an empty one, two records, an empty one). */
const lossyDeliveries = (sql: SqlClient.SqlClient, dialect: ClocksDialect) =>
  Effect.gen(function*() {
    let delivered: Array<Json> = []
    // A broken journal may hand the sink anything: what is not a record is shown as text.
    const journal = yield* makeSqlJournal(sql, dialect, (records) =>
      Effect.sync(() => {
        delivered.push(...records.map((record) => (typeof record === "object" && record !== null ? record.sourceId : String(record))))
      }))
    const flushes: Array<Json> = []
    const flush = Effect.gen(function*() {
      delivered = []
      const answer = yield* answerOf(journal.flush)
      flushes.push(canonical(answer) === canonical(SUCCESS) ? delivered : { delivered, answer })
    })
    yield* flush
    const queued = yield* answerOf(Effect.gen(function*() {
      yield* journal.emitLossy(probeRecord({ sourceId: "harness:probe:lossy-1" }))
      yield* journal.emitLossy(probeRecord({ sourceId: "harness:probe:lossy-2" }))
    }))
    yield* flush
    yield* flush
    return { queued, flushes }
  })

/** The journal's answer to an emit whose own transaction's COMMIT the harness refuses, and what it kept. */
const unavailableAnswer = (sql: SqlClient.SqlClient, platformAlarm: PlatformAlarm, dialect: ClocksDialect) =>
  Effect.gen(function*() {
    const boundary = makeStorageBoundary(sql, platformAlarm)
    const journal = yield* makeSqlJournal(boundary.sql, dialect, () => Effect.void)
    boundary.arm({ transaction: 1, phase: "commitRefused" })
    const outcome = yield* boundary.run(answerOf(journal.emitDurableUnfenced(probeRecord({ sourceId: "harness:probe:refused" }))))
    boundary.arm(undefined)
    const kept = (yield* readJournal(sql)).filter((record) => record.runId === PROBE_RUN_ID).length
    return { answer: outcome._tag === "Completed" && Exit.isSuccess(outcome.exit) ? outcome.exit.value : "crashed", kept }
  })

/**
 * Probes the journal over `sql` (the adapter's client, before the scenario's first command) and
 * returns the checks of its answers.
 */
export const probeJournal = (sql: SqlClient.SqlClient, platformAlarm: PlatformAlarm, dialect: ClocksDialect): Effect.Effect<ReadonlyArray<Check>, HarnessError> =>
  Effect.gen(function*() {
    const journal = yield* makeSqlJournal(sql, dialect, () => Effect.void)
    const admissions = yield* admissionAnswers(sql, journal)
    const lossy = yield* lossyDeliveries(sql, dialect)
    const refused = yield* unavailableAnswer(sql, platformAlarm, dialect)
    const admitted = (answer: string): Json => ({ _tag: "Success", value: answer })
    const conflict: Json = { _tag: "Failure", error: "JournalError:idempotency_conflict" }
    const first = probeRecord()
    return [
      {
        observable: "journal answers (probe)",
        expected: [admitted("Admitted"), admitted("Duplicate"), conflict, conflict, conflict],
        actual: admissions.answers,
        rules: ["C2"],
        why: "a fresh key is admitted, byte-equal content is a Duplicate, the same key with another type, payload or meta is an idempotency_conflict"
      },
      {
        observable: "journal records (probe)",
        expected: [{ eventType: first.eventType, payload: first.payload, meta: first.meta }] as Json,
        actual: admissions.stored,
        rules: ["C2"],
        why: "a Duplicate and a conflict write nothing: the key keeps its first record"
      },
      {
        observable: "lossy flushes (probe)",
        expected: { queued: SUCCESS, flushes: [[], ["harness:probe:lossy-1", "harness:probe:lossy-2"], []] },
        actual: lossy as Json,
        rules: ["C3"],
        why: "the lossy queue is pushed to the sink after commit: each flush delivers the records queued since the last, in order, once"
      },
      {
        observable: "journal storage failure (probe)",
        expected: { answer: { _tag: "Failure", error: "JournalError:unavailable" }, kept: 0 },
        actual: refused as Json,
        rules: ["C2", "C11"],
        why: "a failed journal write is the journal's typed error (reason unavailable) and keeps nothing; the engine retries it as a failed fire"
      }
    ] satisfies ReadonlyArray<Check>
  }).pipe(Effect.mapError(harnessError("probing the journal")))
