/**
 * The content properties under a failed statement (the storage boundary's `statementFails` fault): one
 * statement of an upload's, a grant's, an attach's, a detach's or a sweep's transaction fails and
 * rolls back, so it keeps nothing and the caller sees the storage error, as for a refused COMMIT; a
 * transaction that runs fewer statements is refused at COMMIT instead, and one whose body fails first
 * was not struck (`harness/StruckFault.ts`). Each scenario runs through `content/faults` on every
 * in-process adapter: the shipped store agrees with the model after every step at every ordinal, and a
 * store that swallows a failed horizon raise is caught.
 *
 * On SQLite a failed statement leaves its transaction open (`harness/StatementFault.ts`), so a store
 * that swallows one commits the rest: the held-out blind bug `content-3/tenant-registration-failure-ignored`
 * (the tenant's registration for sweeping piped to `Effect.ignore`) uploads without registering, and
 * its content is never swept. It is caught there under CNT-007 (K6); under Postgres's meaning the
 * aborted transaction fails the upload anyway.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { bugs as contentBlindBugs } from "../../blind-bugs/content-3.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { contentSuite } from "../../properties/content/index.ts"
import { contentStatementFaults } from "../../properties/content/statementFaults.ts"
import { raiseSwallowsStatementFailure } from "../known-bad/content/raise-swallows-statement-failure.ts"
import type { ContentImplementation } from "../../subjects/content/api.ts"
import { useBlindCopy } from "../support/blindCopy.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const faultsOf = (suite: ReturnType<typeof contentSuite>) => propertyById(suite, "content/faults")
const shipped = faultsOf(contentSuite())
const failing = (statement: number) => ({ transaction: 1, phase: "statementFails", statement }) as const

/** Statement ordinals swept: every outermost statement of the shipped store's transactions, and past them. */
const ORDINALS = [1, 2, 3, 4, 6]

const place = { tenant: 0, actor: 0, blob: 0, name: 0 }

/** Each transaction-running call, with statement `statement` of its transaction failing, then the call again. */
const scenarios = (statement: number): ReadonlyArray<{ readonly name: string; readonly commands: ReadonlyArray<Json> }> => [
  {
    name: `an upload whose statement ${statement} fails`,
    commands: [{ op: "upload", tenant: 0, payload: 1, stream: false, fault: failing(statement) }, { op: "upload", tenant: 0, payload: 1, stream: false }]
  },
  {
    name: `a grant whose statement ${statement} fails`,
    commands: [
      { op: "upload", tenant: 0, payload: 1, stream: false },
      { op: "grant", tenant: 0, payload: 1, sizeDelta: 0, fault: failing(statement) },
      { op: "grant", tenant: 0, payload: 1, sizeDelta: 0 }
    ]
  },
  {
    name: `an attach and a detach whose statement ${statement} fails`,
    commands: [
      { op: "upload", tenant: 0, payload: 1, stream: false },
      { op: "attach", ...place, wallet: 0, misuse: "none", fault: failing(statement) },
      { op: "attach", ...place, wallet: 0, misuse: "none" },
      { op: "detach", ...place, fault: failing(statement) },
      { op: "detach", ...place }
    ]
  },
  {
    name: `a forced sweep whose statement ${statement} fails`,
    commands: [
      { op: "upload", tenant: 0, payload: 1, stream: false },
      { op: "advance", ms: 3 * 24 * 3_600_000 },
      { op: "sweep", force: true, fault: failing(statement) },
      { op: "sweep", force: true }
    ]
  }
]

describe("the targeted failed-statement timeline of content", () => {
  it("fails a grant at once and a minute after its upload (a raise that moves the horizon), an attach, an upload and a sweep", () => {
    const shapes = new Set<string>()
    for (const { timeline } of fc.sample(contentStatementFaults, { numRuns: 300, seed: 5 })) {
      const failed = timeline.filter((command) => "fault" in command)
      expect(failed).toHaveLength(1)
      expect(failed[0]).toMatchObject({ fault: { transaction: 1, phase: "statementFails" } })
      shapes.add(timeline.map((command) => command.op === "advance" ? `advance ${command.ms}` : "fault" in command ? `${command.op} failing` : command.op).join(", "))
    }
    expect([...shapes].sort()).toEqual([
      "advance 259200000, sweep failing",
      "upload failing, read",
      "upload, advance 60000, grant failing",
      "upload, attach failing",
      "upload, grant failing"
    ])
  })
})

describe("content when a statement of a transaction fails", () => {
  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`agrees with the model after every step at every statement ordinal on ${adapterName}`, async () => {
      let struck = 0
      for (const statement of ORDINALS) {
        for (const scenario of scenarios(statement)) {
          const trace = await Effect.runPromise(executeScenario(shipped, adapters[adapterName]!, { commands: scenario.commands }))
          expect(trace.divergence, `${scenario.name}: ${JSON.stringify(trace.divergence?.explanation)}`).toBeNull()
          expect(trace.steps).toHaveLength(scenario.commands.length)
          struck += trace.steps.filter((step) => step.fault !== undefined && !/COMMIT was refused|not struck|not reached/.test(step.fault)).length
        }
      }
      // Not vacuous: statements really failed (the first of every transaction at least).
      expect(struck).toBeGreaterThanOrEqual(scenarios(1).length)
    }, 300_000)

    it(`catches a store that swallows a failed horizon raise on ${adapterName}`, async () => {
      const swallowing = faultsOf(contentSuite(raiseSwallowsStatementFailure.implementation))
      // The grant comes an hour after the upload, so its raise really moves the horizon: under SQLite's
      // meaning the swallowed failure commits, and is judged as if the raise had not failed.
      const grant = scenarios(1)[1]!.commands
      const trace = await Effect.runPromise(executeScenario(swallowing, adapters[adapterName]!, { commands: [grant[0]!, { op: "advance", ms: 3_600_000 }, ...grant.slice(1)] }))
      expect(trace.divergence?.stepIndex).toBe(2)
      expect(raiseSwallowsStatementFailure.breaks).toContain(trace.divergence?.requirementId)
    }, 120_000)
  }
})

describe("the blind bug tenant-registration-failure-ignored, applied to a copy of examples/independent-content", () => {
  const copies = useBlindCopy<ContentImplementation>(contentBlindBugs, "tenant-registration-failure-ignored")

  it("content/faults passes the unmodified store and catches the modified one at the gate's budget on sqlite, under CNT-007 (K6)", async () => {
    const run = (implementation: ContentImplementation) =>
      Effect.runPromise(catchKnownBad({ suite: contentSuite(implementation), adapter: makeSqliteAdapter(), propertyOrder: ["content/faults"], stopAfterFailures: 1 }))
    const original = await run(copies.original())
    expect(original.caught, original.run.verdict).toBe(false)
    const blind = await run(copies.blind())
    expect(blind.caught, blind.run.verdict).toBe(true)
    expect(blind.counterexamples.map((counterexample) => counterexample.divergence.requirementId)).toContain("CNT-007")
  }, 300_000)
})
