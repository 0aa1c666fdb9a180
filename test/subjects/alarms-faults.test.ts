/**
 * Hook points of the shipped alarms implementation: every documented hook is reachable, a crash at a
 * hook inside a transaction rolls the whole transaction back (a rebuilt scheduler sees the old state),
 * a crash between commit and report loses the report but never duplicates it, and a crash inside a
 * handler's nested transaction is a process crash, not a handler failure.
 */
import { Cause, Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { makeScriptedHooks, withScriptedHooks } from "../../harness/HookPoints.ts"
import type { ScriptedHooks } from "../../harness/HookPoints.ts"
import { ALARM_HOOK_POINTS, shippedAlarms } from "../../subjects/alarms/index.ts"
import { SCHEDULED_TABLE } from "../../subjects/alarms/schema.ts"
import type { AlarmsFixture } from "./alarmsSupport.ts"
import { at, platformAlarmRel, rel, runAlarms, setTime } from "./alarmsSupport.ts"

const ref = (id: string) => ({ tag: "job", id })
const isInjectedCrash = <A, E>(exit: Exit.Exit<A, E>): boolean =>
  Exit.isFailure(exit) &&
  exit.cause.reasons.some((reason) =>
    Cause.isDieReason(reason) && (reason.defect as { _tag?: unknown } | null)?._tag === "InjectedCrash"
  )

/** Runs `body` with a scripted hook controller installed for everything it does. */
const withHooks = <A>(body: (f: AlarmsFixture, hooks: ScriptedHooks) => Effect.Effect<A, unknown>, budget?: number) =>
  runAlarms(shippedAlarms, (f) =>
    Effect.gen(function*() {
      const hooks = yield* makeScriptedHooks
      return yield* withScriptedHooks(hooks, body(f, hooks))
    }), budget === undefined ? {} : { configuration: { unchangedAttemptBudget: budget } })

describe("alarms: hook points and crashes", () => {
  it("passes every documented hook point during migration, scheduling, cancel and dispatch", async () => {
    const hit = await runAlarms(shippedAlarms, (f) =>
      Effect.gen(function*() {
        const hooks = yield* makeScriptedHooks
        return yield* withScriptedHooks(
          hooks,
          Effect.gen(function*() {
            yield* f.sql.unsafe(`DROP INDEX IF EXISTS idx_scheduled_alarms_wake_at_storage_id`)
            yield* f.restart // migrates again: the marker index was dropped
            yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
            yield* f.alarms.scheduleAlarm({ ...ref("b"), payload: 1, runAt: at(0) })
            yield* f.alarms.processDueAlarms((event) => (event.id === "a" ? Effect.void : Effect.fail("x")))
            yield* f.alarms.cancelAlarm(ref("b"))
            return new Set(hooks.hits().map((h) => h.hook))
          })
        )
      }))
    expect(ALARM_HOOK_POINTS.filter((name) => !hit.has(name))).toEqual([])
  })

  it("rolls back a schedule crashed between statements; a rebuilt scheduler sees the old state", async () => {
    const result = await withHooks((f, hooks) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(5_000) })
        const hitsBefore = hooks.hits().filter((h) => h.hook === "alarms.afterReplaceRow").length
        hooks.crashAt({ hook: "alarms.afterReplaceRow", occurrence: hitsBefore + 1 })
        const exit = yield* Effect.exit(f.alarms.scheduleAlarm({ ...ref("a"), payload: 2, runAt: at(1_000) }))
        hooks.crashAt(null)
        const rebuilt = yield* f.restart
        return {
          crashed: isInjectedCrash(exit),
          status: yield* rebuilt.getAlarmStatus(ref("a")),
          payload: (yield* f.sql<{ readonly payload: string }>`SELECT payload FROM ${f.sql.literal(SCHEDULED_TABLE)}`)[0]?.payload,
          platform: yield* platformAlarmRel(f)
        }
      }))
    expect(result.crashed).toBe(true)
    expect(rel(result.status?.runAt)).toBe(5_000)
    expect(result.payload).toBe("1")
    expect(result.platform).toBe(5_000)
  })

  it("loses, never duplicates, a park report when crashing between commit and report", async () => {
    const result = await withHooks((f, hooks) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        const hitsBefore = hooks.hits().filter((h) => h.hook === "alarms.afterCommitBeforeReport").length
        // The failure reschedule's transaction is the next one to commit: budget 1 parks there.
        hooks.crashAt({ hook: "alarms.afterCommitBeforeReport", occurrence: hitsBefore + 1 })
        const exit = yield* Effect.exit(f.alarms.processDueAlarms(() => Effect.fail("x")))
        hooks.crashAt(null)
        const status = yield* f.alarms.getAlarmStatus(ref("a"))
        yield* setTime(3_600_000)
        const later = yield* f.alarms.processDueAlarms(() => Effect.fail("x"))
        return { crashed: isInjectedCrash(exit), status, reports: f.reports.length, laterParked: later.parked.length }
      }), 1)
    expect(result.crashed).toBe(true)
    expect(result.status?.parked).toBe(true)
    expect(result.reports).toBe(0)
    expect(result.laterParked).toBe(0)
  })

  it("treats a crash inside a handler's own transaction as a process crash, not a handler failure", async () => {
    const result = await withHooks((f, hooks) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(0) })
        const hitsBefore = hooks.hits().filter((h) => h.hook === "alarms.afterWriteAttempts").length
        hooks.crashAt({ hook: "alarms.afterWriteAttempts", occurrence: hitsBefore + 1 })
        const exit = yield* Effect.exit(
          f.alarms.processDueAlarms(() => f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(9_000) }))
        )
        hooks.crashAt(null)
        return { crashed: isInjectedCrash(exit), status: yield* f.alarms.getAlarmStatus(ref("a")) }
      }))
    expect(result.crashed).toBe(true)
    // Neither the self-rearm nor a failure reschedule committed: the row is as scheduled.
    expect(result.status).toMatchObject({ attempts: 0, parked: false, retryAt: undefined })
    expect(rel(result.status?.runAt)).toBe(0)
  })
})
