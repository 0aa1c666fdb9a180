/**
 * The pool suite on the built-in adapters: green on postgres (also for an implementation without the
 * hand-over hook point, as a third party's would be), not-applicable where the engine has no
 * independent connections, deterministic scenario by scenario, and attributing wire statements by
 * their tag only.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { WireStatement } from "../../harness/PostgresWireTap.ts"
import { executeScenario, runProperty } from "../../harness/Runner.ts"
import { inAnotherCheckoutsTransaction, isNotifyStatement, statementOwner, transactionOf } from "../../properties/pool/checks.ts"
import { poolSuite } from "../../properties/pool/index.ts"
import { makeFifoGate } from "../../subjects/pool/gate.ts"
import { makePoolImplementation } from "../../subjects/pool/make.ts"
import { defaultPoolPieces } from "../../subjects/pool/pieces.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"

const adapters = useNodeAdapters()

/** Runs per property here: enough to reach every requirement (the gate runs 60). */
const RUNS = 30

/** The shipped FIFO gate without its hook point: what an upstream pool looks like to the harness. */
const gateWithoutHook = makeFifoGate({ handOverHook: false })

describe("pool suite", () => {
  const coveredByShipped = new Set<string>()
  for (const implementation of [undefined, makePoolImplementation("without-hook-points", { ...defaultPoolPieces, gate: gateWithoutHook })]) {
    const suite = poolSuite(implementation)
    for (const property of suite.properties) {
      it(`${property.id} (${suite.implementation}) passes on postgres, reaching every requirement`, async () => {
        const run = await Effect.runPromise(runProperty({ property, adapter: adapters.postgres!, seed: 7, runs: RUNS }))
        const failures = run.verdict === "fail" ? run.counterexamples.map((counterexample) => counterexample.divergence.explanation) : []
        expect(failures).toEqual([])
        expect(run.verdict === "error" ? run.error.message : run.verdict).toBe("pass")
        expect(run.runsExecuted).toBe(RUNS)
        if (implementation === undefined) for (const id of Object.keys(run.covered)) coveredByShipped.add(id)
      }, 120_000)
    }
  }

  it("the shipped pool's runs reached every requirement", () => {
    expect([...coveredByShipped].sort()).toEqual(poolSuite().requirements.map((requirement) => requirement.id))
  })

  for (const adapterName of ["sqlite", "pglite"]) {
    it(`is not applicable on ${adapterName} (no independent connections), naming the capability`, async () => {
      for (const property of poolSuite().properties) {
        const run = await Effect.runPromise(runProperty({ property, adapter: adapters[adapterName]!, seed: 1, runs: 5 }))
        expect(run.verdict).toBe("not-applicable")
        expect(run.verdict === "not-applicable" && run.missingCapabilities).toEqual(["independentConnections"])
      }
    })
  }

  it("the same scenario gives the same trace twice", async () => {
    const property = poolSuite().properties[0]!
    const scenarios = fc.sample(property.scenario(adapters.postgres!.capabilities), { seed: 3, numRuns: 6 })
    for (const scenario of scenarios) {
      const first = await Effect.runPromise(executeScenario(property, adapters.postgres!, scenario))
      const second = await Effect.runPromise(executeScenario(property, adapters.postgres!, scenario))
      expect(JSON.stringify(second.steps)).toBe(JSON.stringify(first.steps))
      expect(second.divergence).toBeNull()
    }
  }, 120_000)
})

describe("wire statement attribution", () => {
  const statement = (text: string, params: ReadonlyArray<string | null> = []): WireStatement => ({ seq: 0, session: 1, text, params, transactionStatus: "I", protocol: "named" })

  it("finds the checkout tag in the text or the parameters, and ignores LISTEN/UNLISTEN and untagged statements", () => {
    expect(statementOwner(statement("SELECT 'pool-op-o12' AS op"))).toBe("o12")
    expect(statementOwner(statement("SELECT pg_notify($1, $2)", ["pool-op-o3", "pool-op-o3"]))).toBe("o3")
    expect(statementOwner(statement("LISTEN \"pool-op-o4\""))).toBeNull()
    expect(statementOwner(statement("UNLISTEN \"pool-op-o4\""))).toBeNull()
    expect(statementOwner(statement("COMMIT"))).toBeNull()
    expect(statementOwner(statement("SELECT $1", [null]))).toBeNull()
  })

  it("finds a notify inside another checkout's transaction, not in a transaction of its own", () => {
    const sent = (seq: number, session: number, text: string, transactionStatus: WireStatement["transactionStatus"], params: ReadonlyArray<string> = []): WireStatement =>
      ({ seq, session, text, params, transactionStatus, protocol: "named" })
    const statements = [
      sent(0, 1, "BEGIN", "I"),
      sent(1, 1, "SELECT 'pool-op-o1' AS op", "T"),
      sent(2, 2, "BEGIN", "I"),
      sent(3, 2, "SELECT pg_notify($1, $2)", "T", ["pool-listen", "pool-op-o3"]),
      sent(4, 1, "SELECT pg_notify($1, $2)", "T", ["pool-listen", "pool-op-o2"]),
      sent(5, 2, "COMMIT", "T"),
      sent(6, 1, "COMMIT", "T"),
      sent(7, 1, "NOTIFY \"pool-listen\", 'pool-op-o4'", "I")
    ]
    expect(statements.filter(isNotifyStatement).map((statement) => statementOwner(statement))).toEqual(["o3", "o2", "o4"])
    expect(transactionOf(statements, statements[3]!).map((statement) => statement.seq)).toEqual([2, 3, 5])
    expect(statements.filter((statement) => isNotifyStatement(statement) && inAnotherCheckoutsTransaction(statements, statement)).map((statement) => statementOwner(statement))).toEqual(["o2"])
  })
})
