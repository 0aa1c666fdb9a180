/**
 * A toy key-value subject with four requirements and up to three independent bugs, for the runner's
 * self-tests of "every violated requirement, each with its own minimized counterexample".
 *
 * After every step the table's rows are compared with the model's map (put -> KV-101, del -> KV-102),
 * then the step's result (count -> KV-103, get -> KV-104). Because state is checked after each step, a
 * divergence always names the requirement whose bug caused it, so the bugs are independent:
 * - `clamp`: put stores values above 100 as 100 (breaks KV-101; minimal: put(0, 101));
 * - `sticky`: del leaves keys 2 and 3 in place (breaks KV-102; minimal: put(2, 0), del(2));
 * - `capped`: count never says more than 2 (breaks KV-103; minimal: three puts, then count).
 * KV-104 (get returns the stored value) has no bug.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { SqlClient } from "effect/sql"
import type { Divergence, ExecutionTrace, Json, PropertyDefinition, StepRecord } from "../../../harness/Property.ts"
import { HarnessError } from "../../../harness/errors.ts"
import { nowMs } from "../../../harness/VirtualClock.ts"

/** The requirements of the toy: what each operation must do. */
export const MULTI_KV = { put: "KV-101", del: "KV-102", count: "KV-103", get: "KV-104" } as const

/** One operation of the toy subject. */
export type MultiKvOperation =
  | { readonly op: "put"; readonly key: number; readonly value: number }
  | { readonly op: "del"; readonly key: number }
  | { readonly op: "count" }
  | { readonly op: "get"; readonly key: number }

/** Which independent bugs the implementation has. */
export interface MultiKvBugs {
  readonly clamp?: boolean
  readonly sticky?: boolean
  readonly capped?: boolean
}

/** Most operations in one scenario. */
const MAX_OPERATIONS = 10

const operation: fc.Arbitrary<MultiKvOperation> = fc.oneof(
  fc.record({ op: fc.constant("put" as const), key: fc.nat({ max: 3 }), value: fc.nat({ max: 120 }) }),
  fc.record({ op: fc.constant("del" as const), key: fc.nat({ max: 3 }) }),
  fc.constant({ op: "count" as const }),
  fc.record({ op: fc.constant("get" as const), key: fc.nat({ max: 3 }) })
)

const implement = (sql: SqlClient.SqlClient, bugs: MultiKvBugs, step: MultiKvOperation): Effect.Effect<Json, unknown> => {
  switch (step.op) {
    case "put": {
      const stored = bugs.clamp === true ? Math.min(step.value, 100) : step.value
      return Effect.as(sql`INSERT INTO kv (k, v) VALUES (${step.key}, ${stored}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, null)
    }
    case "del":
      return bugs.sticky === true && step.key >= 2 ? Effect.succeed(null) : Effect.as(sql`DELETE FROM kv WHERE k = ${step.key}`, null)
    case "count":
      return sql<{ n: number }>`SELECT COUNT(*) AS n FROM kv`.pipe(
        Effect.map((rows) => (bugs.capped === true ? Math.min(Number(rows[0]!.n), 2) : Number(rows[0]!.n)))
      )
    case "get":
      return sql<{ v: number }>`SELECT v FROM kv WHERE k = ${step.key}`.pipe(Effect.map((rows) => (rows.length === 0 ? null : Number(rows[0]!.v))))
  }
}

const modelStep = (state: Map<number, number>, step: MultiKvOperation): Json => {
  switch (step.op) {
    case "put":
      state.set(step.key, step.value)
      return null
    case "del":
      state.delete(step.key)
      return null
    case "count":
      return state.size
    case "get":
      return state.get(step.key) ?? null
  }
}

const rowsAsJson = (rows: ReadonlyArray<{ readonly k: number; readonly v: number }>): Json => rows.map((row) => [Number(row.k), Number(row.v)])

/** The first disagreement of one step: the state after it, then its result. */
const checkStep = (index: number, step: MultiKvOperation, record: StepRecord): Divergence | null => {
  const requirementId = MULTI_KV[step.op]
  const stateActual = JSON.stringify(record.implementationState)
  const stateExpected = JSON.stringify(record.modelState)
  if (stateActual !== stateExpected) {
    return { requirementId, stepIndex: index, explanation: `after ${step.op} the rows are ${stateActual}, the model holds ${stateExpected}`, expected: record.modelState ?? null, actual: record.implementationState ?? null }
  }
  if (JSON.stringify(record.implementation) === JSON.stringify(record.model)) return null
  return { requirementId, stepIndex: index, explanation: `${step.op} returned ${JSON.stringify(record.implementation)}, the model says ${JSON.stringify(record.model)}`, expected: record.model, actual: record.implementation }
}

const harnessError = (what: string) => (cause: unknown) => new HarnessError({ message: `multi-bug kv: ${what} failed: ${String(cause)}`, hint: "check the adapter", cause })

/** Builds the toy property with the given bugs (none: the faithful implementation). */
export const multiBugKvProperty = (bugs: MultiKvBugs = {}, id = "selftest/multi-kv"): PropertyDefinition<any> => ({
  id,
  subject: "adapter",
  title: "toy key-value store with independent bugs (harness self-test)",
  requirements: Object.values(MULTI_KV),
  needs: [],
  implementation: Object.entries(bugs).filter(([, on]) => on === true).map(([name]) => name).join("+") || "reference",
  scenario: () => fc.array(operation, { maxLength: MAX_OPERATIONS }),
  truncate: (scenario: ReadonlyArray<MultiKvOperation>, trace: ExecutionTrace) => scenario.slice(0, trace.steps.length),
  execute: (scenario: ReadonlyArray<MultiKvOperation>, environment) =>
    Effect.gen(function*() {
      const sql = environment.database.sql
      yield* sql`CREATE TABLE kv (k INTEGER PRIMARY KEY, v INTEGER NOT NULL)`.pipe(Effect.mapError(harnessError("create table")))
      const model = new Map<number, number>()
      const steps: Array<StepRecord> = []
      const covered = new Set<string>()
      for (const [index, step] of scenario.slice(0, MAX_OPERATIONS).entries()) {
        covered.add(MULTI_KV[step.op])
        const virtualTimeMs = yield* nowMs
        const actual = yield* implement(sql, bugs, step).pipe(Effect.mapError(harnessError(step.op)))
        const expected = modelStep(model, step)
        const rows = yield* sql<{ k: number; v: number }>`SELECT k, v FROM kv ORDER BY k`.pipe(Effect.mapError(harnessError("observe")))
        const modelRows = [...model.entries()].sort(([a], [b]) => a - b)
        const record: StepRecord = { index, operation: step.op, args: step as unknown as Json, virtualTimeMs, implementation: actual, model: expected, implementationState: rowsAsJson(rows), modelState: modelRows }
        steps.push(record)
        const divergence = checkStep(index, step, record)
        if (divergence !== null) return { steps, divergence, covered: [...covered].sort() } satisfies ExecutionTrace
      }
      return { steps, divergence: null, covered: [...covered].sort() } satisfies ExecutionTrace
    })
})
