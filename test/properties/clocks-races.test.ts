/**
 * Two engine processes firing the same clock, released in generated orders (`properties/clocks/race.ts`):
 * - on every in-process adapter the shipped engine's fires pause at `clocks.fire.begin` and run in the
 *   race's order, the second at once or held for the lag, and the step agrees with the model;
 * - on postgres an overlapping race is truly concurrent: the second fire's transaction waits on the
 *   first's open one, seen through `pg_blocking_pids`;
 * - the `cas-owner-fenced` known-bad is caught by `clocks/concurrent` at the gate's budget, its
 *   counterexample names the release order, and the same scenario without its races passes (only the
 *   generated release orders find it).
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { executeScenario, runProperty } from "../../harness/Runner.ts"
import type { Json } from "../../harness/Property.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import { casOwnerFenced } from "../known-bad/clocks/cas-owner-fenced.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"

const adapters = useNodeAdapters()

const concurrent = (suite = clocksSuite()) => suite.properties.find((property) => property.id === "clocks/concurrent")!

/** A clock scheduled by A, armed by B's sweep, and both fires raced in `race`. */
const raceScenario = (race: { readonly order: ReadonlyArray<number>; readonly lagMs: number; readonly overlap: boolean }): Json => ({
  commands: [
    { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
    { op: "sweep", process: "B", withFlow: false },
    { op: "advance", ms: 2_500, race }
  ]
})

/** The scenario's commands without their races. */
const withoutRaces = (scenario: Json): Json => ({
  commands: ((scenario as { readonly commands: ReadonlyArray<Record<string, Json>> }).commands).map(({ race: _race, ...command }) => command)
})

describe("clocks fire races", () => {
  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`the shipped engine agrees with the model in every release order on ${adapterName}`, async () => {
      for (const order of [[0, 1], [1, 0]]) {
        for (const lagMs of [0, 100]) {
          const trace = await Effect.runPromise(executeScenario(concurrent(), adapters[adapterName]!, raceScenario({ order, lagMs, overlap: lagMs === 0 })))
          expect(trace.divergence, `${adapterName} ${JSON.stringify(order)} lag ${lagMs}`).toBeNull()
          const words = trace.steps[2]!.fault ?? ""
          const [first, second] = order[0] === 0 ? ["A", "B"] : ["B", "A"]
          expect(words).toMatch(new RegExp(`^race of e1/t1 at \\d+: ${first} released first`))
          if (lagMs > 0) expect(words).toContain(`${second} held 100 ms`)
          else if (adapterName === "postgres") expect(words).toContain(`overlapped by ${second}'s, which waited on its lock (pg_blocking_pids)`)
          else expect(words).toContain(`then ${second}`)
        }
      }
    }, 120_000)
  }

  it("cas-owner-fenced is caught only through a generated release order", async () => {
    const property = concurrent(clocksSuite(casOwnerFenced.implementation))
    const run = await Effect.runPromise(runProperty({ property, adapter: adapters.sqlite!, seed: 20261129, runs: 60 }))
    expect(run.verdict).toBe("fail")
    if (run.verdict !== "fail") return
    for (const counterexample of run.counterexamples) {
      expect(casOwnerFenced.breaks).toContain(counterexample.divergence.requirementId)
      expect(counterexample.trace.steps.map((step) => step.fault ?? "").join("\n")).toMatch(/race of \S+ at \d+: B released first, A held \d+ ms/)
      const stripped = await Effect.runPromise(executeScenario(property, adapters.sqlite!, withoutRaces(counterexample.scenario)))
      expect(stripped.divergence, JSON.stringify(counterexample.scenario)).toBeNull()
    }
  }, 120_000)
})
