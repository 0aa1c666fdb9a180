/**
 * Every known-bad pool implementation. The suite must report a violation for each one: the five bugs
 * the issue names (free count, slot lost at the hand-over, admission after the gate, retry after a
 * statement, ROLLBACK taken for a commit) and six of our own (notify in the caller's transaction,
 * a fixed retry delay, the channel limit in characters, a JSON-encoded notify payload, a gate wait that
 * ignores cancellation).
 */
import { admissionAfterGate } from "./admission-after-gate.ts"
import { channelLimitInCharacters } from "./channel-limit-in-characters.ts"
import { freeCountGateBad } from "./free-count-gate.ts"
import { handoverSlotLost } from "./handover-slot-lost.ts"
import type { KnownBadPool } from "./kit.ts"
import { notifyOnCallerTransaction } from "./notify-on-caller-transaction.ts"
import { notifyPayloadAsJson } from "./notify-payload-as-json.ts"
import { retryAfterStatement } from "./retry-after-statement.ts"
import { retryFixedDelay } from "./retry-fixed-delay.ts"
import { retryJittered } from "./retry-jittered.ts"
import { rollbackCommitSuccess } from "./rollback-commit-success.ts"
import { slotFreedAndHandedOver } from "./slot-freed-and-handed-over.ts"
import { uninterruptibleGateWait } from "./uninterruptible-gate-wait.ts"

export type { KnownBadPool } from "./kit.ts"

/** The known-bad pools, each one swapped piece away from the shipped pool. */
export const knownBadPools: ReadonlyArray<KnownBadPool> = [
  freeCountGateBad,
  handoverSlotLost,
  admissionAfterGate,
  retryAfterStatement,
  rollbackCommitSuccess,
  notifyOnCallerTransaction,
  retryFixedDelay,
  retryJittered,
  channelLimitInCharacters,
  notifyPayloadAsJson,
  uninterruptibleGateWait,
  slotFreedAndHandedOver
]
