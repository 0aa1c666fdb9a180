/**
 * Property `adapter/platform-alarm`: sets, deletes and reads of the platform alarm slot, some inside
 * transactions that roll back, checked against a single nullable value.
 *
 * Witnesses ADP-013.
 */
import { Effect, Exit } from "effect"
import * as fc from "fast-check"
import type { Json, PropertyDefinition } from "../../harness/Property.ts"
import { ADP } from "../../spec/adapter.ts"
import { createTables, describeExit, orHarness, Rollback, TraceRecorder } from "./support.ts"

type SlotWrite = { readonly op: "set"; readonly atMs: number } | { readonly op: "delete" }
type Operation = SlotWrite | { readonly op: "rolledBack"; readonly writes: ReadonlyArray<SlotWrite> } | { readonly op: "committed"; readonly writes: ReadonlyArray<SlotWrite> }

/** A generated platform-alarm scenario. */
export type PlatformAlarmScenario = { readonly operations: ReadonlyArray<Operation> }

/** Alarm times from the epoch to ~year 2109 (2^42 ms): safe integers a Durable Object accepts too. */
const atMsArb = fc.integer({ min: 0, max: 2 ** 42 })
const writeArb: fc.Arbitrary<SlotWrite> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant("set" as const), atMs: atMsArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const) }) }
)
const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 3, arbitrary: writeArb },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("rolledBack" as const), writes: fc.array(writeArb, { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("committed" as const), writes: fc.array(writeArb, { minLength: 1, maxLength: 3 }) }) }
)

/** The platform alarm property. */
export const platformAlarmProperty: PropertyDefinition<PlatformAlarmScenario & Json> = {
  id: "adapter/platform-alarm",
  subject: "adapter",
  title: "the platform alarm slot holds one value and follows transactions",
  requirements: [ADP.platformAlarm, ADP.freshDatabase],
  needs: [],
  scenario: () => fc.record({ operations: fc.array(operationArb, { minLength: 1, maxLength: 8 }) }) as fc.Arbitrary<PlatformAlarmScenario & Json>,
  execute: (scenario, environment) =>
    Effect.gen(function*() {
      const { sql, platformAlarm } = environment.database
      const recorder = new TraceRecorder()
      const created = yield* createTables(environment.database, recorder, [])
      if (!created) return recorder.trace()
      let model: number | null = null
      const apply = (write: SlotWrite) => (write.op === "set" ? platformAlarm.set(write.atMs) : platformAlarm.delete)
      const next = (value: number | null, write: SlotWrite) => (write.op === "set" ? write.atMs : null)
      recorder.cover(ADP.platformAlarm)
      for (const operation of scenario.operations) {
        if (recorder.diverged) break
        let exit: Exit.Exit<unknown, unknown> = Exit.void
        if (operation.op === "set" || operation.op === "delete") {
          exit = yield* Effect.exit(apply(operation))
          model = next(model, operation)
        } else {
          const writes = operation.writes
          exit = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
            for (const write of writes) yield* apply(write)
            if (operation.op === "rolledBack") yield* Effect.fail(new Rollback({ message: "roll back on purpose" }))
          })))
          if (operation.op === "committed") for (const write of writes) model = next(model, write)
        }
        const seen = yield* orHarness("read the platform alarm", platformAlarm.get)
        const expectedExit = operation.op === "rolledBack" ? "failure" : "success"
        const actualExit = Exit.isSuccess(exit) ? "success" : "failure"
        const index = yield* recorder.step(operation.op, operation as Json, { alarm: seen, exit: describeExit(exit) }, { alarm: model, exit: expectedExit })
        if (seen !== model || expectedExit !== actualExit) {
          recorder.diverge(
            ADP.platformAlarm,
            index,
            operation.op === "rolledBack"
              ? "Writes to the platform alarm inside a transaction that rolls back must be undone with it."
              : "The platform alarm must hold the last time set, or null after a delete.",
            { alarm: model, exit: expectedExit },
            { alarm: seen, exit: actualExit }
          )
        }
      }
      return recorder.trace()
    })
}
