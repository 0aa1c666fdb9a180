/**
 * A read whose storage fails (`readFails`, `harness/Faults.ts`: the n-th read outside any transaction
 * fails before it runs, as a lost connection would). Until 2026-12-06 storage faults struck only
 * transactions and writes, so a store that answered a failed read with None (as if the content were
 * swept) passed: blind bug `content-2/read-failure-reads-as-missing`. Now:
 * - the fault property's third appended unit (`targeted.ts`, `failedRead`) uploads, reads with the
 *   first or second read failing, then reads again;
 * - the shipped store and `examples/independent-content` agree with the model (K7: the failed read
 *   fails with the storage error, the next returns the bytes) on every in-process adapter;
 * - the blind bug, applied to a copy, is caught at the failed read under CNT-008, also by
 *   `content/faults` at the gate's budget and seed.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { bugs as contentBlindBugs } from "../../blind-bugs/content-2.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { contentScenario } from "../../properties/content/arbitraries.ts"
import { CONTENT_SHAPES, contentSuite } from "../../properties/content/index.ts"
import type { ContentScenario } from "../../properties/content/scenario.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const faultsOf = (implementation?: ContentImplementation) => propertyById(contentSuite(implementation), "content/faults")

/** An upload, its read with read `statement` outside a transaction failing, then the read again. */
const failedReadScenario = (statement: number): ContentScenario => ({
  commands: [
    { op: "upload", tenant: 0, payload: 2, stream: false },
    { op: "read", tenant: 0, payload: 2, sizeDelta: 0, fault: { transaction: 1, phase: "readFails", statement } },
    { op: "read", tenant: 0, payload: 2, sizeDelta: 0 }
  ]
})

describe("a read whose storage fails", () => {
  it("fault scenarios end with one often, never model scenarios", () => {
    const failedReads = (faults: boolean) =>
      fc.sample(contentScenario(faults ? CONTENT_SHAPES.faults : CONTENT_SHAPES.model, makeSqliteAdapter().capabilities), { numRuns: 200, seed: 7 })
        .filter((scenario) => scenario.commands.some((command) => command.op === "read" && command.fault?.phase === "readFails")).length
    expect(failedReads(false)).toBe(0)
    expect(failedReads(true)).toBeGreaterThan(40)
  })

  for (const name of NODE_ADAPTER_NAMES) {
    it(`the shipped store agrees with the model on ${name}: the failed read fails with the storage error, the next reads the bytes`, async () => {
      for (const statement of [1, 2]) {
        const trace = await Effect.runPromise(executeScenario(faultsOf(), adapters[name]!, failedReadScenario(statement) as unknown as Json))
        expect(trace.divergence, trace.divergence?.explanation).toBeNull()
        // The shipped store reads once: the second read's fault does not strike.
        const readBack = { _tag: "Success", value: expect.anything() }
        expect(trace.steps[1]!.implementation).toEqual(statement === 1 ? { _tag: "Failure", error: "SqlError" } : readBack)
        expect(trace.steps[2]!.implementation).toEqual(readBack)
        expect((trace.situations ?? []).includes("faultReadFailed")).toBe(statement === 1)
      }
    }, 60_000)
  }
})

describe("the blind bug read-failure-reads-as-missing, applied to a copy of examples/independent-content", () => {
  const copies = useBlindCopy<ContentImplementation>(contentBlindBugs, "read-failure-reads-as-missing")

  it("the unmodified store agrees with the model; the modified one is caught at the failed read under CNT-008", async () => {
    const adapter = makeSqliteAdapter()
    const run = failedReadScenario(1) as unknown as Json
    const trace = await Effect.runPromise(executeScenario(faultsOf(copies.original()), adapter, run))
    expect(trace.divergence, trace.divergence?.explanation).toBeNull()
    const missing = await Effect.runPromise(executeScenario(faultsOf(copies.blind()), adapter, run))
    expect(missing.divergence?.requirementId).toBe("CNT-008")
    expect(missing.divergence?.stepIndex).toBe(1)
    expect(missing.steps[1]!.implementation).toEqual({ _tag: "Success", value: null })
  }, 120_000)

  it("content/faults catches it at the gate's budget on sqlite, under CNT-008", async () => {
    const result = await Effect.runPromise(catchKnownBad({ suite: contentSuite(copies.blind()), adapter: makeSqliteAdapter(), propertyOrder: ["content/faults"], stopAfterFailures: 1 }))
    expect(result.caught, result.run.verdict).toBe(true)
    for (const counterexample of result.counterexamples) expect(counterexample.divergence.requirementId).toBe("CNT-008")
  }, 300_000)
})
