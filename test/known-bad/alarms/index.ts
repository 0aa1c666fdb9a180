/**
 * Every known-bad alarms implementation. The suite must report a violation for each one; the
 * model-based properties use this list to check that they can catch them.
 */
import { ackIgnoresExternalWrite } from "./ack-ignores-external-write.ts"
import { cancelNoReconcile } from "./cancel-no-reconcile.ts"
import { equalCursorReset } from "./equal-cursor-reset.ts"
import { h1ContentAck } from "./h1-content-ack.ts"
import { h2AnyRepeat } from "./h2-any-repeat.ts"
import { h2FixedRetry } from "./h2-fixed-retry.ts"
import { h2FreeSelfRearm } from "./h2-free-self-rearm.ts"
import { h2RetryRewritesRunAt } from "./h2-retry-rewrites-run-at.ts"
import { h3OnFailureSkipsReschedule } from "./h3-onfailure-skips-reschedule.ts"
import { h4DetachedAfterPass } from "./h4-detached-after-pass.ts"
import { h5ParkedFromBudget } from "./h5-parked-from-budget.ts"
import { h6DispatchByRunAt } from "./h6-dispatch-by-run-at.ts"
import { h6PlatformAlarmRunAt } from "./h6-platform-alarm-run-at.ts"
import { noTransactionLock } from "./no-transaction-lock.ts"
import { parkRereported } from "./park-rereported.ts"
import { reportBeforeCommit } from "./report-before-commit.ts"
import { reportWithoutReread } from "./report-without-reread.ts"
import { reconcileSwallowsStatementFailure } from "./reconcile-swallows-statement-failure.ts"
import { serializationFailureDefect } from "./serialization-failure-defect.ts"
import { spuriousWakeGuard } from "./spurious-wake-guard.ts"
import type { KnownBadAlarms } from "./kit.ts"
import { wakeNotMaterialised } from "./wake-not-materialised.ts"

export type { KnownBadAlarms } from "./kit.ts"

/** The known-bad implementations, each one swapped piece away from the shipped scheduler. */
export const knownBadAlarms: ReadonlyArray<KnownBadAlarms> = [
  h1ContentAck,
  h2FixedRetry,
  h2FreeSelfRearm,
  h2AnyRepeat,
  h2RetryRewritesRunAt,
  h3OnFailureSkipsReschedule,
  h4DetachedAfterPass,
  h5ParkedFromBudget,
  h6DispatchByRunAt,
  h6PlatformAlarmRunAt,
  equalCursorReset,
  parkRereported,
  reportBeforeCommit,
  cancelNoReconcile,
  wakeNotMaterialised,
  spuriousWakeGuard,
  // A clean abort (the `commitRefused` fault): the only fault whose SqlError is a serialization failure.
  serializationFailureDefect,
  // A failed statement (the `statementFails` fault): the only fault that fails one of the scheduler's own statements.
  reconcileSwallowsStatementFailure,
  // Races (alarms/race): an external call during a pass; truly concurrent transactions (Postgres only).
  reportWithoutReread,
  ackIgnoresExternalWrite,
  noTransactionLock
]
