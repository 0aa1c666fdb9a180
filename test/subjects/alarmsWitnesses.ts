/**
 * Witness scenarios, one per known-bad alarms implementation: each returns a description of the
 * misbehaviour, or null when the implementation behaved. The shipped scheduler passes all of them on
 * every adapter; each known-bad variant fails its own. Not a test file itself.
 */
import { Deferred, Effect, Exit } from "effect"
import type { StorageAdapter } from "../../adapters/contract.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { AlarmReporter, type AlarmParked, InvalidRepeatEveryError, ScheduleConfiguration, StorageOperationError } from "../../subjects/alarms/api.ts"
import type { AlarmsFixture, RunAlarmsOptions } from "./alarmsSupport.ts"
import { at, platformAlarmRel, rel, runAlarms, setTime } from "./alarmsSupport.ts"

/** A witness: returns a description of the misbehaviour, or null when the implementation behaved. */
export interface Witness {
  readonly options?: RunAlarmsOptions
  readonly run: (fixture: AlarmsFixture) => Effect.Effect<string | null, unknown>
}

const ref = (id: string) => ({ tag: "job", id })
const schedule = (fixture: AlarmsFixture, id: string, runAtOffsetMs: number, payload: unknown = { n: 1 }) =>
  fixture.alarms.scheduleAlarm({ ...ref(id), payload: payload as never, runAt: at(runAtOffsetMs) })
const failing = () => Effect.fail("handler failed")
const expectEqual = (what: string, actual: unknown, expected: unknown): string | null =>
  JSON.stringify(actual) === JSON.stringify(expected)
    ? null
    : `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`

/** Witness scenarios keyed by known-bad id. */
export const alarmWitnesses: Record<string, Witness> = {
  "h1-content-ack": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 1_000)
        yield* setTime(1_000)
        yield* f.alarms.processDueAlarms(() => schedule(f, "a", 1_000))
        const status = yield* f.alarms.getAlarmStatus(ref("a"))
        return status === undefined ? "an identical self-rearm was deleted by the acknowledgement" : null
      })
  },
  "h2-fixed-retry": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        yield* f.alarms.processDueAlarms(failing)
        const status = yield* f.alarms.getAlarmStatus(ref("a"))
        return expectEqual("retryAt after the first failure", rel(status?.retryAt), 1_000)
      })
  },
  "h2-free-self-rearm": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        yield* f.alarms.processDueAlarms(() => schedule(f, "a", 5_000))
        const status = yield* f.alarms.getAlarmStatus(ref("a"))
        return expectEqual("attempts after one self-rearm", status?.attempts, 1)
      })
  },
  "h2-any-repeat": {
    run: (f) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(
          f.alarms.scheduleAlarm({ ...ref("a"), payload: null, runAt: at(0), repeatEvery: 1_000 })
        )
        return Exit.isFailure(exit) && Exit.findErrorOption(exit).pipe((o) => o._tag === "Some" && o.value instanceof InvalidRepeatEveryError)
          ? null
          : "a 1 s repeat was accepted below the 60 s floor"
      })
  },
  "h2-retry-rewrites-run-at": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        yield* f.alarms.processDueAlarms(failing)
        const status = yield* f.alarms.getAlarmStatus(ref("a"))
        return expectEqual("runAt after a failure", rel(status?.runAt), 0)
      })
  },
  "h3-onfailure-skips-reschedule": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        const exit = yield* Effect.exit(f.alarms.processDueAlarms(failing, { onFailure: () => Effect.fail("onFailure broke") }))
        const status = yield* f.alarms.getAlarmStatus(ref("a"))
        if (!Exit.isFailure(exit)) return "a failing onFailure did not fail the call"
        return expectEqual("retryAt after a failing onFailure", rel(status?.retryAt), 1_000)
      })
  },
  "h4-detached-after-pass": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        const gate = yield* Deferred.make<void>()
        const outcome = yield* Deferred.make<Exit.Exit<void, unknown>>()
        yield* f.alarms.processDueAlarms(() =>
          Effect.forkDetach(
            Deferred.await(gate).pipe(
              Effect.andThen(Effect.exit(schedule(f, "detached", 10_000))),
              Effect.flatMap((exit) => Deferred.succeed(outcome, exit))
            )
          )
        )
        yield* Deferred.succeed(gate, undefined)
        const exit = yield* Deferred.await(outcome)
        return Exit.isFailure(exit) ? null : "a fiber forked by a handler scheduled after the pass ended"
      })
  },
  "h5-parked-from-budget": {
    options: { configuration: { unchangedAttemptBudget: 2 } },
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        yield* f.alarms.processDueAlarms(failing)
        yield* setTime(1_000)
        yield* f.alarms.processDueAlarms(failing) // attempts 2 = budget: parked
        yield* setTime(1_000 + 3_600_000)
        yield* f.alarms.processDueAlarms(failing).pipe(
          Effect.provideService(ScheduleConfiguration, { unchangedAttemptBudget: 5 })
        )
        const status = yield* f.alarms.getAlarmStatus(ref("a"))
        return expectEqual("parked after raising the budget", status?.parked, true) ??
          expectEqual("reports", f.reports.length, 1)
      })
  },
  "h6-dispatch-by-run-at": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 1_000)
        yield* schedule(f, "b", 1_500)
        yield* setTime(1_000)
        yield* f.alarms.processDueAlarms(failing) // a: wake 2_000, run_at 1_000
        yield* setTime(2_000)
        const result = yield* f.alarms.processDueAlarms(() => Effect.void, { limit: 1 })
        return expectEqual("first dispatched id", result.handled.map((e) => e.id), ["b"])
      })
  },
  "h6-platform-alarm-run-at": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        yield* f.alarms.processDueAlarms(failing)
        return expectEqual("platform alarm", yield* platformAlarmRel(f), 1_000)
      })
  },
  "equal-cursor-reset": {
    run: (f) =>
      Effect.gen(function*() {
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 1, runAt: at(1_000), progress: 5 })
        yield* f.alarms.scheduleAlarm({ ...ref("a"), payload: 2, runAt: at(9_000), progress: 5 })
        const status = yield* f.alarms.getAlarmStatus(ref("a"))
        return expectEqual("runAt after an equal-cursor replay", rel(status?.runAt), 1_000)
      })
  },
  "park-rereported": {
    options: { configuration: { unchangedAttemptBudget: 1 } },
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        yield* f.alarms.processDueAlarms(failing)
        yield* setTime(3_600_000)
        yield* f.alarms.processDueAlarms(failing)
        return expectEqual("reports over two parked failures", f.reports.length, 1)
      })
  },
  "report-before-commit": {
    options: { configuration: { unchangedAttemptBudget: 1 } },
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        yield* f.alarms.processDueAlarms(
          // The self-rearm parks (budget 1), then the transaction rolls back at reconcile.
          () => Effect.sync(() => f.failNextPlatformAlarmSet()).pipe(Effect.andThen(schedule(f, "a", 0))),
          { onFailure: () => Effect.succeed("skip-and-advance-repeat" as const) }
        )
        return expectEqual("reports of a rolled-back park", f.reports.length, 0)
      })
  },
  "cancel-no-reconcile": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 1_000)
        yield* f.alarms.cancelAlarm(ref("a"))
        return expectEqual("platform alarm after cancelling the only alarm", yield* platformAlarmRel(f), null)
      })
  },
  "wake-not-materialised": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        yield* f.alarms.processDueAlarms(failing)
        const again = yield* f.alarms.processDueAlarms(failing)
        return expectEqual("rows dispatched again while backing off", again.failed.length, 0)
      })
  },
  "ack-ignores-external-write": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        // Another request, outside the handler's pass, replaces the row while the handler runs.
        const go = yield* Deferred.make<void>()
        const done = yield* Deferred.make<void>()
        yield* Effect.forkChild(Deferred.await(go).pipe(
          Effect.andThen(schedule(f, "a", 5_000)),
          Effect.andThen(Deferred.succeed(done, undefined))
        ))
        yield* f.alarms.processDueAlarms(() => Deferred.succeed(go, undefined).pipe(Effect.andThen(Deferred.await(done))))
        const status = yield* f.alarms.getAlarmStatus(ref("a"))
        return expectEqual("runAt of the row an external call replaced during the pass", rel(status?.runAt), 5_000)
      })
  },
  "report-without-reread": {
    options: { configuration: { unchangedAttemptBudget: 1 } },
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        // One pass parks two rows in one transaction (budget 1); the first report cancels both, so
        // the second parking no longer exists when its report is due (R27: re-read after commit).
        let cancelled = false
        const reporter = (event: AlarmParked) =>
          Effect.gen(function*() {
            f.reports.push(event)
            if (cancelled) return
            cancelled = true
            yield* f.alarms.cancelAlarm(ref("a"))
            yield* f.alarms.cancelAlarm(ref("b"))
          }).pipe(Effect.orDie)
        yield* f.alarms.processDueAlarms(() =>
          f.alarms.transaction((handle) =>
            handle.scheduleAlarm({ ...ref("a"), payload: null, runAt: at(10_000) }).pipe(
              Effect.andThen(handle.scheduleAlarm({ ...ref("b"), payload: null, runAt: at(10_000) }))
            )
          )
        ).pipe(Effect.provideService(AlarmReporter, reporter))
        return expectEqual("reports of two parkings, the second undone by the first report", f.reports.length, 1)
      })
  },
  "serialization-failure-defect": {
    run: (f) =>
      Effect.gen(function*() {
        f.boundary.arm({ transaction: 1, phase: "commitRefused" })
        const exit = yield* Effect.exit(schedule(f, "a", 1_000))
        f.boundary.arm(undefined)
        const error = Exit.findErrorOption(exit)
        return error._tag === "Some" && error.value instanceof StorageOperationError
          ? null
          : `a refused COMMIT ended as ${Exit.isSuccess(exit) ? "a success" : error._tag === "Some" ? String(error.value) : "a defect"}, not a StorageOperationError`
      })
  },
  "reconcile-swallows-statement-failure": {
    run: (f) =>
      Effect.gen(function*() {
        // Whichever of the transaction's statements fails, the call fails and nothing of it is stored.
        for (let statement = 1; statement <= 12; statement++) {
          const id = `s${statement}`
          f.boundary.arm({ transaction: 1, phase: "statementFails", statement })
          const exit = yield* Effect.exit(schedule(f, id, 1_000))
          f.boundary.arm(undefined)
          const error = Exit.findErrorOption(exit)
          if (!(error._tag === "Some" && error.value instanceof StorageOperationError)) {
            return `with statement ${statement} failed, the schedule ended as ${Exit.isSuccess(exit) ? "a success" : "another failure"}, not a StorageOperationError`
          }
          const stored = yield* f.alarms.getAlarmStatus(ref(id))
          if (stored !== undefined) return `with statement ${statement} failed, the alarm was stored anyway`
        }
        return null
      })
  },
  "spurious-wake-guard": {
    run: (f) =>
      Effect.gen(function*() {
        yield* schedule(f, "a", 0)
        // The platform consumes its alarm when it delivers it, then runs the alarm handler.
        yield* f.platformAlarm.delete
        const delivered = yield* f.alarms.processDueAlarms(() => Effect.void)
        return expectEqual("alarms dispatched by a platform delivery", delivered.handled.length, 1)
      })
  }
}

/**
 * Known-bads without a witness here, each with the reason and where its witness is instead: a witness
 * runs on one SQLite connection.
 */
export const witnessesElsewhere: Record<string, string> = {
  "no-transaction-lock":
    "SQLite has no transaction lock to take: two schedulers on separate Postgres connections show it (test/properties/alarms-race.test.ts)"
}

/** Runs one witness against an implementation (SQLite unless `adapter` is given). */
export const runWitness = (implementation: AlarmsImplementation, witness: Witness, adapter?: StorageAdapter) =>
  runAlarms(implementation, witness.run, adapter === undefined ? witness.options : { ...witness.options, adapter })

