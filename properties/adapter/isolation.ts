/**
 * Property `adapter/no-dirty-reads`: while a transaction on connection 0 is open (its writes made, its
 * end held back by a latch), connection 1 reads the table; then the transaction commits or rolls back
 * and connection 1 reads again.
 *
 * Witnesses ADP-003. Needs independent connections.
 */
import { Deferred, Effect, Exit, Fiber } from "effect"
import * as fc from "fast-check"
import type { Json, PropertyDefinition } from "../../harness/Property.ts"
import { HarnessError } from "../../harness/errors.ts"
import { ADP } from "../../spec/adapter.ts"
import { createTables, describeExit, orHarness, Rollback, sortedEntries, TraceRecorder } from "./support.ts"

/** A generated isolation scenario. */
export type IsolationScenario = {
  readonly writes: ReadonlyArray<readonly [string, number]>
  readonly outcome: "commit" | "rollback"
}

/** The no-dirty-reads property. */
export const isolationProperty: PropertyDefinition<IsolationScenario & Json> = {
  id: "adapter/no-dirty-reads",
  subject: "adapter",
  title: "uncommitted writes are invisible to other connections",
  requirements: [ADP.noDirtyReads, ADP.freshDatabase],
  needs: ["independentConnections"],
  connections: 2,
  scenario: () =>
    fc.record({
      writes: fc.uniqueArray(fc.tuple(fc.constantFrom("i0", "i1", "i2", "i3"), fc.integer({ min: -99, max: 99 })), { selector: ([k]) => k, minLength: 1, maxLength: 4 }),
      outcome: fc.constantFrom("commit" as const, "rollback" as const)
    }) as fc.Arbitrary<IsolationScenario & Json>,
  execute: (scenario, environment) =>
    Effect.gen(function*() {
      const [writer, reader] = environment.database.connections
      if (writer === undefined || reader === undefined) {
        return yield* new HarnessError({
          message: `adapter ${environment.adapterName} declares independent connections but opened ${environment.database.connections.length}`,
          hint: "open({ connections: n }) must return n connections when independentConnections is true"
        })
      }
      const recorder = new TraceRecorder()
      const created = yield* createTables(environment.database, recorder, ["CREATE TABLE adp_iso (k TEXT PRIMARY KEY, v BIGINT NOT NULL)"])
      if (!created) return recorder.trace()
      const readOther = orHarness(
        "read from connection 1",
        reader.unsafe<{ readonly k: unknown; readonly v: unknown }>("SELECT k, v FROM adp_iso")
      ).pipe(Effect.map(sortedEntries))

      const written = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const transaction = yield* Effect.forkChild(writer.withTransaction(Effect.gen(function*() {
        for (const [k, v] of scenario.writes) yield* writer`INSERT INTO adp_iso (k, v) VALUES (${k}, ${v})`
        yield* Deferred.succeed(written, undefined)
        yield* Deferred.await(release)
        if (scenario.outcome === "rollback") yield* Effect.fail(new Rollback({ message: "roll back on purpose" }))
      })))
      const started = yield* Effect.exit(Effect.raceFirst(Deferred.await(written), Effect.flatMap(Fiber.await(transaction), () => Effect.void)))
      if (Exit.isFailure(started)) return yield* orHarness("start the writing transaction", Effect.failCause(started.cause))

      recorder.cover(ADP.noDirtyReads)
      const during = yield* readOther
      let index = yield* recorder.step("readOtherConnectionBeforeCommit", scenario.writes as Json, during, [])
      if (JSON.stringify(during) !== "[]") {
        recorder.diverge(ADP.noDirtyReads, index, "Connection 1 read rows that connection 0 had written but not yet committed.", [], during)
      }
      yield* Deferred.succeed(release, undefined)
      const exit = yield* Fiber.await(transaction)
      const after = yield* readOther
      const expected = scenario.outcome === "commit" ? sortedEntries(scenario.writes.map(([k, v]) => ({ k, v }))) : []
      index = yield* recorder.step(`readOtherConnectionAfter${scenario.outcome === "commit" ? "Commit" : "Rollback"}`, null, { rows: after, exit: describeExit(exit) }, { rows: expected })
      if (JSON.stringify(after) !== JSON.stringify(expected)) {
        recorder.diverge(
          scenario.outcome === "commit" ? ADP.noDirtyReads : ADP.rollback,
          index,
          scenario.outcome === "commit"
            ? "After connection 0 committed, connection 1 must see all of its writes."
            : "After connection 0 rolled back, connection 1 must see none of its writes.",
          expected,
          after
        )
      }
      return recorder.trace()
    })
}
