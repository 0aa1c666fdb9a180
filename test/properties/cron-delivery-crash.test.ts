/**
 * Cron's delivery crashes (`CronScenario.deliveryCrashes`, drawn last by `cron/faults`): a runner
 * settles a claimed tick to its delivery, whose transaction commits the receipt and then crashes or
 * loses its reply, so the runner loses its claim between the receipt and the rewrite; once the lease
 * has run out it claims the tick again and the redelivery replays the receipt (I2, N8). Before the
 * episode existed the gate's budget reached that crash in 3 scenarios on sqlite; each episode must
 * reach it, and the replay after it, and agree with the model on every in-process adapter.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { cronSuite } from "../../properties/cron/index.ts"
import { type CronScenario, type DeliveryCrash, runningCommands } from "../../properties/cron/scenario.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const faults = propertyById(cronSuite(), "cron/faults")

const POOL = [{ spec: "*/15 * * * *", zone: "America/New_York", command: "ping", payload: "{}" }]

/** Runner 0 declares the entry and bootstraps its ticks; the crash episode comes after every command. */
const scenario = (crash: DeliveryCrash): CronScenario => ({
  anchor: 0,
  skipMs: 600_000,
  pool: POOL,
  probesMs: [0],
  commands: [
    { op: "declare", runner: 0, entries: [{ index: 0, command: "ping" }] },
    { op: "declare", runner: 1, entries: null },
    { op: "bootstrap", runner: 0 }
  ],
  deliveryCrashes: [crash]
})

const PHASES: ReadonlyArray<DeliveryCrash["phase"]> = ["afterCommit", "lostReply"]

describe("cron delivery crashes between the receipt and the rewrite", () => {
  it("strike the delivery's transaction after its commit, then poll again once the lease ran out", () => {
    const commands = runningCommands(scenario({ runner: 0, phase: "lostReply" }))
    expect(commands.filter((command) => "fault" in command)).toEqual([{ op: "settle", runner: 0, fault: { transaction: 1, phase: "lostReply" } }])
    // The struck settle is the second settling phase after the claim: the delivery.
    const struck = commands.findIndex((command) => "fault" in command)
    expect(commands.slice(struck - 2, struck).map((command) => command.op)).toEqual(["claim", "settle"])
    expect(commands.slice(struck + 1).map((command) => command.op)).toEqual(["advance", "claim", "settle", "settle", "settle"])
  })

  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`reach the crash and the replay after it, agreeing with the model, on ${adapterName}`, async () => {
      for (const phase of PHASES) {
        const trace = await Effect.runPromise(executeScenario(faults, adapters[adapterName]!, scenario({ runner: 0, phase }) as unknown as Json))
        expect(trace.divergence, `${phase}: ${JSON.stringify(trace.divergence?.explanation)}`).toBeNull()
        expect(trace.situations, phase).toEqual(expect.arrayContaining(["crashBetweenReceiptAndRewrite", "deliveryReplayedReceipt"]))
      }
    }, 120_000)
  }
})
