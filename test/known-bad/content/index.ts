/**
 * Every known-bad content implementation: one per real bug of the store's history (reference page
 * `content.md`) and subtler ones of our own, each one swapped piece away from the shipped store.
 */
import { chunksSeparateStatement } from "./chunks-separate-statement.ts"
import { countCandidates } from "./count-candidates.ts"
import { deletesWithoutTransaction } from "./deletes-without-transaction.ts"
import { expiryBoundaryStrict } from "./expiry-boundary-strict.ts"
import { forcedSweepRecorded } from "./forced-sweep-recorded.ts"
import { foreignGrantAccepted } from "./foreign-grant-accepted.ts"
import { grantAfterDelete } from "./grant-after-delete.ts"
import type { KnownBadContent } from "./kit.ts"
import { pagingSkipsTies } from "./paging-skips-ties.ts"
import { readSizeUnchecked } from "./read-size-unchecked.ts"
import { recheckOmitted } from "./recheck-omitted.ts"
import { grantTrailingPartsIgnored } from "./grant-trailing-parts-ignored.ts"
import { raiseSwallowsStatementFailure } from "./raise-swallows-statement-failure.ts"
import { scanMissesKeyRange } from "./scan-misses-key-range.ts"
import { skewOmittedAttach } from "./skew-omitted-attach.ts"
import { skewOmittedHorizon } from "./skew-omitted-horizon.ts"
import { streamUnchecked } from "./stream-unchecked.ts"
import { turnRecordedLatest } from "./turn-recorded-latest.ts"

export type { KnownBadContent } from "./kit.ts"

/** The known-bad content implementations (real bugs first). */
export const knownBadContents: ReadonlyArray<KnownBadContent> = [
  recheckOmitted,
  skewOmittedHorizon,
  skewOmittedAttach,
  scanMissesKeyRange,
  grantAfterDelete,
  chunksSeparateStatement,
  forcedSweepRecorded,
  readSizeUnchecked,
  foreignGrantAccepted,
  streamUnchecked,
  countCandidates,
  expiryBoundaryStrict,
  pagingSkipsTies,
  raiseSwallowsStatementFailure,
  grantTrailingPartsIgnored,
  deletesWithoutTransaction,
  turnRecordedLatest
]
