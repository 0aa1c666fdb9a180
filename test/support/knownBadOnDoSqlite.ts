/**
 * The known-bad caught test on do-sqlite, for any subject: real Durable Object SQLite in workerd,
 * through the Node host, at the gate's budget and seed. The host bundles the known-bad suites into its
 * worker (`test/workerd/knownBadSuites.ts`), so each run executes inside the object bound to
 * `known-bad/<name>`. Per bug, the kit's caught-loop tries the properties in order until one fails;
 * every reported requirement must be among those the bug breaks (and, where given, among those it must
 * be reported under), every counterexample as short as on the in-process adapters, and re-executing
 * each counterexample inside the object (`host.executeScenario`) must reproduce the same divergence.
 */
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { type CatchResult, catchKnownBad, type KnownBad, misattributed, sameDivergence } from "../../harness/knownBad.ts"
import type { SubjectImplementation } from "../../harness/SubjectPlugin.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { makeDoSqliteAdapterDefinition } from "../../hosts/do-sqlite/host.ts"

const KNOWN_BAD_SUITES_MODULE = fileURLToPath(new URL("../workerd/knownBadSuites.ts", import.meta.url))

/** One known-bad of a subject, as the do-sqlite caught test needs it. */
export interface DoSqliteKnownBadCase {
  readonly bad: Pick<KnownBad<unknown>, "name" | "breaks"> & { readonly implementation: SubjectImplementation }
  /** The subject's suite bound to the known-bad implementation. */
  readonly suite: SubjectSuite
  /** Properties to try, in order (default: the suite's order). */
  readonly propertyOrder?: ReadonlyArray<string>
  /** Bound on each minimized counterexample's steps. */
  readonly maxSteps: number
  /** When given, the only requirements the bug may be reported under (liveness bugs: the liveness ones). */
  readonly reportedUnder?: ReadonlyArray<string>
}

/** Declares the two caught tests of `subject` on do-sqlite; `timeoutMs` bounds each. */
export const describeKnownBadOnDoSqlite = (subject: string, cases: ReadonlyArray<DoSqliteKnownBadCase>, timeoutMs: number): void => {
  let scope: Scope.Closeable
  let adapter: StorageAdapter

  beforeAll(async () => {
    scope = await Effect.runPromise(Scope.make())
    adapter = await Effect.runPromise(Scope.provide(scope)(makeDoSqliteAdapterDefinition({ extraSuitesModule: KNOWN_BAD_SUITES_MODULE }).make))
  }, 120_000)

  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  describe(`known-bad ${subject} on do-sqlite`, () => {
    const caught = new Map<string, CatchResult>()

    it("every known-bad implementation is caught, reporting only requirements its bug breaks", async () => {
      const table: Array<string> = []
      for (const { bad, suite, propertyOrder, maxSteps, reportedUnder } of cases) {
        const result = await Effect.runPromise(catchKnownBad({ suite, adapter, stopAfterFailures: 1, ...(propertyOrder === undefined ? {} : { propertyOrder }) }))
        const error = result.run.verdict === "error" ? result.run.error.message : "not caught"
        expect.soft(result.caught, `${bad.name} on do-sqlite: ${error}`).toBe(true)
        if (!result.caught) continue
        caught.set(bad.name, result)
        for (const mismatch of misattributed(bad, result.counterexamples)) {
          expect.soft(mismatch.expected, `${bad.name} reported ${mismatch.reported}: ${mismatch.explanation}`).toContain(mismatch.reported)
        }
        for (const counterexample of result.counterexamples) {
          const id = counterexample.divergence.requirementId
          table.push(`| ${bad.name} | ${result.run.propertyId} | ${result.runsToDetect} | ${counterexample.trace.steps.length} | ${id} | ${result.durationMs} ms |`)
          if (reportedUnder !== undefined) expect.soft(reportedUnder, `${bad.name} reported ${id}`).toContain(id)
          expect.soft(counterexample.trace.steps.length, `${bad.name}: counterexample length`).toBeLessThanOrEqual(maxSteps)
        }
      }
      console.info(["| bug | property | runs to detect | steps | requirement | time |", "|---|---|---|---|---|---|", ...table].join("\n"))
      expect(caught.size).toBe(cases.length)
    }, timeoutMs)

    it("re-executing each counterexample inside the object reproduces the same divergence", async () => {
      const host = adapter.host
      expect(host?.executeScenario).toBeDefined()
      expect(caught.size).toBe(cases.length)
      for (const { bad } of cases) {
        for (const counterexample of caught.get(bad.name)?.counterexamples ?? []) {
          const trace = await Effect.runPromise(host!.executeScenario!({
            propertyId: counterexample.propertyId,
            implementation: bad.implementation.name,
            scenario: counterexample.scenario
          }))
          expect.soft(sameDivergence(counterexample.divergence, trace.divergence), `${bad.name} ${counterexample.divergence.requirementId}`).toBe(true)
        }
      }
    }, timeoutMs)
  })
}
