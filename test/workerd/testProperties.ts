/**
 * Small properties that exist only for the workerd tests: they prove that the shared runner works
 * inside the conformance Durable Object (pass, and a shrunk failure) before the suite's registry is used.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { HarnessError } from "../../harness/errors.ts"
import type { Json, PropertyDefinition, StepRecord } from "../../harness/Property.ts"
import { withSortedKeys } from "../../harness/CodeUnitOrder.ts"

type Operation =
  | { readonly op: "put"; readonly key: string; readonly value: number }
  | { readonly op: "delete"; readonly key: string }
  | { readonly op: "setAlarm"; readonly atMs: number }
  | { readonly op: "deleteAlarm" }
  | { readonly op: "failingTransaction"; readonly key: string; readonly value: number; readonly atMs: number }

const keyArb = fc.constantFrom("a", "b", "c")
const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ op: fc.constant("put" as const), key: keyArb, value: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ op: fc.constant("delete" as const), key: keyArb }),
  fc.record({ op: fc.constant("setAlarm" as const), atMs: fc.integer({ min: 1_000, max: 9_000 }) }),
  fc.constant({ op: "deleteAlarm" as const }),
  fc.record({
    op: fc.constant("failingTransaction" as const),
    key: keyArb,
    value: fc.integer({ min: 0, max: 9 }),
    atMs: fc.integer({ min: 1_000, max: 9_000 })
  })
)

interface KvState {
  readonly rows: Readonly<Record<string, number>>
  readonly alarmMs: number | null
}

const applyToModel = (state: KvState, operation: Operation): KvState => {
  switch (operation.op) {
    case "put":
      return { ...state, rows: { ...state.rows, [operation.key]: operation.value } }
    case "delete": {
      const { [operation.key]: _removed, ...rows } = state.rows
      return { ...state, rows }
    }
    case "setAlarm":
      return { ...state, alarmMs: operation.atMs }
    case "deleteAlarm":
      return { ...state, alarmMs: null }
    case "failingTransaction":
      return state
  }
}

/** Key-value writes and platform alarm changes, some inside failing transactions, against a plain model. */
export const kvModelProperty: PropertyDefinition<any> = {
  id: "workerd-test/kv-model",
  subject: "adapter",
  title: "writes and alarm changes persist, and vanish when their transaction fails",
  requirements: ["WORKERD-TEST-1"],
  needs: ["nativePlatformAlarm"],
  scenario: () => fc.array(operationArb, { maxLength: 8 }) as fc.Arbitrary<any>,
  execute: (scenario: ReadonlyArray<Operation>, { database }) =>
    Effect.gen(function*() {
      const { sql, platformAlarm } = database
      yield* sql`CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`
      const observe = Effect.gen(function*() {
        const rows = yield* sql<{ k: string; v: number }>`SELECT k, v FROM kv ORDER BY k`
        return { rows: Object.fromEntries(rows.map((row) => [row.k, row.v])), alarmMs: yield* platformAlarm.get }
      })
      let model: KvState = { rows: {}, alarmMs: null }
      const steps: Array<StepRecord> = []
      for (const [index, operation] of scenario.entries()) {
        switch (operation.op) {
          case "put":
            yield* sql`INSERT INTO kv (k, v) VALUES (${operation.key}, ${operation.value}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`
            break
          case "delete":
            yield* sql`DELETE FROM kv WHERE k = ${operation.key}`
            break
          case "setAlarm":
            yield* platformAlarm.set(operation.atMs)
            break
          case "deleteAlarm":
            yield* platformAlarm.delete
            break
          case "failingTransaction":
            yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
              yield* sql`INSERT INTO kv (k, v) VALUES (${operation.key}, ${operation.value}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`
              yield* platformAlarm.set(operation.atMs)
              return yield* Effect.fail("abort on purpose")
            })))
            break
        }
        model = applyToModel(model, operation)
        model = { ...model, rows: withSortedKeys(model.rows) }
        const actual = yield* observe
        steps.push({
          index,
          operation: operation.op,
          args: operation as unknown as Json,
          virtualTimeMs: 0,
          implementation: actual as unknown as Json,
          model: model as unknown as Json
        })
        if (JSON.stringify(actual) !== JSON.stringify(model)) {
          return {
            steps,
            covered: ["WORKERD-TEST-1"],
            divergence: {
              requirementId: "WORKERD-TEST-1",
              stepIndex: index,
              explanation: `after ${operation.op} the stored state differs from the model`,
              expected: model as unknown as Json,
              actual: actual as unknown as Json
            }
          }
        }
      }
      return { steps, covered: ["WORKERD-TEST-1"], divergence: null }
    }).pipe(Effect.mapError((cause) => new HarnessError({ message: `kv-model: ${cause.message}`, hint: "see the cause", cause })))
}

/** Diverges for every stored number >= 10, so the runner must shrink the failure to exactly 10. */
export const thresholdProperty: PropertyDefinition<any> = {
  id: "workerd-test/threshold",
  subject: "adapter",
  title: "a deliberately failing property (numbers >= 10 diverge)",
  requirements: ["WORKERD-TEST-2"],
  needs: [],
  scenario: () => fc.integer({ min: 0, max: 1_000 }) as fc.Arbitrary<any>,
  execute: (scenario: number, { database }) =>
    Effect.gen(function*() {
      const { sql } = database
      yield* sql`CREATE TABLE n (v INTEGER NOT NULL)`
      yield* sql`INSERT INTO n (v) VALUES (${scenario})`
      const stored = (yield* sql<{ v: number }>`SELECT v FROM n`)[0]?.v ?? null
      const step: StepRecord = { index: 0, operation: "store", args: scenario, virtualTimeMs: 0, implementation: stored, model: scenario }
      return {
        steps: [step],
        covered: ["WORKERD-TEST-2"],
        divergence: stored !== null && stored >= 10
          ? { requirementId: "WORKERD-TEST-2", stepIndex: 0, explanation: "numbers >= 10 fail on purpose", expected: "< 10", actual: stored }
          : null
      }
    }).pipe(Effect.mapError((cause) => new HarnessError({ message: `threshold: ${cause.message}`, hint: "see the cause", cause })))
}

const testProperties = new Map<string, PropertyDefinition<any>>([
  [kvModelProperty.id, kvModelProperty],
  [thresholdProperty.id, thresholdProperty]
])

/** Looks up the workerd tests' own properties. */
export const findTestProperty = (propertyId: string): PropertyDefinition<any> | undefined => testProperties.get(propertyId)
