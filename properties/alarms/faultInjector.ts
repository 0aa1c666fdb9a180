/**
 * Maps the model's transaction faults (`{transaction: n, phase}`: the n-th storage transaction of one
 * step) onto an implementation, through its hook points and its platform alarm.
 *
 * The implementation marks the start of every storage transaction with `alarms.transaction.begin`
 * and the gap between commit and park reports with `alarms.afterCommitBeforeReport`. The injector
 * counts transaction starts within the current step and:
 * - `inside`: crashes (an `InjectedCrash` defect) at the start of transaction n, so nothing of it commits;
 * - `afterCommit`: crashes at transaction n's after-commit hook, so it committed but its reports are lost;
 * - `setAlarmFails`: fails the platform alarm write (a `SqlError`) made during transaction n.
 * An implementation without these hook points cannot be crashed this way (its fault steps diverge).
 */
import { Effect } from "effect"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import type { PlatformAlarm } from "../../adapters/contract.ts"
import type { HookPointsService } from "../../harness/HookPoints.ts"
import { InjectedCrash } from "../../harness/errors.ts"
import type { TransactionFault } from "../../models/alarms/index.ts"

/** Hook point at the start of every storage transaction of the alarms implementation. */
export const TRANSACTION_BEGIN_HOOK = "alarms.transaction.begin"
/** Hook point after a commit, before the park reports. */
export const AFTER_COMMIT_HOOK = "alarms.afterCommitBeforeReport"

/** The crash the injector performed in the current step. */
export interface InjectedFault {
  readonly transaction: number
  readonly phase: "inside" | "afterCommit"
}

/** A per-run fault injector: arm it before each step. */
export interface FaultInjector {
  /** Hook points service to provide to the implementation. */
  readonly hooks: HookPointsService
  /** The database's platform alarm, failing when a `setAlarmFails` fault is due. */
  readonly platformAlarm: PlatformAlarm
  /** Starts a step: resets the transaction count and arms `fault` (or nothing). */
  readonly arm: (fault: TransactionFault | undefined) => void
  /** Arms a crash at the first hit of the named hook point (e.g. a migration step); `null` disarms. */
  readonly armHook: (hook: string | null) => void
  /** The crash performed in this step, if any. */
  readonly crashed: () => InjectedFault | null
  /** Storage transactions started in this step. */
  readonly transactionsStarted: () => number
}

/** Builds an injector over the database's platform alarm. */
export const makeFaultInjector = (platformAlarm: PlatformAlarm): FaultInjector => {
  let fault: TransactionFault | undefined
  let ordinal = 0
  let crash: InjectedFault | null = null
  let hookCrash: string | null = null

  const die = (phase: InjectedFault["phase"], hook: string) => {
    crash = { transaction: ordinal, phase }
    return Effect.die(new InjectedCrash({ hook, occurrence: ordinal }))
  }

  const hooks: HookPointsService = {
    at: (name) =>
      Effect.suspend(() => {
        if (hookCrash !== null && name === hookCrash) {
          hookCrash = null
          return Effect.die(new InjectedCrash({ hook: name, occurrence: 1 }))
        }
        if (name === TRANSACTION_BEGIN_HOOK) {
          ordinal++
          if (fault?.phase === "inside" && fault.transaction === ordinal) return die("inside", name)
        } else if (name === AFTER_COMMIT_HOOK) {
          if (fault?.phase === "afterCommit" && fault.transaction === ordinal) return die("afterCommit", name)
        }
        return Effect.void
      })
  }

  const failing = (operation: string) =>
    new SqlError({
      reason: new UnknownError({ cause: new Error("injected fault"), message: `injected platform alarm ${operation} failure`, operation })
    })

  const shouldFail = (): boolean => fault?.phase === "setAlarmFails" && fault.transaction === ordinal

  return {
    hooks,
    platformAlarm: {
      get: platformAlarm.get,
      set: (epochMs) => Effect.suspend(() => (shouldFail() ? Effect.fail(failing("set")) : platformAlarm.set(epochMs))),
      delete: Effect.suspend(() => (shouldFail() ? Effect.fail(failing("delete")) : platformAlarm.delete))
    },
    arm: (next) => {
      fault = next
      ordinal = 0
      crash = null
    },
    armHook: (hook) => {
      hookCrash = hook
    },
    crashed: () => crash,
    transactionsStarted: () => ordinal
  }
}
