/**
 * Implementations wrapped around the shipped scheduler, for the storage-fault tests. None of them
 * knows the harness: they differ only in how they treat hook points, errors and interruption.
 * - `withoutHookPoints`: every hook point is a no-op, whatever the caller provides (an upstream
 *   implementation has none);
 * - `catchingEverything`: the handler and `onFailure` are sandboxed, so every error, defect and
 *   self-interruption becomes an ordinary failure (upstream's handler wrapper does the same);
 * - `keepsGoingAfterCrash`: dispatch runs uninterruptibly, so after a crash inside a handler's
 *   transaction it catches the interruption as a handler failure and goes on writing (a bug: a dead
 *   process writes nothing).
 * Not a test file itself.
 */
import { Cause, Effect } from "effect"
import { hooklessOf } from "../support/withoutHookPoints.ts"
import type { AlarmScheduler, AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"

/** The shipped scheduler with every hook point removed. */
export const withoutHookPoints: AlarmsImplementation = hooklessOf(shippedAlarms, "shipped-without-hook-points")

/** The shipped scheduler whose handler and `onFailure` turn every cause into an ordinary failure. */
export const catchingEverything: AlarmsImplementation = {
  name: "shipped-catching-everything",
  make: (deps) =>
    Effect.map(shippedAlarms.make(deps), (scheduler): AlarmScheduler => ({
      ...scheduler,
      processDueAlarms: (handle, options) =>
        scheduler.processDueAlarms(
          (event) => Effect.catchCause(Effect.suspend(() => handle(event)), (cause) => Effect.fail(Cause.squash(cause))),
          options?.onFailure === undefined ? options : {
            ...options,
            onFailure: (failure) =>
              Effect.catchCause(Effect.suspend(() => options.onFailure!(failure)), (cause) => Effect.fail(Cause.squash(cause) as never))
          }
        )
    }))
}

/** The shipped scheduler dispatching uninterruptibly: it keeps going after a crash (caught by the faults property). */
export const keepsGoingAfterCrash: AlarmsImplementation = {
  name: "keeps-going-after-crash",
  make: (deps) =>
    Effect.map(shippedAlarms.make(deps), (scheduler): AlarmScheduler => ({
      ...scheduler,
      processDueAlarms: (handle, options) => Effect.uninterruptible(scheduler.processDueAlarms(handle, options))
    }))
}
