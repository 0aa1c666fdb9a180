/**
 * The check shared by the known-bad tests whose bugs only overlapping transactions show: the bug is
 * caught at the gate's budget and seeds, under only the requirements it breaks, with a short
 * counterexample that contains the race and replays to the same divergence.
 */
import { Effect } from "effect"
import { expect } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { catchKnownBad, type KnownBad, misattributed, sameDivergence } from "../../harness/knownBad.ts"
import { executeScenario } from "../../harness/Runner.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { propertyById } from "../../harness/Suite.ts"

/** What `expectCaughtByRace` checks one known-bad against. */
export interface RaceCatch {
  readonly bad: Pick<KnownBad<unknown>, "name" | "breaks">
  /** The subject's suite bound to the known-bad implementation. */
  readonly suite: SubjectSuite
  readonly adapter: StorageAdapter
  /** Property ids in the order to try them. */
  readonly propertyOrder: ReadonlyArray<string>
  /** Bound on the steps of every minimized counterexample. */
  readonly maxSteps: number
  /** The trace operation of the race every counterexample must contain. */
  readonly raceOperation: string
}

/** Asserts that `race.bad` is caught by a race, attributed to a requirement it breaks, shortly, and replays. */
export const expectCaughtByRace = async (race: RaceCatch): Promise<void> => {
  const { bad, suite, adapter } = race
  const result = await Effect.runPromise(catchKnownBad({ suite, adapter, propertyOrder: race.propertyOrder, stopAfterFailures: 1 }))
  expect(result.caught, bad.name).toBe(true)
  expect(misattributed(bad, result.counterexamples), bad.name).toEqual([])
  for (const counterexample of result.counterexamples) {
    expect(counterexample.trace.steps.length, JSON.stringify(counterexample.scenario)).toBeLessThanOrEqual(race.maxSteps)
    expect(counterexample.trace.steps.some((step) => step.operation === race.raceOperation), bad.name).toBe(true)
    const property = propertyById(suite, counterexample.propertyId)
    const again = await Effect.runPromise(executeScenario(property, adapter, counterexample.scenario))
    expect(sameDivergence(counterexample.divergence, again.divergence), bad.name).toBe(true)
  }
}
