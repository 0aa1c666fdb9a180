/**
 * Property `adapter/transactions`: a transaction of puts, deletes and nested transactions, failing (or
 * not) at a generated statement position with a typed failure, a defect or a SQL error.
 *
 * Witnesses ADP-001 (a failed transaction keeps none of its writes), ADP-002 (reads inside see earlier
 * writes) and ADP-011 (nested transactions are savepoints, or a clear error without the capability).
 */
import { Data, Effect, Exit } from "effect"
import * as fc from "fast-check"
import type { AdapterCapabilities } from "../../adapters/contract.ts"
import type { Json, PropertyDefinition } from "../../harness/Property.ts"
import { ADP } from "../../spec/adapter.ts"
import {
  createTables,
  describeExit,
  modelEntries,
  orHarness,
  sortedEntries,
  traceJson,
  TraceRecorder
} from "./support.ts"

type Write = { readonly op: "put"; readonly k: string; readonly v: number } | { readonly op: "delete"; readonly k: string }
type BodyOp = Write | { readonly op: "nested"; readonly writes: ReadonlyArray<Write>; readonly fail: boolean }

/** A generated transaction scenario (plain JSON). */
export type TransactionScenario = {
  readonly baseline: ReadonlyArray<readonly [string, number]>
  readonly body: ReadonlyArray<BodyOp>
  /** Where the transaction fails (before body[at]; at = body.length: after the last op), or null. */
  readonly failure: { readonly at: number; readonly kind: "fail" | "die" | "sql" } | null
}

const keyArb = fc.constantFrom("k0", "k1", "k2", "k3", "k4")
const valueArb = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.maxSafeInteger())
const writeArb: fc.Arbitrary<Write> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant("put" as const), k: keyArb, v: valueArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), k: keyArb }) }
)
const bodyOpArb: fc.Arbitrary<BodyOp> = fc.oneof(
  { weight: 4, arbitrary: writeArb },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("nested" as const), writes: fc.array(writeArb, { minLength: 1, maxLength: 3 }), fail: fc.boolean() })
  }
)

const scenarioArb: fc.Arbitrary<TransactionScenario> = fc
  .record({
    baseline: fc.uniqueArray(fc.tuple(keyArb, valueArb), { selector: ([k]) => k, maxLength: 3 }),
    body: fc.array(bodyOpArb, { minLength: 1, maxLength: 6 }),
    failAt: fc.option(fc.nat(6), { nil: null, freq: 3 }),
    kind: fc.constantFrom("fail" as const, "die" as const, "sql" as const)
  })
  .map(({ baseline, body, failAt, kind }) => ({
    baseline,
    body,
    failure: failAt === null ? null : { at: Math.min(failAt, body.length), kind }
  }))

class ScenarioFailure extends Data.TaggedError("ScenarioFailure")<{ readonly message: string }> {}
class NestedFailure extends Data.TaggedError("NestedFailure")<{ readonly message: string }> {}

const TABLE = "adp_tx"

/** The transactions property. */
export const transactionsProperty: PropertyDefinition<TransactionScenario & Json> = {
  id: "adapter/transactions",
  subject: "adapter",
  title: "rollback at any statement, read-your-writes, nested transactions",
  requirements: [ADP.rollback, ADP.readYourWrites, ADP.nested, ADP.freshDatabase],
  needs: [],
  scenario: (_capabilities: AdapterCapabilities) => scenarioArb as fc.Arbitrary<TransactionScenario & Json>,
  execute: (scenario, environment) =>
    Effect.gen(function*() {
      const sql = environment.database.sql
      const savepoints = environment.capabilities.savepoints
      const recorder = new TraceRecorder()
      const created = yield* createTables(environment.database, recorder, [`CREATE TABLE ${TABLE} (k TEXT PRIMARY KEY, v BIGINT NOT NULL)`])
      if (!created) return recorder.trace()

      const readAll = orHarness(
        "read the table",
        sql.unsafe<{ readonly k: unknown; readonly v: unknown }>(`SELECT k, v FROM ${TABLE}`)
      )
      const readOne = (k: string) =>
        orHarness("read a key", sql<{ readonly v: unknown }>`SELECT v FROM ${sql(TABLE)} WHERE k = ${k}`).pipe(
          Effect.map((rows) => (rows.length === 0 ? null : traceJson(rows[0]!.v)))
        )

      for (const [k, v] of scenario.baseline) {
        yield* orHarness("write the baseline", sql`INSERT INTO ${sql(TABLE)} (k, v) VALUES (${k}, ${v})`)
      }
      const baseline = new Map(scenario.baseline.map(([k, v]) => [k, v] as const))
      yield* recorder.step("commitBaseline", scenario.baseline as Json, sortedEntries(yield* readAll), modelEntries(baseline))

      /** Applies one write to the database and the model, then checks read-your-writes. */
      const write = (w: Write, model: Map<string, number>, where: string) =>
        Effect.gen(function*() {
          if (w.op === "put") {
            yield* sql`INSERT INTO ${sql(TABLE)} (k, v) VALUES (${w.k}, ${w.v}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`
            model.set(w.k, w.v)
          } else {
            yield* sql`DELETE FROM ${sql(TABLE)} WHERE k = ${w.k}`
            model.delete(w.k)
          }
          const seen = yield* readOne(w.k)
          const expected = model.get(w.k) ?? null
          const index = yield* recorder.step(`${w.op} (${where})`, w as Json, seen, expected)
          recorder.cover(ADP.readYourWrites)
          if (seen !== expected) {
            recorder.diverge(
              ADP.readYourWrites,
              index,
              `Inside the transaction, reading key ${w.k} right after the ${w.op} must see it, but the read returned ${JSON.stringify(seen)}.`,
              expected,
              seen
            )
          }
        })

      const trigger = (kind: "fail" | "die" | "sql") =>
        kind === "fail"
          ? Effect.fail(new ScenarioFailure({ message: "scenario failure inside the transaction" }))
          : kind === "die"
          ? Effect.die(new Error("scenario defect inside the transaction"))
          : Effect.asVoid(sql.unsafe("SELECT no_such_column FROM adp_no_such_table"))

      const txModel = new Map(baseline)
      const body = Effect.gen(function*() {
        for (let i = 0; i <= scenario.body.length; i++) {
          if (scenario.failure !== null && scenario.failure.at === i) {
            yield* recorder.step("injectFailure", scenario.failure as Json, null, null, { fault: `${scenario.failure.kind} before statement ${i}` })
            yield* trigger(scenario.failure.kind)
          }
          const op = scenario.body[i]
          if (op === undefined) break
          if (op.op !== "nested") {
            yield* write(op, txModel, "transaction")
            continue
          }
          recorder.cover(ADP.nested)
          const innerModel = new Map(txModel)
          let innerBodyRan = false
          const innerExit = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
            innerBodyRan = true
            for (const w of op.writes) yield* write(w, innerModel, "nested")
            if (op.fail) yield* Effect.fail(new NestedFailure({ message: "nested transaction fails on purpose" }))
          })))
          const expectedModel = savepoints && !op.fail ? innerModel : txModel
          const seen = sortedEntries(yield* readAll)
          const expected = modelEntries(expectedModel)
          const expectedOutcome = savepoints ? (op.fail ? "failure" : "success") : "failure before its body"
          const actualOutcome = Exit.isSuccess(innerExit) ? "success" : innerBodyRan ? "failure" : "failure before its body"
          const index = yield* recorder.step("nestedTransaction", op as Json, { outcome: actualOutcome, exit: describeExit(innerExit), rows: seen }, { outcome: expectedOutcome, rows: expected })
          if (actualOutcome !== expectedOutcome || JSON.stringify(seen) !== JSON.stringify(expected)) {
            recorder.diverge(
              ADP.nested,
              index,
              savepoints
                ? `The adapter declares savepoints, so a nested transaction that ${op.fail ? "fails must roll back exactly its own writes" : "succeeds must keep its writes"} and the outer one continues; it ended with ${actualOutcome} and the rows shown.`
                : `The adapter declares no savepoints, so a nested transaction must fail with an error before running its body; it ended with ${actualOutcome}.`,
              { outcome: expectedOutcome, rows: expected },
              { outcome: actualOutcome, rows: seen }
            )
          }
          if (Exit.isSuccess(innerExit) && savepoints) for (const [k] of txModel) if (!innerModel.has(k)) txModel.delete(k)
          if (Exit.isSuccess(innerExit) && savepoints) for (const [k, v] of innerModel) txModel.set(k, v)
        }
      })

      const exit = yield* Effect.exit(sql.withTransaction(body))
      const expectFailure = scenario.failure !== null
      const after = sortedEntries(yield* readAll)
      const expectedAfter = modelEntries(expectFailure ? baseline : txModel)
      const index = yield* recorder.step(
        "endTransaction",
        { failure: scenario.failure as Json },
        { exit: describeExit(exit), rows: after },
        { exit: expectFailure ? "failure" : "success", rows: expectedAfter }
      )
      if (expectFailure) recorder.cover(ADP.rollback)
      const outcomeWrong = Exit.isSuccess(exit) === expectFailure
      if (outcomeWrong || JSON.stringify(after) !== JSON.stringify(expectedAfter)) {
        recorder.diverge(
          expectFailure ? ADP.rollback : ADP.failedCommit,
          index,
          expectFailure
            ? `The transaction failed (${scenario.failure!.kind} before statement ${scenario.failure!.at}), so the table must hold exactly its rows from before the transaction, ${JSON.stringify(expectedAfter)}; it holds ${JSON.stringify(after)}${outcomeWrong ? ", and withTransaction even reported success" : ""}.`
            : "The transaction succeeded, so every write made inside it must be visible after it commits.",
          expectedAfter,
          after
        )
      }
      return recorder.trace()
    })
}
