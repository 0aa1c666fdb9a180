/**
 * Property `adapter/upsert-unique`: a sequence of upserts (`ON CONFLICT DO UPDATE`), ignoring inserts
 * (`ON CONFLICT DO NOTHING`) and plain inserts on a primary key and on a UNIQUE column, checked against
 * a map after every operation.
 *
 * Witnesses ADP-009 (upserts) and ADP-010 (duplicates fail as `UniqueViolation` and change nothing).
 */
import { Effect, Exit } from "effect"
import * as fc from "fast-check"
import type { Json, PropertyDefinition } from "../../harness/Property.ts"
import { ADP } from "../../spec/adapter.ts"
import {
  createTables,
  describeExit,
  isUniqueViolationExit,
  modelEntries,
  orHarness,
  sortedEntries,
  TraceRecorder
} from "./support.ts"

type Operation =
  | { readonly op: "upsert" | "insertIgnore" | "insert"; readonly k: string; readonly v: number }
  | { readonly op: "insertUnique"; readonly tag: string }

/** A generated upsert scenario. */
export type UpsertScenario = { readonly operations: ReadonlyArray<Operation> }

const keyArb = fc.constantFrom("u0", "u1", "u2")
const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ op: fc.constantFrom("upsert" as const, "insertIgnore" as const, "insert" as const), k: keyArb, v: fc.integer({ min: -1_000_000, max: 1_000_000 }) }),
  fc.record({ op: fc.constant("insertUnique" as const), tag: fc.constantFrom("t0", "t1", "t2") })
)

/** The upsert / unique-violation property. */
export const upsertProperty: PropertyDefinition<UpsertScenario & Json> = {
  id: "adapter/upsert-unique",
  subject: "adapter",
  title: "INSERT ... ON CONFLICT upserts; duplicate inserts fail as UniqueViolation",
  requirements: [ADP.upsert, ADP.uniqueViolation, ADP.freshDatabase],
  needs: [],
  scenario: () => fc.record({ operations: fc.array(operationArb, { minLength: 1, maxLength: 10 }) }) as fc.Arbitrary<UpsertScenario & Json>,
  execute: (scenario, environment) =>
    Effect.gen(function*() {
      const sql = environment.database.sql
      const recorder = new TraceRecorder()
      const created = yield* createTables(environment.database, recorder, [
        "CREATE TABLE adp_upsert (k TEXT PRIMARY KEY, v BIGINT NOT NULL)",
        "CREATE TABLE adp_unique (id BIGINT PRIMARY KEY, tag TEXT NOT NULL UNIQUE)"
      ])
      if (!created) return recorder.trace()
      const model = new Map<string, number>()
      const tags = new Set<string>()
      let nextId = 0
      const readState = Effect.gen(function*() {
        const rows = yield* orHarness("read adp_upsert", sql.unsafe<{ readonly k: unknown; readonly v: unknown }>("SELECT k, v FROM adp_upsert"))
        const tagRows = yield* orHarness("read adp_unique", sql.unsafe<{ readonly tag: unknown }>("SELECT tag FROM adp_unique"))
        return { rows: sortedEntries(rows), tags: tagRows.map((row) => String(row.tag)).sort() }
      })

      for (const operation of scenario.operations) {
        if (recorder.diverged) break
        let exit: Exit.Exit<unknown, unknown>
        let expectDuplicate = false
        let requirementId: string = ADP.upsert
        switch (operation.op) {
          case "upsert":
            if (model.has(operation.k)) recorder.cover(ADP.upsert)
            exit = yield* Effect.exit(sql`INSERT INTO adp_upsert (k, v) VALUES (${operation.k}, ${operation.v}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`)
            model.set(operation.k, operation.v)
            break
          case "insertIgnore":
            if (model.has(operation.k)) recorder.cover(ADP.upsert)
            exit = yield* Effect.exit(sql`INSERT INTO adp_upsert (k, v) VALUES (${operation.k}, ${operation.v}) ON CONFLICT (k) DO NOTHING`)
            if (!model.has(operation.k)) model.set(operation.k, operation.v)
            break
          case "insert":
            requirementId = ADP.uniqueViolation
            expectDuplicate = model.has(operation.k)
            if (expectDuplicate) recorder.cover(ADP.uniqueViolation)
            exit = yield* Effect.exit(sql`INSERT INTO adp_upsert (k, v) VALUES (${operation.k}, ${operation.v})`)
            if (!expectDuplicate) model.set(operation.k, operation.v)
            break
          case "insertUnique":
            requirementId = ADP.uniqueViolation
            expectDuplicate = tags.has(operation.tag)
            if (expectDuplicate) recorder.cover(ADP.uniqueViolation)
            exit = yield* Effect.exit(sql`INSERT INTO adp_unique (id, tag) VALUES (${nextId++}, ${operation.tag})`)
            tags.add(operation.tag)
            break
        }
        const outcome = Exit.isSuccess(exit) ? "ok" : isUniqueViolationExit(exit) ? "UniqueViolation" : "other error"
        const expectedOutcome = expectDuplicate ? "UniqueViolation" : "ok"
        const state = yield* readState
        const expectedState = { rows: modelEntries(model), tags: [...tags].sort() }
        const index = yield* recorder.step(
          operation.op,
          operation as Json,
          { outcome, exit: describeExit(exit) },
          { outcome: expectedOutcome },
          { implementationState: state, modelState: expectedState }
        )
        if (outcome !== expectedOutcome || JSON.stringify(state) !== JSON.stringify(expectedState)) {
          recorder.diverge(
            requirementId,
            index,
            expectDuplicate
              ? `The key already exists, so a plain INSERT must fail with a SqlError whose reason is UniqueViolation and leave the table unchanged; it ended with ${outcome}.`
              : operation.op === "insert" || operation.op === "insertUnique"
              ? `The key is new, so the INSERT must succeed and add exactly one row; it ended with ${outcome}.`
              : `${operation.op === "upsert" ? "ON CONFLICT DO UPDATE must insert a new key or update the existing row" : "ON CONFLICT DO NOTHING must insert a new key and leave an existing row unchanged"}, without failing; it ended with ${outcome} and the rows shown.`,
            { outcome: expectedOutcome, state: expectedState },
            { outcome, state }
          )
        }
      }
      return recorder.trace()
    })
}
