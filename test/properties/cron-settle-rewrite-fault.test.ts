/**
 * A failed statement in the settling after a delivery (settleFired), the third kind of failed tick
 * write a cron fault scenario ends with (`properties/cron/statementFaults.ts`). N8: the delivered
 * tick's row is rewritten to the next tick in that transaction, so a failed rewrite fails the settle and
 * leaves the row claimed, to be rewritten after the lease.
 *
 * The held-out blind bug `cron-3/settle-fired-deletes-when-rewrite-fails` catches the rewrite's failure
 * and deletes the row instead. It shows only where a failed statement leaves its transaction open
 * (SQLite's meaning, `harness/StatementFault.ts`): there the DELETE runs and commits. Under Postgres's
 * meaning the DELETE fails in the aborted transaction, the settle fails as the model says, and the bug
 * cannot show; the test says so too, so the two meanings are told apart.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { bugs as cronBlindBugs } from "../../blind-bugs/cron-3.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { propertyById } from "../../harness/Suite.ts"
import { cronSuite } from "../../properties/cron/index.ts"
import type { Command, CronScenario } from "../../properties/cron/scenario.ts"
import { TICK_WRITE_STATEMENTS } from "../../properties/cron/statementFaults.ts"
import type { CronImplementation } from "../../subjects/cron/api.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"

const adapters = useNodeAdapters()
const faultsOf = (implementation?: CronImplementation) => propertyById(cronSuite(implementation), "cron/faults")

/** A runner declares an entry, bootstraps, claims the due tick and settles it; statement `statement` of settleFired fails. */
const scenario = (statement: number): CronScenario => {
  const fault = { transaction: 1, phase: "statementFails", statement } as const
  const settling: ReadonlyArray<Command> = [
    { op: "declare", runner: 0, entries: [{ index: 0, command: "ping" }] },
    { op: "bootstrap", runner: 0 },
    { op: "advanceToDue" },
    { op: "claim", runner: 0 },
    { op: "settle", runner: 0 },
    { op: "settle", runner: 0 },
    { op: "settle", runner: 0, fault }
  ]
  return {
    anchor: 0,
    skipMs: 600_000,
    pool: [{ spec: "*/15 * * * *", zone: "UTC", command: "ping", payload: "{}" }],
    probesMs: [0],
    commands: [],
    failedTickWrite: settling
  }
}

describe("a failed statement in the settling after a delivery", () => {
  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`the shipped runtime agrees with the model, the rewrite's failure reached, on ${adapterName}`, async () => {
      for (const statement of [TICK_WRITE_STATEMENTS.settleFired, TICK_WRITE_STATEMENTS.settleFired + 1]) {
        const trace = await Effect.runPromise(executeScenario(faultsOf(), adapters[adapterName]!, scenario(statement) as unknown as Json))
        expect(trace.divergence, `${statement}: ${trace.divergence?.explanation}`).toBeNull()
        expect(trace.steps).toHaveLength(7)
        if (statement === TICK_WRITE_STATEMENTS.settleFired) expect(trace.situations ?? []).toContain("firedRewriteStatementFailed")
        else expect(trace.steps.at(-1)!.fault).toMatch(/COMMIT was refused/)
      }
    }, 120_000)
  }
})

describe("the blind bug settle-fired-deletes-when-rewrite-fails, applied to a copy of examples/third-party-cron", () => {
  const copies = useBlindCopy<CronImplementation>(cronBlindBugs, "settle-fired-deletes-when-rewrite-fails")
  const run = scenario(TICK_WRITE_STATEMENTS.settleFired) as unknown as Json

  it("on SQLite the swallowed rewrite commits the DELETE and is caught under CRN-008 (N8) at the settle; the unmodified runtime agrees", async () => {
    const adapter = makeSqliteAdapter()
    const original = await Effect.runPromise(executeScenario(faultsOf(copies.original()), adapter, run))
    expect(original.divergence, original.divergence?.explanation).toBeNull()
    const blind = await Effect.runPromise(executeScenario(faultsOf(copies.blind()), adapter, run))
    expect(blind.divergence?.requirementId).toBe("CRN-008")
    expect(blind.divergence?.stepIndex).toBe(6)
    expect(blind.steps.at(-1)!.fault).toMatch(/SQLite's meaning/)
  }, 120_000)

  it("on Postgres the DELETE fails in the aborted transaction, so the settle fails as the model says: nothing to catch", async () => {
    const blind = await Effect.runPromise(executeScenario(faultsOf(copies.blind()), adapters.pglite!, run))
    expect(blind.divergence, blind.divergence?.explanation).toBeNull()
    expect(blind.steps.at(-1)!.implementation).toMatchObject({ _tag: "Failure" })
  }, 120_000)
})
