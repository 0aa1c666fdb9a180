/**
 * The shipped alarms scheduler under a refused COMMIT (the storage boundary's `commitRefused` fault: the
 * transaction's statements ran, then the database refused the commit with a serialization failure). No
 * crash and no rebuild: the same scheduler instance goes on, so whatever it keeps in memory is put to
 * the test by its next calls. R4: nothing commits and the call fails with `StorageOperationError`; R6:
 * the platform alarm keeps its value; R27: no park report for a park that did not commit; R22-R24: a
 * refused acknowledgement or failure write aborts the batch (upstream's `yield* transaction(...)`).
 */
import { Cause, Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { StorageFault } from "../../harness/Faults.ts"
import type { BoundedOutcome } from "../../harness/StorageBoundary.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"
import type { AlarmsFixture } from "./alarmsSupport.ts"
import { at, platformAlarmRel, rel, runAlarms, setTime } from "./alarmsSupport.ts"

const ref = (id: string) => ({ tag: "job", id })

/** Runs `operation` through the fixture's storage boundary with `fault` armed. */
const faulted = <A, E>(f: AlarmsFixture, fault: StorageFault, operation: Effect.Effect<A, E>): Effect.Effect<BoundedOutcome<A, E>> =>
  Effect.suspend(() => {
    f.boundary.arm(fault)
    return Effect.ensuring(f.boundary.run(operation), Effect.sync(() => f.boundary.arm(undefined)))
  })

/** The `_tag` of the error a completed operation failed with, or null. */
const errorTagOf = <A, E>(outcome: BoundedOutcome<A, E>): string | null =>
  outcome._tag === "Completed" && outcome.exit._tag === "Failure" ? String((Cause.squash(outcome.exit.cause) as { _tag?: unknown })._tag) : null

const refused: StorageFault = { transaction: 1, phase: "commitRefused" }

describe("alarms when the database refuses a COMMIT", () => {
  it("fails a refused schedule with StorageOperationError, keeps the old row and platform alarm, and the next schedule commits", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(5_000) })
        const outcome = yield* faulted(f, refused, f.alarms.scheduleAlarm({ ...ref("a"), payload: 2, runAt: at(1_000) }))
        const afterRefusal = { status: yield* f.alarms.getAlarmStatus(ref("a")), platform: yield* platformAlarmRel(f) }
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 2, runAt: at(1_000) })
        return { error: errorTagOf(outcome), afterRefusal, platform: yield* platformAlarmRel(f), runAt: rel((yield* f.alarms.getAlarmStatus(ref("a")))?.runAt) }
      }))
    expect(result.error).toBe("StorageOperationError")
    expect(rel(result.afterRefusal.status?.runAt)).toBe(5_000)
    expect(result.afterRefusal.platform).toBe(5_000)
    expect(result.platform).toBe(1_000)
    expect(result.runAt).toBe(1_000)
  })

  it("sends no report for a refused parking failure write, aborts the batch, and parks and reports once on the next pass", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        // Budget 1: the failure reschedule (transaction 1 of the dispatch) parks the alarm.
        const outcome = yield* faulted(f, refused, f.alarms.processDueAlarms(() => Effect.fail("x")))
        const afterRefusal = { status: yield* f.alarms.getAlarmStatus(ref("a")), reports: f.reports.length }
        const next = yield* f.alarms.processDueAlarms(() => Effect.fail("x"))
        yield* setTime(3_600_000)
        const later = yield* f.alarms.processDueAlarms(() => Effect.fail("x"))
        return { error: errorTagOf(outcome), afterRefusal, nextParked: next.parked.length, laterParked: later.parked.length, reports: f.reports.length }
      }), { configuration: { unchangedAttemptBudget: 1 } })
    expect(result.error).toBe("StorageOperationError")
    expect(result.afterRefusal.status).toMatchObject({ attempts: 0, parked: false })
    expect(result.afterRefusal.reports).toBe(0)
    expect(result.nextParked).toBe(1)
    expect(result.laterParked).toBe(0)
    expect(result.reports).toBe(1)
  })

  it("fails a handler whose own write was refused with the storage error, and handles nothing twice", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        let calls = 0
        const handler = () =>
          Effect.suspend(() => {
            calls += 1
            return f.alarms.scheduleAlarm({ ...ref("b"), payload: 1, runAt: at(60_000) })
          })
        const outcome = yield* faulted(f, refused, f.alarms.processDueAlarms(handler))
        const value = outcome._tag === "Completed" && outcome.exit._tag === "Success" ? outcome.exit.value : null
        return {
          calls,
          failed: value?.failed.map((entry) => (Cause.squash(entry.cause as Cause.Cause<unknown>) as { _tag?: unknown })._tag),
          handled: value?.handled.length,
          written: yield* f.alarms.getAlarmStatus(ref("b"))
        }
      }))
    expect(result.calls).toBe(1)
    expect(result.failed).toEqual(["StorageOperationError"])
    expect(result.handled).toBe(0)
    expect(result.written).toBeUndefined()
  })
})
