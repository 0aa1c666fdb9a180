/**
 * A tiny key-value subject used only by the harness self-tests: a model (a Map), an implementation
 * over SQL, and a deliberately broken implementation that clamps values above 100. Small enough that
 * the minimal counterexample is known exactly: put(k, 101) then get(k).
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { SqlClient } from "effect/sql"
import { hookPoint } from "../../../harness/HookPoints.ts"
import type { ExecutionTrace, Json, PropertyDefinition, StepRecord } from "../../../harness/Property.ts"
import { nowMs, advanceByMs } from "../../../harness/VirtualClock.ts"
import { HarnessError } from "../../../harness/errors.ts"

/** One operation of the toy subject. */
export type KvOperation =
  | { readonly op: "put"; readonly key: number; readonly value: number }
  | { readonly op: "get"; readonly key: number }
  | { readonly op: "wait"; readonly ms: number }

/** How a toy implementation stores a value. */
export type StoreValue = (value: number) => number

const faithful: StoreValue = (value) => value

/** The broken store: clamps values above 100. */
export const clampingStore: StoreValue = (value) => Math.min(value, 100)

const run = (sql: SqlClient.SqlClient, store: StoreValue, operation: KvOperation): Effect.Effect<Json, unknown> => {
  switch (operation.op) {
    case "put":
      return sql`INSERT INTO kv (k, v) VALUES (${operation.key}, ${store(operation.value)}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`.pipe(
        Effect.andThen(hookPoint("kv.afterPut")),
        Effect.as(null)
      )
    case "get":
      return sql<{ v: number }>`SELECT v FROM kv WHERE k = ${operation.key}`.pipe(
        Effect.map((rows) => (rows.length === 0 ? null : Number(rows[0]!.v)))
      )
    case "wait":
      return Effect.as(advanceByMs(operation.ms), null)
  }
}

const modelStep = (state: Map<number, number>, operation: KvOperation): Json => {
  switch (operation.op) {
    case "put":
      state.set(operation.key, operation.value)
      return null
    case "get":
      return state.get(operation.key) ?? null
    case "wait":
      return null
  }
}

/** Builds the toy property; `store` picks the faithful or a broken implementation. */
export const kvProperty = (options: { readonly id?: string; readonly store?: StoreValue; readonly needs?: PropertyDefinition["needs"]; readonly covers?: boolean } = {}): PropertyDefinition<any> => ({
  id: options.id ?? "selftest/kv",
  subject: "adapter",
  title: "toy key-value store (harness self-test)",
  requirements: ["KV-001"],
  needs: options.needs ?? [],
  implementation: options.store === clampingStore ? "clamping" : "reference",
  scenario: () =>
    fc.array(
      fc.oneof(
        fc.record({ op: fc.constant("put" as const), key: fc.nat({ max: 3 }), value: fc.nat({ max: 1_000 }) }),
        fc.record({ op: fc.constant("get" as const), key: fc.nat({ max: 3 }) }),
        fc.record({ op: fc.constant("wait" as const), ms: fc.nat({ max: 10_000 }) })
      ),
      { maxLength: 12 }
    ),
  execute: (scenario: ReadonlyArray<KvOperation>, environment) =>
    Effect.gen(function*() {
      const sql = environment.database.sql
      yield* sql`CREATE TABLE kv (k INTEGER PRIMARY KEY, v INTEGER NOT NULL)`.pipe(
        Effect.mapError((cause) => new HarnessError({ message: "cannot create kv table", hint: "check the adapter", cause }))
      )
      const model = new Map<number, number>()
      const steps: Array<StepRecord> = []
      for (const [index, operation] of scenario.entries()) {
        const virtualTimeMs = yield* nowMs
        const actual = yield* run(sql, options.store ?? faithful, operation).pipe(
          Effect.mapError((cause) => new HarnessError({ message: `kv operation failed: ${String(cause)}`, hint: "check the adapter", cause }))
        )
        const expected = modelStep(model, operation)
        steps.push({ index, operation: operation.op, args: operation as unknown as Json, virtualTimeMs, implementation: actual, model: expected })
        if (actual !== expected) {
          const trace: ExecutionTrace = {
            steps,
            divergence: {
              requirementId: "KV-001",
              stepIndex: index,
              explanation: `get(${operation.op === "get" ? operation.key : "?"}) returned ${JSON.stringify(actual)} but the last put stored ${JSON.stringify(expected)}`,
              expected,
              actual
            },
            covered: ["KV-001"]
          }
          return trace
        }
      }
      const covered = options.covers === false ? [] : scenario.some((operation) => operation.op === "get") ? ["KV-001"] : []
      const trace: ExecutionTrace = { steps, divergence: null, covered }
      return trace
    })
})
