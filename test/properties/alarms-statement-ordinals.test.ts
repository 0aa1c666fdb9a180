/**
 * The statement counts `statementOrdinals.ts` draws failing statements over are the shipped scheduler's:
 * every transaction the faults property runs is logged statement by statement (outermost level, as the
 * storage boundary counts them) on sqlite and pglite, and each kind's count is the table's (Postgres's),
 * one fewer on sqlite (no transaction lock). And the ordinal draw is uniform over each kind's statements.
 */
import { Context, Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import * as Statement from "effect/sql/Statement"
import { describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import { ALARM_MAX_STATEMENT, type FaultedTransaction, ORDINAL_DRAWS, ordinalOf, TRANSACTION_STATEMENTS } from "../../properties/alarms/statementOrdinals.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const faults = propertyById(alarmsSuite(), "alarms/faults")

/** `client` with the outermost-level statements of each outermost transaction counted into `counts`, in order. */
const counting = (client: SqlClient.SqlClient, counts: Array<number>): SqlClient.SqlClient => {
  const transformer = (index: number, outer: Statement.Transformer | undefined): Statement.Transformer => (statement, sql, fiber, span) => {
    const level = Context.getOrUndefined(fiber.context, client.transactionService)
    if (level !== undefined && level[1] === 0) counts[index]!++
    return outer === undefined ? Effect.succeed(statement) : outer(statement, sql, fiber, span)
  }
  const withTransaction = <A, E, R>(body: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.serviceOption(client.transactionService), (open) => {
      if (Option.isSome(open)) return client.withTransaction(body)
      const index = counts.push(0) - 1
      return client.withTransaction(Effect.withFiber((fiber) => Effect.provideService(body, Statement.CurrentTransformer, transformer(index, fiber.getRef(Statement.CurrentTransformer)))))
    })
  const proxy: SqlClient.SqlClient = new Proxy(client, {
    get: (target, property) => (property === "withTransaction" ? withTransaction : property === "safe" ? proxy : Reflect.get(target, property, target))
  })
  return proxy
}

/** The statement count of each transaction `commands` run through `alarms/faults` (the liveness phase's last). */
const transactionStatements = async (adapter: StorageAdapter, commands: ReadonlyArray<Json>): Promise<ReadonlyArray<number>> => {
  const counts: Array<number> = []
  const counted: StorageAdapter = { ...adapter, open: (options) => Effect.map(adapter.open(options), (database) => ({ ...database, sql: counting(database.sql, counts) })) }
  const trace = await Effect.runPromise(executeScenario(faults, counted, { commands }))
  expect(trace.divergence).toBeNull()
  return counts
}

const input = (id: string, runInMs = 1_000, repeatEveryMs?: number) => ({ tag: "a", id, payload: null, runInMs, ...(repeatEveryMs === undefined ? {} : { repeatEveryMs }) })
const scheduleOf = (id: string) => ({ kind: "scheduleAlarm", input: input(id) })
/** Migrates the tables outside any transaction (`getAlarmStatus`), so the transactions after it are the ones counted. */
const migrated = { op: "status", ref: { tag: "a", id: "1" } }
const dispatchOf = (outcome: "succeed" | "fail") => ({ op: "dispatch", handlers: [{ tag: "a", id: "1", script: { outcome } }] })

/** Per kind: commands, and which of their transactions is that kind's. */
const CASES: ReadonlyArray<{ readonly kind: FaultedTransaction; readonly commands: ReadonlyArray<Json>; readonly transaction: number }> = [
  { kind: "schedule", commands: [migrated, { op: "schedule", input: input("1") }], transaction: 1 },
  { kind: "cancel", commands: [migrated, { op: "schedule", input: input("1") }, { op: "cancel", ref: { tag: "a", id: "1" } }], transaction: 2 },
  { kind: "transaction", commands: [migrated, { op: "transaction", mutations: [scheduleOf("1"), scheduleOf("2"), scheduleOf("3")] }], transaction: 1 },
  { kind: "timelineTransaction", commands: [migrated, { op: "transaction", mutations: [scheduleOf("1"), scheduleOf("3")] }], transaction: 1 },
  { kind: "acknowledge", commands: [migrated, { op: "schedule", input: input("1", 0) }, dispatchOf("succeed")], transaction: 2 },
  { kind: "afterBatch", commands: [migrated, { op: "schedule", input: input("1", 0) }, dispatchOf("succeed")], transaction: 3 },
  { kind: "failureWrite", commands: [migrated, { op: "schedule", input: input("1", 0) }, dispatchOf("fail")], transaction: 2 },
  // The longest of a dispatch's transactions: a handler's schedule (a repeat's acknowledgement runs one fewer).
  { kind: "dispatch", commands: [migrated, { op: "schedule", input: input("1", 0, 60_000) }, { op: "dispatch", handlers: [{ tag: "a", id: "1", script: { outcome: "succeed", writes: [scheduleOf("2")] } }] }], transaction: 2 }
]

for (const adapterName of ["sqlite", "pglite"] as const) {
  describe(`statement counts on ${adapterName}`, () => {
    const lockStatements = adapterName === "sqlite" ? 0 : 1
    it("every kind of faulted transaction runs the statements its ordinals are drawn over", async () => {
      for (const { commands, kind, transaction } of CASES) {
        const counts = await transactionStatements(adapters[adapterName]!, commands)
        expect.soft(counts[transaction - 1], kind).toBe(TRANSACTION_STATEMENTS[kind] - 1 + lockStatements)
      }
    })

    it("the longest transaction, three schedules that also create the tables, runs ALARM_MAX_STATEMENT", async () => {
      const counts = await transactionStatements(adapters[adapterName]!, [{ op: "transaction", mutations: [scheduleOf("1"), scheduleOf("2"), scheduleOf("3")] }])
      expect(counts[0]).toBe(ALARM_MAX_STATEMENT - 1 + lockStatements)
    })
  })
}

describe("ordinalOf", () => {
  it("names each statement of a kind equally often, three draws in four within its own range", () => {
    for (const kind of Object.keys(TRANSACTION_STATEMENTS) as Array<FaultedTransaction>) {
      const length = TRANSACTION_STATEMENTS[kind]
      const seen = new Array<number>(ALARM_MAX_STATEMENT + 1).fill(0)
      for (let draw = 0; draw < ORDINAL_DRAWS; draw++) seen[ordinalOf(kind, draw)]!++
      const beyond = ORDINAL_DRAWS / 4 / ALARM_MAX_STATEMENT
      const own = (3 * ORDINAL_DRAWS) / 4 / length + beyond
      expect(seen.slice(1), kind).toEqual(Array.from({ length: ALARM_MAX_STATEMENT }, (_, index) => (index < length ? own : beyond)))
    }
  })

  it("names the first statement for draw 0 and the last statements for the highest draws", () => {
    expect(ordinalOf("schedule", 0)).toBe(1)
    expect(ordinalOf("schedule", ORDINAL_DRAWS - 2)).toBe(TRANSACTION_STATEMENTS.schedule)
    expect(ordinalOf("schedule", ORDINAL_DRAWS - 1)).toBe(ALARM_MAX_STATEMENT)
  })
})
