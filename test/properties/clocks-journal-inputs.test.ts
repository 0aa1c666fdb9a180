/**
 * What the clocks engine hands the journal is checked at the journal the harness owns
 * (`properties/clocks/journalHarness.ts`), with nothing asked of the engine: a record whose payload
 * or meta is not a JSON value (an `undefined` field the shipped SQL journal's JSON text drops, where
 * another journal would keep or reject it) is a C2 divergence (CLK-002), caught with a short
 * counterexample that names the part; a failed lossy flush that is never logged is a C3 divergence
 * (CLK-004, the known-bad `flush-failure-unlogged`).
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { catchKnownBad } from "../../harness/knownBad.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import type { ClocksImplementation, JournalInput } from "../../subjects/clocks/api.ts"
import { shippedClocks } from "../../subjects/clocks/index.ts"
import { flushFailureUnlogged } from "../known-bad/clocks/flush-failure-unlogged.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"

const adapters = useNodeAdapters()

/** The shipped engine over a journal that gets every durable record with an `undefined` payload field added. */
const undefinedField: ClocksImplementation = {
  name: "undefined-payload-field",
  make: (environment) =>
    shippedClocks.make({
      ...environment,
      journal: {
        ...environment.journal,
        emitDurableUnfenced: (input: JournalInput) =>
          environment.journal.emitDurableUnfenced({ ...input, payload: { ...(input.payload as object), note: undefined } as unknown as JournalInput["payload"] })
      }
    })
}

describe("records handed to the clocks journal", () => {
  it("catches an engine that hands the journal a payload with an undefined field, under CLK-002", async () => {
    const result = await Effect.runPromise(catchKnownBad({ suite: clocksSuite(undefinedField), adapter: adapters.sqlite!, propertyOrder: ["clocks/model"] }))
    expect(result.caught).toBe(true)
    const [counterexample] = result.counterexamples
    expect(counterexample!.divergence.requirementId).toBe("CLK-002")
    expect(counterexample!.trace.steps.length).toBeLessThanOrEqual(2)
    expect(counterexample!.divergence.explanation).toMatch(/\$\.payload\.note/)
  }, 120_000)

  it("catches a failed lossy flush that is never logged, under CLK-004", async () => {
    const result = await Effect.runPromise(catchKnownBad({ suite: clocksSuite(flushFailureUnlogged.implementation), adapter: adapters.sqlite!, propertyOrder: ["clocks/model"] }))
    expect(result.caught).toBe(true)
    expect(result.counterexamples.map((counterexample) => counterexample.divergence.requirementId)).toEqual(["CLK-004"])
    expect(result.counterexamples[0]!.divergence.explanation).toMatch(/loggedAtWarnOrAbove":false/)
  }, 120_000)
})
