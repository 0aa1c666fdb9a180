/**
 * Every allowed pool variant (`variants.ts`) passes every pool requirement on postgres, the one
 * adapter the subject runs on (every requirement needs independent connections; sqlite, pglite and
 * do-sqlite are not applicable), at the gate's budget and seed; and each variant really differs from
 * the shipped pool in its swapped piece or wrapper (unit assertions, no database).
 */
import { Effect, Exit, Fiber, Scope } from "effect"
import type { Connection } from "effect/sql/SqlConnection"
import { describe, expect, it } from "vitest"
import { postgresAdapter } from "../../../adapters/postgres/index.ts"
import { HookPoints } from "../../../harness/HookPoints.ts"
import { poolSuite } from "../../../properties/pool/index.ts"
import { type BoundedPoolClient, POOL_HANDED_OVER_HOOK } from "../../../subjects/pool/api.ts"
import { fifoGate, type GateFactory } from "../../../subjects/pool/gate.ts"
import { defaultPoolPieces, type NotifyRuntime, type PoolPieces } from "../../../subjects/pool/pieces.ts"
import { expectEveryRequirementPasses } from "../../support/everyRequirementPasses.ts"
import {
  admissionReleasedFirst,
  channelCheckedAfterCheckout,
  flooredMaxConnections,
  gateWithoutHandOverHook,
  notifyByStatement,
  notifyInOwnTransaction,
  notifyStatement,
  poolAllowedVariants
} from "./variants.ts"

/**
 * Wall-clock limit of one variant on postgres: measured 37-48 s each on 2 shared cores (load average
 * about 10), x3. The whole file takes about 4 minutes.
 */
const VARIANT_TIMEOUT_MS = 150_000

describe("allowed pool variants pass every requirement on postgres", () => {
  for (const variant of poolAllowedVariants) {
    it(`${variant.name}: ${variant.freedom}`, async () => {
      await expectEveryRequirementPasses(poolSuite(variant.implementation), [postgresAdapter])
    }, VARIANT_TIMEOUT_MS)
  }
})

/** The statements a notify piece sends for `payload` on a fake checkout of its own. */
const statementsOfNotify = async (notify: PoolPieces["notify"], payload: string): Promise<ReadonlyArray<string>> => {
  const sent: Array<string> = []
  const connection = { executeRaw: (sql: string) => Effect.sync(() => { sent.push(sql); return { command: "SELECT", rows: [] } }) } as unknown as Connection
  const runtime: NotifyRuntime = { client: undefined as unknown as NotifyRuntime["client"], ownCheckout: Effect.succeed(connection), channelFits: () => true }
  await Effect.runPromise(notify(runtime, "pool-listen", payload))
  return sent
}

/** The hook points hit while a waiter is handed the only slot of a gate built by `factory`. */
const handOverHooks = async (factory: GateFactory): Promise<ReadonlyArray<string>> => {
  const hits: Array<string> = []
  const program = Effect.gen(function*() {
    const gate = factory(1)
    const holder = yield* Scope.make()
    yield* Scope.provide(gate.take, holder)
    const waiter = yield* Effect.forkChild(Effect.scoped(gate.take))
    yield* Effect.yieldNow
    yield* Scope.close(holder, Exit.void)
    yield* Fiber.join(waiter)
  })
  await Effect.runPromise(Effect.provideService(program, HookPoints, { at: (name) => Effect.sync(() => { hits.push(name) }) }))
  return hits
}

/** The order a checkout piece gives its two slots back (fake admission and gate that record it). */
const releaseOrder = async (checkout: PoolPieces["checkout"]): Promise<ReadonlyArray<string>> => {
  const order: Array<string> = []
  const slot = (name: string) => Effect.addFinalizer(() => Effect.sync(() => { order.push(name) }))
  await Effect.runPromise(Effect.scoped(checkout({ take: slot("admission"), held: () => 0 }, { take: slot("gate") })))
  return order
}

describe("each allowed pool variant differs from the shipped pool", () => {
  it("no-handover-hook: a waiter handed a slot passes no hook point", async () => {
    expect(await handOverHooks(fifoGate)).toEqual([POOL_HANDED_OVER_HOOK])
    expect(await handOverHooks(gateWithoutHandOverHook)).toEqual([])
  })

  it("notify-statement and notify-own-transaction: the statements notify sends", async () => {
    expect(await statementsOfNotify(defaultPoolPieces.notify, "it's")).toEqual(["SELECT pg_notify($1, $2)"])
    expect(await statementsOfNotify(notifyByStatement, "it's")).toEqual([`NOTIFY "pool-listen", 'it''s'`])
    expect(await statementsOfNotify(notifyInOwnTransaction, "it's")).toEqual(["BEGIN", "SELECT pg_notify($1, $2)", "COMMIT"])
    expect(notifyStatement("a\"b", "x")).toBe(`NOTIFY "a""b", 'x'`)
  })

  it("admission-released-first: the admission slot comes back before the gate slot", async () => {
    expect(await releaseOrder(defaultPoolPieces.checkout)).toEqual(["gate", "admission"])
    expect(await releaseOrder(admissionReleasedFirst)).toEqual(["admission", "gate"])
  })

  it("channel-checked-after-checkout: a long channel takes a checkout, then fails with nothing sent", async () => {
    const log: Array<string> = []
    const client = {
      reserve: Effect.sync(() => { log.push("reserve") }),
      listen: () => Effect.sync(() => { log.push("listen") }),
      notify: () => Effect.sync(() => { log.push("notify") })
    } as unknown as BoundedPoolClient
    const checked = channelCheckedAfterCheckout(client)
    const exit = await Effect.runPromiseExit(checked.notify("é".repeat(32), "payload"))
    expect(Exit.isFailure(exit)).toBe(true)
    await Effect.runPromise(checked.notify("pool-listen", "payload"))
    expect(log).toEqual(["reserve", "notify"])
  })

  it("fractional-max-connections-floored: maxConnections 2.5 becomes 2, whole numbers stay", () => {
    expect(flooredMaxConnections({ maxConnections: 2.5 }).maxConnections).toBe(2)
    expect(flooredMaxConnections({ maxConnections: 3 }).maxConnections).toBe(3)
    expect(flooredMaxConnections<{ readonly maxConnections?: number }>({}).maxConnections).toBeUndefined()
  })
})
