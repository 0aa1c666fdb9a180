/**
 * `npx tsx bench/phaseTimes.ts [sqlite,pglite,postgres,do-sqlite]`: the wall time of every phase the
 * harness puts a deadline on (`harness/Deadline.ts`), per built-in adapter, at the gate's budget and
 * seed: the adapter's `make` and close, and for each scenario of every property its `open`, its
 * operations and its `close`. do-sqlite runs whole scenarios in workerd, so there each scenario is
 * timed whole through the host (round trip included). The defaults of `--run-timeout` and of the
 * adapter lifecycle limit are chosen from these numbers.
 */
import { Effect, Exit, Scope } from "effect"
import * as fc from "fast-check"
import type { StorageAdapter } from "../adapters/contract.ts"
import { builtInAdapters } from "../cli/adapterRegistry.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../harness/Budget.ts"
import { propertySeed } from "../harness/Conformance.ts"
import type { Json, PropertyDefinition } from "../harness/Property.ts"
import { missingCapabilities, runProperty } from "../harness/Runner.ts"
import { suites } from "../properties/registry.ts"

/** Wall times in ms of one kind of phase. */
type Samples = Array<number>

const describe = (label: string, samples: Samples): string => {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (fraction: number) => (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0).toFixed(1)
  return `  ${label.padEnd(11)} n ${String(sorted.length).padStart(5)}  p50 ${at(0.5).padStart(8)}  p99 ${at(0.99).padStart(8)}  max ${at(1).padStart(8)} ms`
}

/** `adapter` with `open` timed: the time to open, and the time to release the database. */
const timedOpen = (adapter: StorageAdapter, openMs: Samples, closeMs: Samples): StorageAdapter => ({
  ...adapter,
  open: (options) =>
    Effect.gen(function*() {
      const closing = { startedMs: 0 }
      yield* Effect.addFinalizer(() => Effect.sync(() => void closeMs.push(performance.now() - closing.startedMs)))
      const startedMs = performance.now()
      const database = yield* adapter.open(options)
      openMs.push(performance.now() - startedMs)
      yield* Effect.addFinalizer(() => Effect.sync(() => void (closing.startedMs = performance.now())))
      return database
    })
})

/** `property` with its operations (`execute`) timed. */
const timedExecute = (property: PropertyDefinition<any>, executeMs: Samples): PropertyDefinition<any> => ({
  ...property,
  execute: (scenario, environment) => {
    const startedMs = performance.now()
    return Effect.ensuring(property.execute(scenario, environment), Effect.sync(() => void executeMs.push(performance.now() - startedMs)))
  }
})

/** Every phase of every scenario of every property on an in-process adapter. */
const timeInProcess = async (adapter: StorageAdapter): Promise<ReadonlyArray<string>> => {
  const openMs: Samples = [], executeMs: Samples = [], closeMs: Samples = []
  const timed = timedOpen(adapter, openMs, closeMs)
  for (const property of suites.flatMap((suite) => suite.properties)) {
    const seed = propertySeed(DEFAULT_SEED, property.id, adapter.name)
    await Effect.runPromise(runProperty({ property: timedExecute(property, executeMs), adapter: timed, seed, runs: DEFAULT_RUNS }))
  }
  return [describe("open", openMs), describe("operations", executeMs), describe("close", closeMs)]
}

/** Whole scenarios (the gate's first `DEFAULT_RUNS` of every property) through a hosted adapter. */
const timeHosted = async (adapter: StorageAdapter): Promise<ReadonlyArray<string>> => {
  const scenarioMs: Samples = []
  for (const property of suites.flatMap((suite) => suite.properties)) {
    if (missingCapabilities(property, adapter).length > 0) continue
    const seed = propertySeed(DEFAULT_SEED, property.id, adapter.name)
    for (const scenario of fc.sample(property.scenario(adapter.capabilities), { seed, numRuns: DEFAULT_RUNS })) {
      const startedMs = performance.now()
      await Effect.runPromise(adapter.host!.executeScenario!({ propertyId: property.id, implementation: property.implementation ?? "reference", scenario: scenario as Json }))
      scenarioMs.push(performance.now() - startedMs)
    }
  }
  return [describe("scenario", scenarioMs)]
}

const chosen = (process.argv[2] ?? builtInAdapters.map((adapter) => adapter.name).join(",")).split(",")
for (const entry of builtInAdapters.filter((adapter) => chosen.includes(adapter.name))) {
  const definition = await entry.load()
  const scope = Effect.runSync(Scope.make())
  const makeStartedMs = performance.now()
  const adapter = await Effect.runPromise(Scope.provide(scope)(definition.make))
  const makeMs = performance.now() - makeStartedMs
  const lines = adapter.host?.executeScenario === undefined ? await timeInProcess(adapter) : await timeHosted(adapter)
  const closeStartedMs = performance.now()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  console.log(`${entry.name}: make ${makeMs.toFixed(1)} ms, close ${(performance.now() - closeStartedMs).toFixed(1)} ms`)
  for (const line of lines) console.log(line)
}
process.exit(0)
