/**
 * The alarms properties against the shipped implementation: it passes on sqlite, pglite and postgres;
 * a run is deterministic (same seed, same PropertyRun apart from its duration); and at the default
 * budget the properties together cover every ALM requirement except the reasoned exceptions below.
 *
 * Budgets: sqlite runs the gate's own budget (DEFAULT_RUNS scenarios per property, gate seeds), so the
 * coverage assertion is about exactly what `npm run conformance` exercises; pglite and postgres run a
 * smaller budget (EMBEDDED_RUNS per property: 12 on pglite, 20 on postgres) to keep this file under a
 * minute.
 */
import { Effect } from "effect"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { describe, expect, it } from "vitest"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../harness/Budget.ts"
import { propertySeed } from "../../harness/Conformance.ts"
import type { PropertyRun } from "../../harness/RunResult.ts"
import { runProperty } from "../../harness/Runner.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import { alarmRequirements } from "../../spec/alarms.ts"
import { knownBadAlarms } from "../known-bad/alarms/index.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"

/** Scenarios per property on the Postgres adapters (pglite runs WebAssembly Postgres: ~0.7 s a scenario). */
const EMBEDDED_RUNS = { pglite: 12, postgres: 20 } as const

/**
 * Requirements the shipped properties cannot witness, each with the reason (none: typed definitions,
 * R29, are generated too, and the liveness requirements are reached by the liveness phase).
 */
const UNCOVERABLE: Readonly<Record<string, string>> = {}

const adapters = useNodeAdapters()

const suite = alarmsSuite()

const run = (adapter: StorageAdapter, propertyIndex: number, runs: number, seed?: number): Promise<PropertyRun> => {
  const property = suite.properties[propertyIndex]!
  return Effect.runPromise(
    runProperty({ property, adapter, seed: seed ?? propertySeed(DEFAULT_SEED, property.id, adapter.name), runs })
  )
}

const describeRun = (result: PropertyRun): string =>
  result.verdict !== "fail"
    ? `${result.propertyId}@${result.adapter}: ${result.verdict} ${result.verdict === "error" ? result.error.message : ""}`
    : result.counterexamples.map((cx) => `${result.propertyId}@${result.adapter}: ${cx.divergence.explanation}\n${JSON.stringify(cx.scenario)}`).join("\n")

describe("the shipped alarms implementation", () => {
  const sqliteRuns: Array<PropertyRun> = []

  it("passes every alarms property on sqlite at the gate's budget", async () => {
    for (const [index] of suite.properties.entries()) {
      const result = await run(adapters.sqlite!, index, DEFAULT_RUNS)
      console.log(`${result.propertyId}@sqlite ${result.runsExecuted} runs ${result.durationMs} ms`)
      expect(result.verdict, describeRun(result)).toBe("pass")
      expect(result.runsExecuted).toBe(DEFAULT_RUNS)
      sqliteRuns.push(result)
    }
  })

  it("at the default budget covers every ALM requirement (or a reasoned exception)", () => {
    const covered = new Set(sqliteRuns.flatMap((result) => Object.keys(result.covered)))
    console.log(`covered ${covered.size} of ${alarmRequirements.length} ALM requirements`)
    const missing = alarmRequirements.map((requirement) => requirement.id).filter((id) => !covered.has(id))
    expect(missing.filter((id) => UNCOVERABLE[id] === undefined)).toEqual([])
  })

  for (const name of ["pglite", "postgres"] as const) {
    it(`passes every alarms property on ${name} (${EMBEDDED_RUNS[name]} scenarios each)`, async () => {
      for (const [index] of suite.properties.entries()) {
        const result = await run(adapters[name]!, index, EMBEDDED_RUNS[name])
        console.log(`${result.propertyId}@${name} ${result.runsExecuted} runs ${result.durationMs} ms`)
        expect(result.verdict, describeRun(result)).toBe("pass")
      }
    })
  }

  it("is deterministic: the same seed gives the same PropertyRun apart from its duration", async () => {
    const strip = ({ durationMs: _durationMs, ...rest }: PropertyRun) => rest
    const first = await run(adapters.sqlite!, 1, 15, 7)
    const second = await run(adapters.sqlite!, 1, 15, 7)
    expect(strip(second)).toEqual(strip(first))
    const bad = alarmsSuite(knownBadAlarms.find((entry) => entry.name === "h1-content-ack")!.implementation).properties[0]!
    const failing = () => Effect.runPromise(runProperty({ property: bad, adapter: adapters.sqlite!, seed: 7, runs: 30 }))
    const a = await failing()
    const b = await failing()
    expect(a.verdict).toBe("fail")
    expect(strip(b)).toEqual(strip(a))
  })
})
