/**
 * Property `adapter/failed-commit`: transactions whose COMMIT cannot make them durable, and the check
 * that `withTransaction` tells the truth about it.
 *
 * Two situations: a deferred foreign key left dangling (the engine fails the COMMIT), and a statement
 * that fails inside the transaction while the body catches the error and carries on (Postgres then
 * turns COMMIT into ROLLBACK; SQLite keeps the other statements). Either way: success means every write
 * of the statements that succeeded is visible; failure means none is. Witnesses ADP-012.
 */
import { Effect, Exit } from "effect"
import * as fc from "fast-check"
import type { Json, PropertyDefinition } from "../../harness/Property.ts"
import { ADP } from "../../spec/adapter.ts"
import { createTables, describeExit, orHarness, TraceRecorder } from "./support.ts"

/** A generated failed-commit scenario. */
export type FailedCommitScenario =
  | {
    readonly kind: "deferredForeignKey"
    readonly parents: ReadonlyArray<number>
    /** `[childId, parentId]`; a parent id not in `parents` dangles. */
    readonly children: ReadonlyArray<readonly [number, number]>
  }
  | { readonly kind: "caughtStatementError"; readonly inserts: ReadonlyArray<readonly [string, number]> }

const scenarioArb: fc.Arbitrary<FailedCommitScenario> = fc.oneof(
  fc.record({
    kind: fc.constant("deferredForeignKey" as const),
    parents: fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }),
    children: fc.uniqueArray(fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 4 })), { selector: ([id]) => id, minLength: 1, maxLength: 4 })
  }),
  fc.record({
    kind: fc.constant("caughtStatementError" as const),
    inserts: fc.array(fc.tuple(fc.constantFrom("c0", "c1", "c2"), fc.integer({ min: -99, max: 99 })), { minLength: 2, maxLength: 6 })
  })
)

const sorted = (values: ReadonlyArray<string>): Array<string> => [...values].sort()

/** The failed-commit property. */
export const failedCommitProperty: PropertyDefinition<FailedCommitScenario & Json> = {
  id: "adapter/failed-commit",
  subject: "adapter",
  title: "a failed commit is surfaced, never hidden",
  requirements: [ADP.failedCommit, ADP.freshDatabase],
  needs: [],
  scenario: () => scenarioArb as fc.Arbitrary<FailedCommitScenario & Json>,
  execute: (scenario, environment) =>
    Effect.gen(function*() {
      const sql = environment.database.sql
      const recorder = new TraceRecorder()
      const created = yield* createTables(environment.database, recorder, [
        "CREATE TABLE adp_parent (id BIGINT PRIMARY KEY)",
        "CREATE TABLE adp_child (id BIGINT PRIMARY KEY, parent_id BIGINT NOT NULL REFERENCES adp_parent (id) DEFERRABLE INITIALLY DEFERRED)",
        "CREATE TABLE adp_caught (k TEXT PRIMARY KEY, v BIGINT NOT NULL)"
      ])
      if (!created) return recorder.trace()

      // The writes that succeeded inside the transaction, as "table:key" strings.
      const succeeded: Array<string> = []
      const body = Effect.gen(function*() {
        if (scenario.kind === "deferredForeignKey") {
          for (const id of scenario.parents) {
            yield* sql`INSERT INTO adp_parent (id) VALUES (${id})`
            succeeded.push(`parent:${id}`)
          }
          for (const [id, parent] of scenario.children) {
            yield* sql`INSERT INTO adp_child (id, parent_id) VALUES (${id}, ${parent})`
            succeeded.push(`child:${id}`)
          }
          return
        }
        for (const [k, v] of scenario.inserts) {
          const exit = yield* Effect.exit(sql`INSERT INTO adp_caught (k, v) VALUES (${k}, ${v})`)
          if (Exit.isSuccess(exit)) succeeded.push(`caught:${k}`)
          yield* recorder.step("insertCatchingErrors", [k, v], describeExit(exit), null)
        }
      })
      const exit = yield* Effect.exit(sql.withTransaction(body))

      const parents = yield* orHarness("read adp_parent", sql.unsafe<{ readonly id: unknown }>("SELECT id FROM adp_parent"))
      const children = yield* orHarness("read adp_child", sql.unsafe<{ readonly id: unknown }>("SELECT id FROM adp_child"))
      const caught = yield* orHarness("read adp_caught", sql.unsafe<{ readonly k: unknown }>("SELECT k FROM adp_caught"))
      const visible = sorted([
        ...parents.map((row) => `parent:${Number(row.id)}`),
        ...children.map((row) => `child:${Number(row.id)}`),
        ...caught.map((row) => `caught:${String(row.k)}`)
      ])
      const committed = Exit.isSuccess(exit)
      const expected = committed ? sorted(succeeded) : []
      const parentIds = scenario.kind === "deferredForeignKey" ? new Set(scenario.parents) : new Set<number>()
      const dangling = scenario.kind === "deferredForeignKey" && scenario.children.some(([, parent]) => !parentIds.has(parent))
      const index = yield* recorder.step(
        "commit",
        { kind: scenario.kind, danglingForeignKey: dangling },
        { exit: describeExit(exit), visible },
        { visible: expected }
      )
      // The situation this requirement is about: a commit that did not make the writes durable.
      if (!committed) recorder.cover(ADP.failedCommit)
      if (JSON.stringify(visible) !== JSON.stringify(expected)) {
        recorder.diverge(
          ADP.failedCommit,
          index,
          committed
            ? "withTransaction reported success, so every write of the statements that succeeded inside it must be visible afterwards; some are missing, so the commit failed and the failure was hidden."
            : "withTransaction reported failure, so none of its writes may be visible afterwards; some are.",
          expected,
          visible
        )
      } else if (!committed && scenario.kind === "deferredForeignKey" && !dangling) {
        recorder.diverge(
          ADP.failedCommit,
          index,
          "No deferred constraint could fail and nothing else ran, yet withTransaction reported failure.",
          { exit: "success" },
          describeExit(exit)
        )
      }
      return recorder.trace()
    })
}
