/**
 * Every known-bad clocks implementation: the reference page's historical bugs B1a-B9 and our own.
 * The suite must report a violation for each one.
 */
import { b1aCasBeforeCompletion } from "./b1a-cas-before-completion.ts"
import { b1bResumeOnlyFirstWrite } from "./b1b-resume-only-first-write.ts"
import { b1cSweepDueOnly } from "./b1c-sweep-due-only.ts"
import { b1dNoWakeRedelivery } from "./b1d-no-wake-redelivery.ts"
import { b3NoFireRetry } from "./b3-no-fire-retry.ts"
import { b4LossyLifecycle } from "./b4-lossy-lifecycle.ts"
import { b5FlushFailurePropagates } from "./b5-flush-failure-propagates.ts"
import { b8RecordApart } from "./b8-record-apart.ts"
import { b9NoClockCompletedRecord } from "./b9-no-clock-completed-record.ts"
import { casOwnerFenced } from "./cas-owner-fenced.ts"
import { casUnconditional } from "./cas-unconditional.ts"
import { consumeEveryRead } from "./consume-every-read.ts"
import { consumeSwallowsStatementFailure } from "./consume-swallows-statement-failure.ts"
import { fireRetryGivesUp } from "./fire-retry-gives-up.ts"
import { flushFailureUnlogged } from "./flush-failure-unlogged.ts"
import { intendedAfterEffect } from "./intended-after-effect.ts"
import type { KnownBadClocks } from "./kit.ts"
import { lastWriterWins } from "./last-writer-wins.ts"
import { rearmFiredClock } from "./rearm-fired-clock.ts"
import { relativeDeadline } from "./relative-deadline.ts"
import { sweepReadFailureSwallowed } from "./sweep-read-failure-swallowed.ts"
import { unstableWakeId } from "./unstable-wake-id.ts"
import { waitingUnchecked } from "./waiting-unchecked.ts"

export type { KnownBadClocks } from "./kit.ts"

/** The known-bad implementations, each one swapped piece away from the shipped engine. */
export const knownBadClocks: ReadonlyArray<KnownBadClocks> = [
  b1aCasBeforeCompletion,
  b1bResumeOnlyFirstWrite,
  b1cSweepDueOnly,
  b1dNoWakeRedelivery,
  b3NoFireRetry,
  b4LossyLifecycle,
  b5FlushFailurePropagates,
  b8RecordApart,
  b9NoClockCompletedRecord,
  casUnconditional,
  lastWriterWins,
  relativeDeadline,
  consumeEveryRead,
  waitingUnchecked,
  intendedAfterEffect,
  rearmFiredClock,
  unstableWakeId,
  casOwnerFenced,
  consumeSwallowsStatementFailure,
  flushFailureUnlogged,
  fireRetryGivesUp,
  sweepReadFailureSwallowed
]
