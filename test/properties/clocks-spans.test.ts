/**
 * CLK-023: the engine's operations keep upstream's span names (`DeferredPersistence.<operation>`,
 * seed 003). The harness records the spans each call opens through a tracer of its own
 * (`harness/SpanRecorder.ts`), so the check needs nothing from the implementation. The shipped engine
 * passes; an engine that traces its operations under names of its own (and hides the inner ones) is
 * caught under CLK-023 alone, with a one-step counterexample that shows the names it opened; an engine
 * that adds spans of its own around upstream's still passes.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { catchKnownBad } from "../../harness/knownBad.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { makeSpanRecorder } from "../../harness/SpanRecorder.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import type { ClocksImplementation, ClocksService } from "../../subjects/clocks/api.ts"
import { shippedClocks } from "../../subjects/clocks/index.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()

/** `effect` traced only as `name`: the spans it would open itself are hidden. */
const tracedAs = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withSpan(Effect.withTracerEnabled(effect, false), name)

/** The shipped engine with each operation traced under `spanOf(operation)`, hiding upstream's span unless `keepInner`. */
const retraced = (name: string, spanOf: (operation: string) => string, keepInner: boolean): ClocksImplementation => ({
  name,
  make: (environment) =>
    Effect.map(shippedClocks.make(environment), (service): ClocksService => {
      const wrap = <A, E, R>(operation: string, effect: Effect.Effect<A, E, R>) =>
        keepInner ? Effect.withSpan(effect, spanOf(operation)) : tracedAs(spanOf(operation), effect)
      return {
        ...service,
        deferredResult: (deferred) => wrap("deferredResult", service.deferredResult(deferred)),
        deferredDone: (options) => wrap("deferredDone", service.deferredDone(options)),
        deferredDoneIfWaiting: (options) => wrap("deferredDoneIfWaiting", service.deferredDoneIfWaiting(options)),
        scheduleClock: (flow, options) => wrap("scheduleClock", service.scheduleClock(flow, options)),
        sweepDue: (flowName) => wrap("sweepDue", service.sweepDue(flowName))
      }
    })
})

const modelOf = (implementation: ClocksImplementation) => propertyById(clocksSuite(implementation), "clocks/model")

describe("clocks span names (CLK-023)", () => {
  it("records every span a call opens, and hides none when the tracer is on", async () => {
    const spans = makeSpanRecorder()
    await Effect.runPromise(spans.record(Effect.withSpan(Effect.withSpan(Effect.void, "inner"), "outer")))
    expect(spans.names()).toEqual(["outer", "inner"])
    expect(spans.dropped()).toBe(0)
  })

  it("passes the shipped engine, and one that adds spans of its own around upstream's", async () => {
    const commands = [{ op: "deferredDone", exec: "e1", deferred: "sig", value: 1 }, { op: "deferredResult", exec: "e1", deferred: "sig" }]
    for (const implementation of [shippedClocks, retraced("outer-spans", (operation) => `MyEngine.${operation}`, true)]) {
      const trace = await Effect.runPromise(executeScenario(modelOf(implementation), adapters.sqlite!, { commands }))
      expect(trace.divergence?.explanation ?? null, implementation.name).toBeNull()
      expect(trace.covered, implementation.name).toContain("CLK-023")
    }
  })

  it("catches an engine that names its spans its own way, under CLK-023 alone, with a one-step counterexample", async () => {
    const renamed = retraced("own-span-names", (operation) => `clocks.${operation}`, false)
    const result = await Effect.runPromise(catchKnownBad({ suite: clocksSuite(renamed), adapter: adapters.sqlite!, propertyOrder: ["clocks/model"] }))
    expect(result.caught).toBe(true)
    expect(result.counterexamples.map((counterexample) => counterexample.divergence.requirementId)).toEqual(["CLK-023"])
    const [counterexample] = result.counterexamples
    expect(counterexample!.trace.steps).toHaveLength(1)
    expect(counterexample!.divergence.explanation).toMatch(/spans the call opened was .*clocks\.\w+.* but the model expected \["DeferredPersistence\.\w+"\]/)
  }, 120_000)
})
