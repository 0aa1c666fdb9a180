/**
 * A checkout whose wait ignores cancellation. Until 2026-12-06 the pool driver interrupted a checkout
 * with `Fiber.interrupt`, which waits for the fiber to end, so a pool whose gate wait was
 * uninterruptible hung the harness: every pool requirement was `error` (blamed on the adapter) and no
 * counterexample named P4 (blind bug `pool-2/gate-wait-uninterruptible`). Now the driver signals the
 * interruption, waits until the wire is quiet and observes whether the fiber ended
 * (`harness/Interruption.ts`); one that did not is a failed P4 check, and the run goes on.
 * - the shipped pool and `examples/third-party-pool` end an interrupted waiter at once;
 * - the blind bug, applied to a copy, is caught at the interruption under POL-004, and nothing hangs;
 * - `pool/model` catches it at the gate's budget and seed.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { bugs as poolBlindBugs } from "../../blind-bugs/pool-2.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { poolSuite } from "../../properties/pool/index.ts"
import type { PoolScenario } from "../../properties/pool/scenario.ts"
import type { PoolImplementation } from "../../subjects/pool/api.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const modelOf = (implementation?: PoolImplementation) => propertyById(poolSuite(implementation), "pool/model")

const acquire = { op: "start", kind: "acquire", retry: false, failing: false, longChannel: false, inside: null } as const

/** One connection held, a second checkout waiting at the gate, the waiter interrupted, then the holder released. */
const interruptedWaiter: PoolScenario = {
  maxConnections: 1,
  commands: [acquire, acquire, { op: "interrupt", pick: 0, waiting: true }, { op: "release", pick: 0, reborrow: false }]
}

describe("a checkout interrupted while it waits at the gate", () => {
  const copies = useBlindCopy<PoolImplementation>(poolBlindBugs, "gate-wait-uninterruptible")

  it("the shipped pool and the unmodified third-party pool end it at once: no divergence", async () => {
    for (const implementation of [undefined, copies.original()]) {
      const trace = await Effect.runPromise(executeScenario(modelOf(implementation), adapters.postgres!, interruptedWaiter as unknown as Json))
      expect(trace.divergence, trace.divergence?.explanation).toBeNull()
      expect(trace.steps[2]!.implementation).toMatchObject({ o1: "holding#1", o2: "interrupted#0" })
    }
  }, 60_000)

  it("a wait that ignores cancellation is caught at the interruption under POL-004, without hanging", async () => {
    const trace = await Effect.runPromise(executeScenario(modelOf(copies.blind()), adapters.postgres!, interruptedWaiter as unknown as Json))
    expect(trace.divergence?.requirementId).toBe("POL-004")
    expect(trace.divergence?.stepIndex).toBe(2)
    expect(trace.divergence?.explanation).toContain("still running after the harness interrupted them")
    expect(trace.steps[2]!.implementation).toMatchObject({ o1: "holding#1", o2: "pending#0" })
  }, 60_000)

  it("pool/model catches it at the gate's budget on postgres, under POL-004", async () => {
    const result = await Effect.runPromise(catchKnownBad({ suite: poolSuite(copies.blind()), adapter: adapters.postgres!, propertyOrder: ["pool/model"], stopAfterFailures: 1 }))
    expect(result.caught, result.run.verdict).toBe(true)
    for (const counterexample of result.counterexamples) expect(counterexample.divergence.requirementId).toBe("POL-004")
  }, 300_000)
})
