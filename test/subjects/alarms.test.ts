/**
 * Direct tests of the shipped alarms implementation on SQLite under a virtual clock and seeded
 * randomness: the default backoff timeline, parking with one report, the replay drop, migration of
 * rows of the older layout (more in alarms-migration.test.ts), handle guards (forked fibers, escaped handles, detached work), reconcile of the
 * platform alarm after every transaction, and the dispatch edge cases of reference/alarms.md.
 */
import { Cause, Deferred, Effect, Exit, Fiber, Schema } from "effect"
import { describe, expect, it } from "vitest"
import type { AlarmTransaction } from "../../subjects/alarms/api.ts"
import {
  AlarmReporter,
  InvalidAlarmPayloadError,
  InvalidAlarmRefError,
  InvalidProcessDueAlarmsOptionsError,
  InvalidScheduleConfigurationError,
  ScheduleConfiguration,
  StorageOperationError,
  StoredAlarmDecodeError
} from "../../subjects/alarms/api.ts"
import { defineAlarms, shippedAlarms } from "../../subjects/alarms/index.ts"
import { ATTEMPTS_TABLE, OLD_RUN_AT_INDEX, SCHEDULED_TABLE, storageIdOf, WAKE_INDEX } from "../../subjects/alarms/schema.ts"
import { writeLegacyLayout } from "../../properties/alarms/legacyLayout.ts"
import { beforeAttemptsLayout } from "./alarmsLegacy.ts"
import type { AlarmsFixture } from "./alarmsSupport.ts"
import { at, platformAlarmRel, rel, runAlarms, setTime, smallestWakeRel, T0 } from "./alarmsSupport.ts"

const ref = (id: string, tag = "job") => ({ tag, id })
const failing = () => Effect.fail("handler failed")
const errorOf = <A, E>(exit: Exit.Exit<A, E>): unknown => {
  if (Exit.isSuccess(exit)) return undefined
  const found = Exit.findErrorOption(exit)
  return found._tag === "Some" ? found.value : "defect"
}
const revisionOf = (f: AlarmsFixture, id: string) =>
  Effect.map(
    f.sql<{ readonly revision: string }>`SELECT revision FROM ${f.sql.literal(ATTEMPTS_TABLE)} WHERE storage_id = ${storageIdOf(ref(id))}`,
    (rows) => rows[0]?.revision
  )

describe("alarms: backoff and parking", () => {
  it("follows the default timeline: +1..+64 s, parks on call 8 with one report, then +1 h with no new report", async () => {
    const observed = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: { n: 1 }, runAt: at(0) })
        const steps: Array<{ delayMs: number; attempts: number; parked: boolean; newReports: number; scheduledAt: number }> = []
        let nowMs = 0
        for (let call = 1; call <= 10; call++) {
          const before = f.reports.length
          const result = yield* f.alarms.processDueAlarms(failing)
          expect(result.failed).toHaveLength(1)
          const status = (yield* f.alarms.getAlarmStatus(ref("a")))!
          const retryAt = rel(status.retryAt)!
          // The platform alarm follows the effective wake after every pass.
          expect(yield* platformAlarmRel(f)).toBe(retryAt)
          steps.push({
            delayMs: retryAt - nowMs,
            attempts: status.attempts,
            parked: status.parked,
            newReports: f.reports.length - before,
            scheduledAt: rel(result.failed[0]!.event!.scheduledAt)!
          })
          expect(result.parked).toHaveLength(f.reports.length - before)
          nowMs = retryAt
          yield* setTime(nowMs)
        }
        return steps
      }))
    expect(observed.map((s) => s.delayMs)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 3_600_000, 3_600_000, 3_600_000
    ])
    expect(observed.map((s) => s.attempts)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 8, 8])
    expect(observed.map((s) => s.parked)).toEqual([false, false, false, false, false, false, false, true, true, true])
    expect(observed.map((s) => s.newReports)).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 0, 0])
    // scheduledAt (run_at) is stable across retries.
    expect(new Set(observed.map((s) => s.scheduledAt))).toEqual(new Set([0]))
  })

  it("reports a park once, content-free, with retryAt = max(run_at, retry_at) while status shows the raw retry_at", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: "secret", runAt: at(0) })
        // A far-future self-rearm with budget 1 parks: retry_at = now + 1 h, run_at = 10 h.
        const pass = yield* f.alarms.processDueAlarms(() =>
          f.alarms.scheduleAlarm({ ...ref("a"), payload: "secret", runAt: at(36_000_000) })
        )
        const status = yield* f.alarms.getAlarmStatus(ref("a"))
        return { pass, reports: [...f.reports], status, platform: yield* platformAlarmRel(f) }
      }), { configuration: { unchangedAttemptBudget: 1 } })
    expect(result.pass.handled).toHaveLength(1)
    expect(result.pass.parked).toHaveLength(1)
    expect(result.reports).toHaveLength(1)
    const report = result.reports[0]!
    expect(Object.keys(report).sort()).toEqual(["_tag", "attempts", "retryAt"])
    expect(report.attempts).toBe(1)
    expect(rel(report.retryAt)).toBe(36_000_000)
    expect(result.status?.parked).toBe(true)
    expect(rel(result.status?.retryAt)).toBe(3_600_000)
    expect(result.platform).toBe(36_000_000)
  })

  it("swallows a failing reporter: the park is committed and still listed in the result", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        const pass = yield* f.alarms.processDueAlarms(failing).pipe(
          Effect.provideService(AlarmReporter, () => Effect.fail("reporter down") as never)
        )
        return { pass, status: yield* f.alarms.getAlarmStatus(ref("a")) }
      }), { configuration: { unchangedAttemptBudget: 1 } })
    expect(result.pass.parked).toHaveLength(1)
    expect(result.status?.parked).toBe(true)
  })

  it("never reports a park that was cancelled later in the same transaction", async () => {
    const reports = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        yield* f.alarms.processDueAlarms(() =>
          f.alarms.transaction((tx) =>
            tx.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) }).pipe(Effect.andThen(tx.cancelAlarm(ref("a"))))
          )
        )
        return f.reports.length
      }), { configuration: { unchangedAttemptBudget: 1 } })
    expect(reports).toBe(0)
  })

  it("charges a pass once however many schedules it makes; a new id inherits the source's attempts", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        yield* f.alarms.processDueAlarms(failing) // a: attempts 1
        yield* setTime(1_000)
        yield* f.alarms.processDueAlarms(() =>
          Effect.gen(function*() {
            yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(5_000) })
            yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 2, runAt: at(6_000) })
            yield* f.alarms.scheduleAlarm({ ...ref("b"), payload: 3, runAt: at(7_000) })
          })
        )
        return {
          a: yield* f.alarms.getAlarmStatus(ref("a")),
          b: yield* f.alarms.getAlarmStatus(ref("b"))
        }
      }))
    expect(result.a?.attempts).toBe(2)
    expect(result.b?.attempts).toBe(2)
    expect(rel(result.a?.runAt)).toBe(6_000)
  })
})

describe("alarms: progress cursors", () => {
  it("drops external replays (<= stored cursor) entirely and resets on a strictly greater cursor", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0), progress: 5 })
        yield* f.alarms.processDueAlarms(failing)
        yield* setTime(1_000)
        yield* f.alarms.processDueAlarms(failing)
        const before = { status: yield* f.alarms.getAlarmStatus(ref("a")), revision: yield* revisionOf(f, "a") }
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 9, runAt: at(50_000), progress: 5 })
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 9, runAt: at(50_000), progress: 3 })
        yield* f.alarms.scheduleAlarmEarlier({ ...ref("a"), payload: 9, runAt: at(50_000), progress: 4 })
        const afterReplay = { status: yield* f.alarms.getAlarmStatus(ref("a")), revision: yield* revisionOf(f, "a") }
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 9, runAt: at(50_000), progress: 6 })
        const afterForward = yield* f.alarms.getAlarmStatus(ref("a"))
        return { before, afterReplay, afterForward }
      }))
    expect(result.before.status?.attempts).toBe(2)
    expect(result.afterReplay).toEqual(result.before)
    expect(result.afterForward?.attempts).toBe(0)
    expect(result.afterForward?.retryAt).toBeUndefined()
    expect(rel(result.afterForward?.runAt)).toBe(50_000)
  })

  it("resets on external enrollment without a cursor, and charges a non-forward cursor inside a pass", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0), progress: 5 })
        yield* f.alarms.processDueAlarms(failing)
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        const afterEnrollment = yield* f.alarms.getAlarmStatus(ref("a"))
        yield* f.alarms.processDueAlarms(() =>
          f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0), progress: 2 })
        )
        const afterSelfRearm = yield* f.alarms.getAlarmStatus(ref("a"))
        return { afterEnrollment, afterSelfRearm }
      }))
    expect(result.afterEnrollment?.attempts).toBe(0)
    expect(result.afterSelfRearm?.attempts).toBe(1)
  })

  it("forgets the cursor on cancel and on one-shot acknowledgement, so an old notice re-enrolls", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0), progress: 5 })
        yield* f.alarms.cancelAlarm(ref("a"))
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0), progress: 1 })
        const afterCancel = yield* f.alarms.getAlarmStatus(ref("a"))
        yield* f.alarms.processDueAlarms(() => Effect.void)
        const afterAck = yield* f.alarms.getAlarmStatus(ref("a"))
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0), progress: 1 })
        return { afterCancel, afterAck, reEnrolled: yield* f.alarms.getAlarmStatus(ref("a")) }
      }))
    expect(result.afterCancel).toBeDefined()
    expect(result.afterAck).toBeUndefined()
    expect(result.reEnrolled).toBeDefined()
  })
})

describe("alarms: migration from the older layout before attempt tracking (R3)", () => {
  it("backfills wake_at, swaps the index, and old rows keep firing; a rebuild is idempotent", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        const indexesBefore = yield* f.sql<{ readonly name: string }>`SELECT name FROM sqlite_master WHERE type = 'index'`
        // Building the scheduler touched nothing; its first read migrates (outside a transaction, as upstream).
        const statusBefore = yield* f.alarms.getAlarmStatus(ref("repeat"))
        const indexes = yield* f.sql<{ readonly name: string }>`SELECT name FROM sqlite_master WHERE type = 'index'`
        const rows = yield* f.sql<{ readonly storage_id: string; readonly wake_at: number; readonly run_at: number }>`
          SELECT storage_id, run_at, wake_at FROM ${f.sql.literal(SCHEDULED_TABLE)} ORDER BY storage_id`
        yield* setTime(1_000)
        const pass = yield* f.alarms.processDueAlarms(() => Effect.void)
        const afterPass = {
          oneShot: yield* f.alarms.getAlarmStatus(ref("once")),
          repeat: yield* f.alarms.getAlarmStatus(ref("repeat")),
          future: yield* f.alarms.getAlarmStatus(ref("future"))
        }
        const rebuilt = yield* f.restart
        const pass2 = yield* rebuilt.processDueAlarms(() => Effect.void)
        return {
          indexesBefore: indexesBefore.map((i) => i.name),
          indexes: indexes.map((i) => i.name),
          rows,
          statusBefore,
          handled: pass.handled.map((e) => [e.id, rel(e.scheduledAt), e.payload]),
          badPayload: pass.failed.map((failure) => [failure.id, failure.event === undefined, Cause.squash(failure.cause as Cause.Cause<unknown>) instanceof StoredAlarmDecodeError]),
          afterPass,
          pass2: pass2.handled.length,
          platform: yield* platformAlarmRel(f),
          smallest: yield* smallestWakeRel(f)
        }
      }), {
      // The harness writes upstream's older layout itself, never through the implementation.
      beforeMake: (sql) => writeLegacyLayout(sql, "sqlite", beforeAttemptsLayout(T0))
    })
    expect(result.indexesBefore).toContain(OLD_RUN_AT_INDEX)
    expect(result.indexesBefore).not.toContain(WAKE_INDEX)
    expect(result.indexes).toContain(WAKE_INDEX)
    expect(result.indexes).not.toContain(OLD_RUN_AT_INDEX)
    for (const row of result.rows) expect(Number(row.wake_at)).toBe(Number(row.run_at))
    expect(result.statusBefore).toMatchObject({ attempts: 0, parked: false, retryAt: undefined })
    expect(result.handled).toEqual([["once", 0, { k: 1 }], ["repeat", 500, [1, 2]]])
    expect(result.badPayload).toEqual([["broken", true, true]])
    expect(result.afterPass.oneShot).toBeUndefined()
    expect(rel(result.afterPass.repeat?.runAt)).toBe(61_000)
    expect(result.afterPass.future).toBeDefined()
    expect(result.pass2).toBe(0)
    expect(result.platform).toBe(result.smallest)
    expect(result.platform).toBe(2_000) // the broken row retries at +1 s
  })
})

describe("alarms: transaction handles (R4, R5, R9)", () => {
  it("rejects a mutation from a fiber forked inside the closure, and from an escaped handle", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        let escaped: AlarmTransaction | undefined
        const forkedExit = yield* f.alarms.transaction((tx) =>
          Effect.gen(function*() {
            escaped = tx
            yield* tx.scheduleAlarm({ ...ref("owned"), payload: 1, runAt: at(5_000) })
            const fiber = yield* Effect.forkChild(tx.scheduleAlarm({ ...ref("forked"), payload: 1, runAt: at(1_000) }))
            return yield* Fiber.await(fiber)
          })
        )
        const escapedExit = yield* Effect.exit(escaped!.cancelAlarm(ref("owned")))
        return {
          forked: errorOf(forkedExit),
          escaped: errorOf(escapedExit),
          owned: yield* f.alarms.getAlarmStatus(ref("owned")),
          forkedRow: yield* f.alarms.getAlarmStatus(ref("forked")),
          platform: yield* platformAlarmRel(f)
        }
      }))
    expect(result.forked).toBeInstanceOf(StorageOperationError)
    expect(result.escaped).toBeInstanceOf(StorageOperationError)
    expect(result.owned).toBeDefined()
    expect(result.forkedRow).toBeUndefined()
    expect(result.platform).toBe(5_000)
  })

  it("rejects a schedule from a fiber a handler forked, once the pass has ended", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        const gate = yield* Deferred.make<void>()
        const outcome = yield* Deferred.make<Exit.Exit<void, unknown>>()
        yield* f.alarms.processDueAlarms(() =>
          Effect.forkDetach(
            Deferred.await(gate).pipe(
              Effect.andThen(Effect.exit(f.alarms.scheduleAlarm({ ...ref("late"), payload: 1, runAt: at(1_000) }))),
              Effect.flatMap((exit) => Deferred.succeed(outcome, exit))
            )
          )
        )
        yield* Deferred.succeed(gate, undefined)
        const exit = yield* Deferred.await(outcome)
        return { error: errorOf(exit), late: yield* f.alarms.getAlarmStatus(ref("late")) }
      }))
    expect(result.error).toBeInstanceOf(StorageOperationError)
    expect(String((result.error as StorageOperationError).message)).toMatch(/detached work after their pass ends/)
    expect(result.late).toBeUndefined()
  })

  it("rolls back everything when the closure fails or the platform alarm cannot be set", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("keep"), payload: 1, runAt: at(9_000) })
        const closureExit = yield* Effect.exit(
          f.alarms.transaction((tx) =>
            tx.scheduleAlarm({ ...ref("x"), payload: 1, runAt: at(1_000) }).pipe(Effect.andThen(Effect.fail("nope" as const)))
          )
        )
        f.failNextPlatformAlarmSet()
        const reconcileExit = yield* Effect.exit(f.alarms.scheduleAlarm({ ...ref("y"), payload: 1, runAt: at(1_000) }))
        return {
          closure: errorOf(closureExit),
          reconcile: errorOf(reconcileExit),
          x: yield* f.alarms.getAlarmStatus(ref("x")),
          y: yield* f.alarms.getAlarmStatus(ref("y")),
          platform: yield* platformAlarmRel(f)
        }
      }))
    expect(result.closure).toBe("nope")
    expect(result.reconcile).toBeInstanceOf(StorageOperationError)
    expect(result.x).toBeUndefined()
    expect(result.y).toBeUndefined()
    expect(result.platform).toBe(9_000)
  })

  it("keeps the platform alarm equal to the smallest wake after every transaction", async () => {
    const trace = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        const seen: Array<[number | null, number | null]> = []
        const check = Effect.gen(function*() {
          seen.push([yield* platformAlarmRel(f), yield* smallestWakeRel(f)])
        })
        const ops: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
          f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(5_000) }),
          f.alarms.scheduleAlarm({ ...ref("b"), payload: 1, runAt: at(3_000) }),
          f.alarms.scheduleAlarmEarlier({ ...ref("a"), payload: 2, runAt: at(1_000) }),
          f.alarms.scheduleAlarmEarlier({ ...ref("b"), payload: 2, runAt: at(8_000) }),
          f.alarms.cancelAlarm(ref("a")),
          f.alarms.transaction((tx) =>
            Effect.all([
              tx.scheduleAlarm({ ...ref("c"), payload: 1, runAt: at(2_000) }),
              tx.cancelAlarm(ref("b"))
            ])
          ),
          setTime(2_000).pipe(Effect.andThen(f.alarms.processDueAlarms(failing))),
          f.alarms.cancelAlarm(ref("c")),
          f.alarms.cancelAlarm(ref("missing"))
        ]
        for (const op of ops) {
          yield* op
          yield* check
        }
        return seen
      }))
    for (const [platform, smallest] of trace) expect(platform).toBe(smallest)
    expect(trace.map(([platform]) => platform)).toEqual([5_000, 3_000, 1_000, 1_000, 3_000, 2_000, 3_000, null, null])
  })
})

describe("alarms: dispatch (R20-R26)", () => {
  it("keeps an identical self-rearm (revision-conditional acknowledgement) and lists the event as handled", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: { v: 1 }, runAt: at(0) })
        const pass = yield* f.alarms.processDueAlarms(() =>
          f.alarms.scheduleAlarm({ ...ref("a"), payload: { v: 1 }, runAt: at(0) })
        )
        return { handled: pass.handled.length, status: yield* f.alarms.getAlarmStatus(ref("a")) }
      }))
    expect(result.handled).toBe(1)
    expect(result.status?.attempts).toBe(1)
  })

  it("advances a repeat by max(floor, every) after success with a fresh budget; never replays missed runs", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("r"), payload: 1, runAt: at(0), repeatEvery: "2 minutes" })
        yield* f.alarms.processDueAlarms(failing)
        yield* setTime(600_000)
        const pass = yield* f.alarms.processDueAlarms(() => Effect.void)
        return { handled: pass.handled.length, status: yield* f.alarms.getAlarmStatus(ref("r")) }
      }))
    expect(result.handled).toBe(1)
    expect(result.status).toMatchObject({ attempts: 0, parked: false, retryAt: undefined })
    expect(rel(result.status?.runAt)).toBe(600_000 + 120_000)
  })

  it("skip-and-advance-repeat deletes a one-shot; skips rows cancelled earlier in the batch", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        yield* f.alarms.scheduleAlarm({ ...ref("b"), payload: 1, runAt: at(1) })
        yield* setTime(10)
        const seen: Array<string> = []
        const pass = yield* f.alarms.processDueAlarms(
          (event) =>
            Effect.sync(() => seen.push(event.id)).pipe(
              Effect.andThen(f.alarms.cancelAlarm(ref("b"))),
              Effect.andThen(Effect.fail("x"))
            ),
          { onFailure: () => Effect.succeed("skip-and-advance-repeat" as const) }
        )
        return { seen, failed: pass.failed.length, a: yield* f.alarms.getAlarmStatus(ref("a")), platform: yield* platformAlarmRel(f) }
      }))
    expect(result.seen).toEqual(["a"])
    expect(result.failed).toBe(1)
    expect(result.a).toBeUndefined()
    expect(result.platform).toBeNull()
  })

  it("a failing onFailure still reschedules the row, then fails the call and aborts the batch", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        yield* f.alarms.scheduleAlarm({ ...ref("b"), payload: 1, runAt: at(1) })
        yield* setTime(10)
        const exit = yield* Effect.exit(f.alarms.processDueAlarms(failing, { onFailure: () => Effect.fail("broken policy") }))
        return {
          error: errorOf(exit),
          a: yield* f.alarms.getAlarmStatus(ref("a")),
          b: yield* f.alarms.getAlarmStatus(ref("b"))
        }
      }))
    expect(result.error).toBe("broken policy")
    expect(result.a?.attempts).toBe(1)
    expect(rel(result.a?.retryAt)).toBe(1_010)
    expect(result.b?.attempts).toBe(0)
  })

  it("uses the base delay for an invalid action delay, then fails the call with InvalidProcessDueAlarmsOptionsError", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        const exit = yield* Effect.exit(
          f.alarms.processDueAlarms(failing, {
            retryFailedAfter: "5 seconds",
            onFailure: () => Effect.succeed({ mode: "retry" as const, retryFailedAfter: -1 })
          })
        )
        return { error: errorOf(exit), a: yield* f.alarms.getAlarmStatus(ref("a")) }
      }))
    expect(result.error).toBeInstanceOf(InvalidProcessDueAlarmsOptionsError)
    expect(rel(result.a?.retryAt)).toBe(5_000)
  })

  it("leaves rows beyond the limit due, with the platform alarm at or before now", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        for (let i = 0; i < 5; i++) yield* f.alarms.scheduleAlarm({ ...ref(`r${i}`), payload: i, runAt: at(i) })
        yield* setTime(100)
        const pass = yield* f.alarms.processDueAlarms(() => Effect.void, { limit: 2 })
        return { handled: pass.handled.map((e) => e.id), platform: yield* platformAlarmRel(f) }
      }))
    expect(result.handled).toEqual(["r0", "r1"])
    expect(result.platform).toBe(2)
  })
})

describe("alarms: validation happens before anything is written", () => {
  it("rejects bad configuration, refs, repeats, payloads, cursors and options with their tagged errors", async () => {
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        const attempt = <A, E>(effect: Effect.Effect<A, E>) => Effect.map(Effect.exit(effect), errorOf)
        const errors = {
          configuration: yield* attempt(
            f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) }).pipe(
              Effect.provideService(ScheduleConfiguration, { parkedRetryDelay: "30 minutes" })
            )
          ),
          ref: yield* attempt(f.alarms.scheduleAlarm({ tag: "", id: "a", payload: 1, runAt: at(0) })),
          repeat: yield* attempt(f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0), repeatEvery: "59 seconds" })),
          payload: yield* attempt(f.alarms.scheduleAlarm({ ...ref("a"), payload: { x: Number.NaN }, runAt: at(0) })),
          progress: yield* attempt(f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0), progress: -1 })),
          limit: yield* attempt(f.alarms.processDueAlarms(() => Effect.void, { limit: 0 })),
          retryFailedAfter: yield* attempt(f.alarms.processDueAlarms(() => Effect.void, { retryFailedAfter: "Infinity" })),
          cancelRef: yield* attempt(f.alarms.cancelAlarm({ tag: "job", id: "" }))
        }
        const rows = yield* f.sql`SELECT storage_id FROM ${f.sql.literal(SCHEDULED_TABLE)}`
        return { errors, rows: rows.length, platform: yield* platformAlarmRel(f) }
      }))
    expect(result.errors.configuration).toBeInstanceOf(InvalidScheduleConfigurationError)
    expect(result.errors.ref).toBeInstanceOf(InvalidAlarmRefError)
    expect(result.errors.repeat?.constructor.name).toBe("InvalidRepeatEveryError")
    expect(result.errors.payload).toBeInstanceOf(InvalidAlarmPayloadError)
    expect(result.errors.progress).toBeInstanceOf(InvalidAlarmRefError)
    expect(result.errors.limit).toBeInstanceOf(InvalidProcessDueAlarmsOptionsError)
    expect(result.errors.retryFailedAfter).toBeInstanceOf(InvalidProcessDueAlarmsOptionsError)
    expect(result.errors.cancelRef).toBeInstanceOf(InvalidAlarmRefError)
    expect((result.errors.configuration as Error).message).toMatch(/parkedRetryDelay/)
    expect(result.rows).toBe(0)
    expect(result.platform).toBeNull()
  })
})

describe("alarms: determinism", () => {
  it("draws the same revisions for the same seed and different ones for another", async () => {
    const revisions = (seed: string) =>
      runAlarms(shippedAlarms, (f) =>
        Effect.gen(function*() {
          yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
          yield* f.alarms.scheduleAlarm({ ...ref("b"), payload: 1, runAt: at(0) })
          return [yield* revisionOf(f, "a"), yield* revisionOf(f, "b")]
        }), { seed })
    const first = await revisions("s1")
    expect(await revisions("s1")).toEqual(first)
    expect(await revisions("s2")).not.toEqual(first)
    expect(first[0]).toMatch(/^[0-9a-f]{32}$/)
  })
})

describe("alarms: typed definitions (R29)", () => {
  it("rejects unknown tags and bad payloads when scheduling, and fails undecodable stored rows as handler failures", async () => {
    const Alarms = defineAlarms({ email: { payload: Schema.Struct({ to: Schema.String }) } })
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        const typed = Alarms.make(f.alarms)
        const unknownTag = errorOf(
          yield* Effect.exit(typed.scheduleAlarm({ tag: "sms" as never, id: "1", payload: { to: "x" }, runAt: at(0) }))
        )
        const badPayload = errorOf(
          yield* Effect.exit(typed.scheduleAlarm({ tag: "email", id: "1", payload: { to: 5 } as never, runAt: at(0) }))
        )
        yield* typed.scheduleAlarm({ tag: "email", id: "ok", payload: { to: "a@b" }, runAt: at(0) })
        yield* f.alarms.scheduleAlarm({ tag: "email", id: "bad", payload: { to: 7 }, runAt: at(0) })
        yield* f.alarms.scheduleAlarm({ tag: "sms", id: "stray", payload: {}, runAt: at(0) })
        const sent: Array<string> = []
        const pass = yield* typed.processDueAlarms(
          Alarms.handlers({ email: (event) => Effect.sync(() => sent.push(event.payload.to)) })
        )
        return {
          unknownTag,
          badPayload,
          sent,
          failed: pass.failed.map((failure) => [failure.id, Cause.squash(failure.cause as Cause.Cause<unknown>) instanceof StoredAlarmDecodeError])
        }
      }))
    expect(result.unknownTag).toBeInstanceOf(InvalidAlarmRefError)
    expect(result.badPayload).toBeInstanceOf(InvalidAlarmPayloadError)
    expect(result.sent).toEqual(["a@b"])
    expect(result.failed.sort()).toEqual([["bad", true], ["stray", true]])
  })

  it("reads the status of an undeclared tag like upstream: no tag check on reads", async () => {
    const Alarms = defineAlarms({ email: { payload: Schema.Struct({ to: Schema.String }) } })
    const result = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ tag: "sms", id: "stray", payload: {}, runAt: at(0) })
        const typed = Alarms.make(f.alarms)
        const stray = yield* typed.getAlarmStatus({ tag: "sms" as never, id: "stray" })
        const absent = yield* typed.getAlarmStatus({ tag: "sms" as never, id: "none" })
        return { stray: stray?.attempts, absent }
      }))
    expect(result).toEqual({ stray: 0, absent: undefined })
  })
})
