/**
 * The alarms subject owns the Durable Object's real platform alarm on do-sqlite: alarms scheduled
 * through the shipped scheduler inside the object arm the real alarm slot at the smallest wake
 * (shifted by the adapter's horizon), and a real delivery (`runDurableObjectAlarm`) dispatches the due
 * alarms through the registered `alarms` delivery, which re-arms the slot at the next wake or clears it.
 * Also: the conformance object runs alarms properties bound to a known-bad implementation.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test"
import type { DurableObjectStorage } from "@cloudflare/workers-types"
import { DateTime, Effect } from "effect"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeDoSqlClient, NATIVE_ALARM_HORIZON_MS, nativePlatformAlarm, wipeStorage } from "../../adapters/do-sqlite/adapter.ts"
import { clearAlarmsDeliveries, configureAlarmsDelivery, recentAlarmsDeliveries, registerAlarmsDelivery } from "../../hosts/do-sqlite/alarmsDelivery.ts"
import type { HostedRunRequest } from "../../adapters/contract.ts"
import { VIRTUAL_EPOCH_MS } from "../../harness/VirtualClock.ts"
import type { PropertyRun } from "../../harness/RunResult.ts"
import { type AlarmScheduler, shippedAlarms } from "../../subjects/alarms/index.ts"

const namespace = (env as unknown as { readonly CONFORMANCE: DurableObjectNamespace }).CONFORMANCE
const stubFor = (name: string) => namespace.get(namespace.idFromName(name))

const T0 = VIRTUAL_EPOCH_MS

/** Runs `use` inside the object with the shipped scheduler built over its storage, at virtual time `nowMs`. */
const withScheduler = <A>(
  stub: DurableObjectStub,
  nowMs: number,
  use: (alarms: AlarmScheduler, storage: DurableObjectStorage) => Effect.Effect<A, unknown>
): Promise<A> =>
  runInDurableObject(stub, (_instance, state) => {
    const storage = state.storage as unknown as DurableObjectStorage
    return Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      yield* TestClock.setTime(nowMs)
      const sql = yield* makeDoSqlClient(storage)
      const alarms = yield* shippedAlarms.make({ sql, dialect: "sqlite", platformAlarm: nativePlatformAlarm(storage) })
      return yield* use(alarms, storage)
    })).pipe(Effect.provide(TestClock.layer())))
  })

const rawAlarm = (stub: DurableObjectStub): Promise<number | null> =>
  runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())

const statusRunAtMs = (alarms: AlarmScheduler, tag: string, id: string) =>
  Effect.map(alarms.getAlarmStatus({ tag, id }), (status) =>
    status === undefined ? undefined : { runAtMs: DateTime.toEpochMillis(status.runAt), attempts: status.attempts })

let unregister: () => void = () => undefined

beforeAll(() => {
  unregister = registerAlarmsDelivery()
})

afterAll(() => {
  unregister()
  configureAlarmsDelivery({ handlers: {} })
})

describe("alarms delivery on a real Durable Object platform alarm", () => {
  it("dispatches the due alarms on runDurableObjectAlarm and re-arms the slot at the next wake", async () => {
    const stub = stubFor("alarms-delivery")
    await runInDurableObject(stub, (_instance, state) => Effect.runPromise(wipeStorage(state.storage as unknown as DurableObjectStorage)))
    const handled: Array<string> = []
    const record = (event: { readonly tag: string; readonly id: string }) => Effect.sync(() => handled.push(`${event.tag}/${event.id}`))
    clearAlarmsDeliveries()

    // Scheduled at T0: three due by T0 + 2 s (one of them repeating every minute, one whose tag has no
    // handler), and one at T0 + 10 s.
    await withScheduler(stub, T0, (alarms) =>
      Effect.gen(function*() {
        yield* alarms.scheduleAlarm({ tag: "email", id: "2", payload: { n: 2 }, runAt: DateTime.makeUnsafe(T0 + 2_000) })
        yield* alarms.scheduleAlarm({ tag: "report", id: "r", payload: null, runAt: DateTime.makeUnsafe(T0 + 1_500), repeatEvery: 60_000 })
        yield* alarms.scheduleAlarm({ tag: "email", id: "1", payload: { n: 1 }, runAt: DateTime.makeUnsafe(T0 + 1_000) })
        yield* alarms.scheduleAlarm({ tag: "unhandled", id: "u", payload: null, runAt: DateTime.makeUnsafe(T0 + 1_200) })
        yield* alarms.scheduleAlarm({ tag: "email", id: "3", payload: { n: 3 }, runAt: DateTime.makeUnsafe(T0 + 10_000) })
      }))
    // The real slot holds the smallest wake, shifted into the real future by the horizon.
    expect(await rawAlarm(stub)).toBe(T0 + 1_000 + NATIVE_ALARM_HORIZON_MS)

    configureAlarmsDelivery({ handlers: { email: record, report: record }, virtualNowMs: () => T0 + 2_000 })
    expect(await runDurableObjectAlarm(stub)).toBe(true)

    // Due alarms dispatched by wake time; the unhandled tag failed and backs off (retry floor 1 s).
    expect(handled).toEqual(["email/1", "report/r", "email/2"])
    const delivery = recentAlarmsDeliveries().at(-1)
    expect(delivery?.virtualNowMs).toBe(T0 + 2_000)
    expect(delivery?.result.handled.map((event) => event.id)).toEqual(["1", "r", "2"])
    expect(delivery?.result.failed.map((failure) => `${failure.tag}/${failure.id}`)).toEqual(["unhandled/u"])
    const after = await withScheduler(stub, T0 + 2_000, (alarms) =>
      Effect.all({
        email1: statusRunAtMs(alarms, "email", "1"),
        email2: statusRunAtMs(alarms, "email", "2"),
        email3: statusRunAtMs(alarms, "email", "3"),
        report: statusRunAtMs(alarms, "report", "r"),
        unhandled: Effect.map(alarms.getAlarmStatus({ tag: "unhandled", id: "u" }), (status) =>
          status === undefined ? undefined : { attempts: status.attempts, retryAtMs: status.retryAt === undefined ? null : DateTime.toEpochMillis(status.retryAt) })
      }))
    expect(after.email1).toBeUndefined()
    expect(after.email2).toBeUndefined()
    expect(after.email3).toEqual({ runAtMs: T0 + 10_000, attempts: 0 })
    // The completed repeat advanced to the delivery's time plus its interval (missed occurrences collapse).
    expect(after.report).toEqual({ runAtMs: T0 + 2_000 + 60_000, attempts: 0 })
    expect(after.unhandled?.attempts).toBe(1)
    const retryAtMs = after.unhandled!.retryAtMs!
    expect(retryAtMs).toBeGreaterThan(T0 + 2_000)
    // The scheduler's reconcile re-armed the real slot at the next wake: the failed row's retry.
    const nextWakeMs = Math.min(retryAtMs, T0 + 10_000, after.report!.runAtMs)
    expect(await rawAlarm(stub)).toBe(nextWakeMs + NATIVE_ALARM_HORIZON_MS)

    // Cancel everything but email/3, then deliver at its wake: the slot is cleared afterwards.
    await withScheduler(stub, T0 + 2_000, (alarms) =>
      Effect.gen(function*() {
        yield* alarms.cancelAlarm({ tag: "report", id: "r" })
        yield* alarms.cancelAlarm({ tag: "unhandled", id: "u" })
      }))
    expect(await rawAlarm(stub)).toBe(T0 + 10_000 + NATIVE_ALARM_HORIZON_MS)
    configureAlarmsDelivery({ handlers: { email: record }, virtualNowMs: () => T0 + 10_000 })
    expect(await runDurableObjectAlarm(stub)).toBe(true)
    expect(handled).toEqual(["email/1", "report/r", "email/2", "email/3"])
    expect(await rawAlarm(stub)).toBeNull()
    expect(await runDurableObjectAlarm(stub)).toBe(false)
  })

  it("uses the time workerd reports for a scheduled delivery, else real time minus the horizon", async () => {
    const stub = stubFor("alarms-delivery-clock")
    await runInDurableObject(stub, (_instance, state) => Effect.runPromise(wipeStorage(state.storage as unknown as DurableObjectStorage)))
    configureAlarmsDelivery({ handlers: {} })
    clearAlarmsDeliveries()
    await withScheduler(stub, T0, (alarms) =>
      alarms.scheduleAlarm({ tag: "email", id: "late", payload: null, runAt: DateTime.makeUnsafe(T0 + 5_000) }))
    // runDurableObjectAlarm reports no scheduled time: the delivery's virtual now is today minus 100 years,
    // before every virtual time, so nothing is due and the slot is re-armed unchanged.
    expect(await runDurableObjectAlarm(stub)).toBe(true)
    const delivery = recentAlarmsDeliveries().at(-1)
    expect(delivery?.virtualNowMs).toBeLessThan(T0)
    expect(delivery?.result.handled).toEqual([])
    expect(await rawAlarm(stub)).toBe(T0 + 5_000 + NATIVE_ALARM_HORIZON_MS)
    await runInDurableObject(stub, (_instance, state) => Effect.runPromise(wipeStorage(state.storage as unknown as DurableObjectStorage)))
  })
})

describe("alarms delivery after a real Durable Object eviction", () => {
  it("a reset object (ctx.abort) still delivers the alarms scheduled before it, rebuilding the scheduler from storage", async () => {
    const name = "alarms-delivery-eviction"
    const stub = stubFor(name)
    await runInDurableObject(stub, (_instance, state) => Effect.runPromise(wipeStorage(state.storage as unknown as DurableObjectStorage)))
    await withScheduler(stub, T0, (alarms) =>
      Effect.gen(function*() {
        yield* alarms.scheduleAlarm({ tag: "email", id: "before-eviction", payload: null, runAt: DateTime.makeUnsafe(T0 + 1_000) })
        yield* alarms.scheduleAlarm({ tag: "email", id: "later", payload: null, runAt: DateTime.makeUnsafe(T0 + 50_000) })
      }))
    const evicted = await (stub as unknown as { evictForTest(reason: string): Promise<void> }).evictForTest("eviction before delivery")
      .then(() => "resolved", (error: unknown) => String(error))
    expect(evicted).toMatch(/eviction before delivery/)
    // A stub that saw its object break stays broken; the platform delivers to the new instance.
    const fresh = stubFor(name)
    expect(await rawAlarm(fresh)).toBe(T0 + 1_000 + NATIVE_ALARM_HORIZON_MS)
    const handled: Array<string> = []
    configureAlarmsDelivery({ handlers: { email: (event) => Effect.sync(() => handled.push(event.id)) }, virtualNowMs: () => T0 + 1_000 })
    expect(await runDurableObjectAlarm(fresh)).toBe(true)
    expect(handled).toEqual(["before-eviction"])
    expect(await rawAlarm(fresh)).toBe(T0 + 50_000 + NATIVE_ALARM_HORIZON_MS)
    await runInDurableObject(fresh, (_instance, state) => Effect.runPromise(wipeStorage(state.storage as unknown as DurableObjectStorage)))
  })
})

describe("known-bad alarms implementations in the conformance object", () => {
  it("runs alarms/model bound to a known-bad implementation and catches it", async () => {
    const rpc = stubFor("known-bad-runner") as unknown as { runProperty(request: HostedRunRequest): Promise<PropertyRun> }
    const run = await rpc.runProperty({ propertyId: "alarms/model", implementation: "known-bad/h2-any-repeat", seed: 20_261_129, runs: 60 })
    expect(run.verdict === "error" ? run.error : undefined).toBeUndefined()
    expect(run.verdict).toBe("fail")
    for (const counterexample of run.verdict === "fail" ? run.counterexamples : []) expect(counterexample.divergence.requirementId).toMatch(/^ALM-\d{3}$/)
    const shipped = await rpc.runProperty({ propertyId: "alarms/model", implementation: "effect-sql-alarms", seed: 20_261_129, runs: 5 })
    expect(shipped.verdict).toBe("pass")
  })
})
