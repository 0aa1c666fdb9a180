/**
 * Two first reads of one deferred at once (`properties/clocks/resultRace.ts`, C7): the read that
 * starts first is held at the storage boundary's point before its transaction while virtual time moves
 * on, and the other process reads to completion; the first consumption is the later read's, and the
 * held read must change nothing. The model predicts it; the shipped engine agrees on every node adapter
 * and reaches `resultRaceHeld`; the blind bug `consume-update-without-null-guard` (an unconditional
 * consumption UPDATE) applied to a copy of `examples/independent-clocks` is caught under CLK-009 at the
 * race, and the unmodified copy agrees.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
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
    const [, ranThrough] = runClocksModel([race("B", 1_000)[0]!, { ...race("B", 1_000)[1]!, heldRanThrough: true } as Command]).outcomes
    expect(Object.values(ranThrough!.state.deferreds)[0]!.consumedAtMs).toBe(0)
  })

  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`the shipped engine agrees and its held read paused before its transaction on ${adapterName}`, async () => {
      for (const [first, lagMs] of [["A", 1_000], ["B", 45_000], ["B", 1]] as const) {
        const trace = await Effect.runPromise(executeScenario(concurrentOf(), adapters[adapterName]!, { commands: race(first, lagMs) as unknown as ReadonlyArray<Json> }))
        expect(trace.divergence, `${first} ${lagMs}: ${JSON.stringify(trace.divergence?.explanation)}`).toBeNull()
        expect(trace.situations ?? []).toContain("resultRaceHeld")
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
