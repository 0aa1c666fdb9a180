/**
 * The content model's named situations: the rows of the content coverage table (`harness/Coverage.ts`).
 *
 * A verdict says what held in the scenarios that ran; these names say what the scenarios exercised,
 * finer than the rules a step credits. Each is decided from the model alone (the state before, the
 * operation and the model's outcome), never from the implementation, so the table means the same for
 * every implementation bound to the subject. A situation that no scenario reaches shows in the table
 * as 0: that is a gap in generation, not in the implementation.
 */
import { FAULT_SITUATIONS } from "../../harness/Faults.ts"
import type { ContentOperation, GrantFacts, ReachedFault } from "./operations.ts"
import { contentKey, type ContentModelState, refKey } from "./state.ts"
import type { ContentStepOutcome } from "./step.ts"

/** Every situation, in the order the coverage table lists them. */
export const CONTENT_SITUATIONS = [
  // K1-K3 uploads
  "uploadNewContent",
  "uploadSameHashOtherTenant",
  "uploadAgainRaisesGrant",
  "uploadAgainKeepsLaterGrant",
  "uploadAtSizeLimit",
  "uploadTooLarge",
  "uploadStreamBelowStoreLimit",
  "uploadStreamAboveStoreLimit",
  "uploadBodyFailed",
  // K4 grants
  "grantRaisesHorizon",
  "grantKeepsLaterHorizon",
  "grantOfMissingContent",
  "grantSizeMismatch",
  // K4/K5 grant verdicts, for attach and verify alike
  "grantAccepted",
  "grantExpiredAtSkewBoundary",
  "grantExpiredPastBoundary",
  "grantForged",
  "grantMalformed",
  "grantTampered",
  "grantBoundToOtherContent",
  // K5 references
  "attachRecorded",
  "attachOverExistingReference",
  "detachExisting",
  "detachMissing",
  "detachHeldOnlyByOtherTenant",
  // K7 reads
  "readStored",
  "readMissing",
  "readSizeMismatch",
  "streamStored",
  "streamMissing",
  "streamInterrupted",
  // K6 and the guarantee (i)-(iii)
  "sweepForced",
  "sweepNoTenantDue",
  "sweepSparesReferencedPastHorizon",
  "sweepSparesUnreferencedWithinHorizon",
  "sweepSparesWithinLongestRecordedTurn",
  "forcedSweepReachesUnreferencedPastHorizon",
  "sweepDeletes",
  "sweepRaceDetach",
  "sweepRaceGrantAndAttach",
  "sweepRaceUpload",
  "sweepRaceAfterPass",
  "sweepRecheckSplitsBatch",
  "sweepStruckByFault",
  // storage faults, by how they struck
  "faultInsideTransaction",
  "faultAfterCommit",
  "faultLostReply",
  "faultCommitRefused",
  "faultStatementFailed",
  "faultReadFailed",
  // K7 across commands: reached by the property's held stream (`properties/content/heldStream.ts`), not by a model step
  "streamHeldAcrossSweep",
  "streamHeldPastTimeout"
] as const

/** One content situation. */
export type ContentSituation = typeof CONTENT_SITUATIONS[number]

const grantSituation = (state: ContentModelState, grant: GrantFacts, bound: { readonly tenant: string; readonly hash: string; readonly size: number }, atMs: number): ContentSituation => {
  if (grant.kind === "malformed") return "grantMalformed"
  if (grant.kind === "tampered") return "grantTampered"
  if (grant.kind === "forged") return "grantForged"
  if (grant.tenant !== bound.tenant || grant.hash !== bound.hash || grant.size !== bound.size) return "grantBoundToOtherContent"
  const boundaryMs = atMs + state.config.skewMs
  if (grant.expiresAt === boundaryMs) return "grantExpiredAtSkewBoundary"
  return grant.expiresAt < boundaryMs ? "grantExpiredPastBoundary" : "grantAccepted"
}

const uploadSituations = (before: ContentModelState, op: Extract<ContentOperation, { kind: "uploadBytes" | "uploadStream" }>): Array<ContentSituation> => {
  const limit = op.kind === "uploadStream" ? Math.min(op.limit, before.config.maxContentBytes) : before.config.maxContentBytes
  const found: Array<ContentSituation> = []
  if (op.kind === "uploadStream" && op.limit < before.config.maxContentBytes) found.push("uploadStreamBelowStoreLimit")
  if (op.kind === "uploadStream" && op.limit > before.config.maxContentBytes) found.push("uploadStreamAboveStoreLimit")
  if (op.kind === "uploadStream" && op.bodyFails) return [...found, "uploadBodyFailed"]
  if (op.size > limit) return [...found, "uploadTooLarge"]
  if (op.size === limit) found.push("uploadAtSizeLimit")
  const old = before.contents[contentKey(op.tenant, op.hash)]
  if (old !== undefined) {
    found.push(old.grantedUntilMs < op.atMs + before.config.grantLifetimeMs ? "uploadAgainRaisesGrant" : "uploadAgainKeepsLaterGrant")
  } else {
    const elsewhere = Object.values(before.contents).some((content) => content.hash === op.hash)
    found.push(elsewhere ? "uploadSameHashOtherTenant" : "uploadNewContent")
  }
  return found
}

const grantSituations = (before: ContentModelState, op: Extract<ContentOperation, { kind: "grant" }>): Array<ContentSituation> => {
  const old = before.contents[contentKey(op.tenant, op.hash)]
  if (old === undefined) return ["grantOfMissingContent"]
  if (old.size !== op.size) return ["grantSizeMismatch"]
  return [old.grantedUntilMs < op.atMs + before.config.grantLifetimeMs ? "grantRaisesHorizon" : "grantKeepsLaterHorizon"]
}

const readSituations = (before: ContentModelState, op: Extract<ContentOperation, { kind: "read" | "stream" }>): Array<ContentSituation> => {
  const stored = before.contents[contentKey(op.tenant, op.hash)]
  if (op.kind === "read") return [stored === undefined ? "readMissing" : stored.size === op.size ? "readStored" : "readSizeMismatch"]
  if (stored === undefined || stored.size !== op.size) return ["streamMissing"]
  return [op.interrupt ? "streamInterrupted" : "streamStored"]
}

/**
 * K5, K1: a detach of a reference that exists, or that does not; and of one absent in its tenant but
 * held in another under the same actor, blob and name (references are per tenant, so nothing goes).
 */
const detachSituations = (before: ContentModelState, op: { readonly tenant: string; readonly actor: string; readonly blob: string; readonly name: string }): Array<ContentSituation> => {
  if (refKey(op) in before.refs) return ["detachExisting"]
  const elsewhere = Object.values(before.refs).some((ref) => ref.tenant !== op.tenant && ref.actor === op.actor && ref.blob === op.blob && ref.name === op.name)
  return elsewhere ? ["detachMissing", "detachHeldOnlyByOtherTenant"] : ["detachMissing"]
}

const RACE_SITUATIONS = { detach: "sweepRaceDetach", grantAndAttach: "sweepRaceGrantAndAttach", uploadBytes: "sweepRaceUpload", grant: "sweepRaceUpload" } as const

const sweepSituations = (before: ContentModelState, op: Extract<ContentOperation, { kind: "sweep" }>, outcome: ContentStepOutcome): Array<ContentSituation> => {
  const found: Array<ContentSituation> = []
  if (op.force) found.push("sweepForced")
  const intervalMs = before.config.sweepIntervalMs
  if (!op.force && !Object.values(before.sweptAtMs).some((sweptAtMs) => sweptAtMs <= op.atMs - intervalMs)) found.push("sweepNoTenantDue")
  if (outcome.situations.includes("(i)")) found.push("sweepSparesReferencedPastHorizon")
  if (outcome.situations.includes("earliest")) found.push("sweepSparesUnreferencedWithinHorizon")
  if (outcome.situations.includes("longestTurn")) found.push("sweepSparesWithinLongestRecordedTurn")
  if (outcome.situations.includes("latest")) found.push("forcedSweepReachesUnreferencedPastHorizon")
  if (outcome.situations.includes("together")) found.push("sweepDeletes")
  if (outcome.situations.includes("recheckSplitsBatch")) found.push("sweepRecheckSplitsBatch")
  if (op.competitor !== undefined) {
    found.push(op.competitor.betweenScanAndDelete ? RACE_SITUATIONS[op.competitor.operation.kind] : "sweepRaceAfterPass")
  }
  // Whether the fault struck inside the pass or past its last transaction depends on how many
  // transactions the implementation runs, so one situation covers both (the table stays the model's).
  if (op.fault !== undefined) found.push("sweepStruckByFault")
  return found
}

/**
 * The phase of the storage fault that struck the step, as cron counts it: the crash the model
 * predicts, or the storage error the caller sees. The operation carries the fault the harness saw
 * reach its transaction (`harness/StruckFault.ts`); one whose transaction body failed on its own
 * first (a refused upload's commit never came) did not strike, and the model answers that failure.
 */
const struckPhase = (op: ContentOperation, outcome: ContentStepOutcome): ReachedFault["phase"] | undefined => {
  const fault = "fault" in op ? op.fault : undefined
  if (fault === undefined) return undefined
  if (outcome.result._tag === "Crashed") return outcome.result.phase
  return outcome.result._tag === "Failure" && outcome.result.error === "SqlError" ? fault.phase : undefined
}

/** The situations one model step reached: `before` is the state the step started from. */
export const contentSituations = (before: ContentModelState, op: ContentOperation, outcome: ContentStepOutcome): ReadonlyArray<ContentSituation> => {
  const found = ((): Array<ContentSituation> => {
    switch (op.kind) {
      case "uploadBytes":
      case "uploadStream":
        return uploadSituations(before, op)
      case "grant":
        return grantSituations(before, op)
      case "attach": {
        const verdict = grantSituation(before, op.grant, op, op.atMs)
        if (verdict !== "grantAccepted") return [verdict]
        return [verdict, refKey(op) in before.refs ? "attachOverExistingReference" : "attachRecorded"]
      }
      case "verify":
        return [grantSituation(before, op.grant, op, op.atMs)]
      case "detach":
        return detachSituations(before, op)
      case "read":
      case "stream":
        return readSituations(before, op)
      case "sweep":
        return sweepSituations(before, op, outcome)
    }
  })()
  const phase = struckPhase(op, outcome)
  return phase === undefined ? found : [...found, FAULT_SITUATIONS[phase]]
}
