/**
 * Two first reads of one deferred at once (`properties/clocks/resultRace.ts`, C7): the read that
 * starts first is held while virtual time moves on, and the other process reads to completion; the
 * first consumption is the later read's, and the held read must change nothing. It is held at the
 * storage boundary's point before its transaction, or, on a Postgres server when no timer fires during
 * the lag, inside its open transaction before its first write. The model predicts it; the shipped
 * engine agrees on every node adapter and reaches `resultRaceHeld` (`resultRaceOverlapped` on
 * postgres). Two bugs applied to copies of `examples/independent-clocks` are caught under CLK-009 at
 * the race, and the unmodified copy agrees:
 * - the blind bug `consume-update-without-null-guard` (an unconditional consumption UPDATE), on every
 *   node adapter;
 * - a store that decides the record by a read inside its transaction rather than by the guarded
 *   UPDATE's row count (`record-decided-by-read-inside-transaction`, written here, not blind), only
 *   where the held read is held inside its transaction (postgres): held before BEGIN, its read comes
 *   after the other's commit and sees the consumption.
 * Two correct stores whose other read waits on the held one agree on postgres: one that locks the row
 * (the server shows the wait, so the held read is judged as committing first), and one whose
 * consumptions take turns through a gate inside the JS process (no wait the server shows: either order).
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { BlindBug, BlindBugSet } from "../../blind-bugs/BlindBug.ts"
import { bugs as clocksBlindBugs } from "../../blind-bugs/clocks-3.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { propertyById } from "../../harness/Suite.ts"
import type { Command } from "../../models/clocks/index.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import type { ClocksImplementation } from "../../subjects/clocks/api.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { runClocksModel } from "../support/clocksModelRun.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"

const adapters = useNodeAdapters()
const concurrentOf = (implementation?: ClocksImplementation) => propertyById(clocksSuite(implementation), "clocks/concurrent")

/** A completion, then both processes read it, `first` reading while the other's read is held `lagMs`. */
const race = (first: "A" | "B", lagMs: number): ReadonlyArray<Command> => [
  { op: "deferredDone", exec: "e1", deferred: "sig", value: 1 },
  { op: "resultRace", exec: "e1", deferred: "sig", first, lagMs }
]

describe("two first reads of one deferred at once (C7)", () => {
  it("the model records the later read's consumption once, at the later time, and both reads return the exit", () => {
    const [, raced] = runClocksModel(race("B", 1_000)).outcomes
    const exit = { _tag: "Some", value: { _tag: "Success", value: 1 } }
    expect(raced!.result).toEqual({ _tag: "Success", value: { A: exit, B: exit } })
    expect(Object.values(raced!.state.deferreds)[0]!.consumedAtMs).toBe(1_000)
    const consumed = Object.values(raced!.state.journal).filter((record) => record.eventType.includes("consumed"))
    expect(consumed).toHaveLength(1)
    expect(raced!.state.nowMs).toBe(1_000)
    const realised = (fields: Partial<Extract<Command, { op: "resultRace" }>>) =>
      runClocksModel([race("B", 1_000)[0]!, { ...race("B", 1_000)[1]!, ...fields } as Command]).outcomes[1]!
    expect(Object.values(realised({ heldRanThrough: true }).state.deferreds)[0]!.consumedAtMs).toBe(0)
    // The held read committed first (the other waited on its lock), with its time from before or after the lag.
    for (const [heldCommittedFirst, consumedAtMs] of [["atStart", 0], ["afterLag", 1_000]] as const) {
      const outcome = realised({ heldCommittedFirst })
      expect(outcome.result).toEqual({ _tag: "Success", value: { A: exit, B: exit } })
      expect(Object.values(outcome.state.deferreds)[0]!.consumedAtMs).toBe(consumedAtMs)
      expect(Object.values(outcome.state.journal).filter((record) => record.eventType.includes("consumed"))).toHaveLength(1)
      expect(outcome.state.nowMs).toBe(1_000)
    }
  })

  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`the shipped engine agrees and its held read paused (inside its transaction on postgres) on ${adapterName}`, async () => {
      for (const [first, lagMs] of [["A", 1_000], ["B", 45_000], ["B", 1]] as const) {
        const trace = await Effect.runPromise(executeScenario(concurrentOf(), adapters[adapterName]!, { commands: race(first, lagMs) as unknown as ReadonlyArray<Json> }))
        expect(trace.divergence, `${first} ${lagMs}: ${JSON.stringify(trace.divergence?.explanation)}`).toBeNull()
        expect(trace.situations ?? []).toContain(adapterName === "postgres" ? "resultRaceOverlapped" : "resultRaceHeld")
      }
    }, 120_000)
  }
})

describe("the blind bug consume-update-without-null-guard, applied to a copy of examples/independent-clocks", () => {
  const copies = useBlindCopy<ClocksImplementation>(clocksBlindBugs, "consume-update-without-null-guard")

  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`the unmodified engine agrees; the modified one is caught at the race under CLK-009 on ${adapterName}`, async () => {
      const commands = race("B", 1_000) as unknown as ReadonlyArray<Json>
      const original = await Effect.runPromise(executeScenario(concurrentOf(copies.original()), adapters[adapterName]!, { commands }))
      expect(original.divergence, JSON.stringify(original.divergence?.explanation)).toBeNull()
      const blind = await Effect.runPromise(executeScenario(concurrentOf(copies.blind()), adapters[adapterName]!, { commands }))
      expect(blind.divergence?.stepIndex).toBe(1)
      expect(blind.divergence?.requirementId).toBe("CLK-009")
      // The held read's unconditional UPDATE overwrote the first consumption and emitted a second, conflicting record.
      expect(blind.steps[1]!.implementation).toEqual({ _tag: "Failure", error: "JournalError:idempotency_conflict" })
    }, 120_000)
  }
})

/** The line of the example engine's consumption that the edits below replace. */
const CONSUME_LINE = "        const first = yield* ctx.deferreds.consume(address, consumedAtMs)\n"

/** `examples/independent-clocks` with one edit of its engine, as a one-edit set. */
const engineEdited = (edit: Omit<BlindBug, "file">): BlindBugSet => ({
  ...clocksBlindBugs,
  bugs: [{ ...edit, file: "examples/independent-clocks/engine.ts" }]
})

/** A store that decides whether to record the consumption by its own read inside the transaction. */
const READ_INSIDE = engineEdited({
  id: "record-decided-by-read-inside-transaction",
  find: CONSUME_LINE,
  replace: "        const current = yield* ctx.deferreds.find(address).pipe(Effect.orDie)\n" +
    "        yield* ctx.deferreds.consume(address, consumedAtMs)\n" +
    "        const first = Option.isSome(current) && current.value.consumedAtMs === null\n",
  rules: ["C7", "C2"],
  summary: "Re-read the row inside the transaction and record the consumption when that read found it unconsumed.",
  observable: "Two first reads whose transactions overlap both find the row unconsumed inside their transactions; both record a consumption, with different times, and the later record conflicts."
})

describe("a store that decides the record by a read inside its transaction, applied to a copy of examples/independent-clocks", () => {
  const copies = useBlindCopy<ClocksImplementation>(READ_INSIDE, "record-decided-by-read-inside-transaction")

  for (const adapterName of NODE_ADAPTER_NAMES) {
    const overlapped = adapterName === "postgres"
    it(`the unmodified engine agrees; the modified one is ${overlapped ? "caught at the overlapped race under CLK-009" : "not caught when held before its transaction"} on ${adapterName}`, async () => {
      const commands = race("B", 1_000) as unknown as ReadonlyArray<Json>
      const original = await Effect.runPromise(executeScenario(concurrentOf(copies.original()), adapters[adapterName]!, { commands }))
      expect(original.divergence, JSON.stringify(original.divergence?.explanation)).toBeNull()
      const modified = await Effect.runPromise(executeScenario(concurrentOf(copies.blind()), adapters[adapterName]!, { commands }))
      if (!overlapped) {
        // Held before BEGIN, its read inside the transaction comes after the other's commit.
        expect(modified.divergence, JSON.stringify(modified.divergence?.explanation)).toBeNull()
        return
      }
      expect(modified.divergence?.stepIndex).toBe(1)
      expect(modified.divergence?.requirementId).toBe("CLK-009")
      expect(modified.steps[1]!.implementation).toEqual({ _tag: "Failure", error: "JournalError:idempotency_conflict" })
    }, 120_000)
  }
})

/** A correct store that locks the row inside its transaction before its guarded UPDATE (Postgres only: SQLite has no FOR UPDATE). */
const LOCKS_ROW = engineEdited({
  id: "consume-locks-row-first",
  find: CONSUME_LINE,
  replace: "        yield* ctx.env.sql`SELECT 1 FROM engine_deferreds WHERE flow_name = ${address.flowName} AND execution_id = ${address.executionId} AND deferred_name = ${address.deferredName} FOR UPDATE`.pipe(Effect.orDie)\n" +
    CONSUME_LINE,
  rules: [],
  summary: "Lock the row before consuming it (not a bug).",
  observable: "Nothing: the other read waits on the lock, and the held read consumes first."
})

/** The example engine's consumption transaction, whole. */
const CONSUME_TRANSACTION = "      yield* ctx.transact(Effect.gen(function*() {\n" +
  CONSUME_LINE +
  "        if (first) {\n" +
  "          yield* ctx.env.journal.emitDurableUnfenced(deferredConsumed(ctx.env.journalSource, stored.value, consumedAtMs))\n" +
  "        }\n" +
  "      }))\n"

/**
 * A correct store whose consumptions take turns through a gate shared by every engine in the JS
 * process (not a database lock): the other read waits where the server shows no lock wait.
 */
const PROCESS_GATE = engineEdited({
  id: "consume-behind-process-gate",
  find: CONSUME_TRANSACTION,
  replace: "      const gate = ((globalThis as { consumptionGate?: { tail: Promise<void> } }).consumptionGate ??= { tail: Promise.resolve() })\n" +
    "      const previous = gate.tail\n" +
    "      let unlock = () => {}\n" +
    "      gate.tail = new Promise<void>((resolve) => { unlock = resolve })\n" +
    "      yield* Effect.promise(() => previous)\n" +
    CONSUME_TRANSACTION.replace(/\)\)\n$/, ")).pipe(Effect.ensuring(Effect.sync(() => unlock())))\n"),
  rules: [],
  summary: "Consumptions take turns through a process-wide gate (not a bug).",
  observable: "Nothing: the other read waits on the gate, which the server cannot show, and the held read consumes first."
})

/** Correct stores whose other read waits on the held one, and how the race must say it resolved the wait. */
const WAITING_STORES = [
  { set: LOCKS_ROW, lagsMs: [1_000, 1], words: "committed first", how: "waited on the held transaction's lock (the server shows it), so the held read committed first" },
  { set: PROCESS_GATE, lagsMs: [1_000], words: "either order", how: "neither finished nor waited on a lock the server shows, so either order is accepted" }
] as const

for (const store of WAITING_STORES) {
  const id = store.set.bugs[0]!.id
  describe(`a correct store (${id}), applied to a copy of examples/independent-clocks`, () => {
    const copies = useBlindCopy<ClocksImplementation>(store.set, id)

    it(`agrees on postgres: the other read ${store.how}`, async () => {
      for (const lagMs of store.lagsMs) {
        const trace = await Effect.runPromise(executeScenario(concurrentOf(copies.blind()), adapters.postgres!, { commands: race(lagMs === 1 ? "A" : "B", lagMs) as unknown as ReadonlyArray<Json> }))
        expect(trace.divergence, JSON.stringify(trace.divergence?.explanation)).toBeNull()
        expect(trace.steps[1]!.fault).toContain(store.words)
        expect(trace.situations ?? []).not.toContain("resultRaceOverlapped")
      }
    }, 120_000)
  })
}
