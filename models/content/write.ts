/**
 * The writing operations of the content model: uploads (K2, K3), grants (K4), attach and detach (K5).
 * Each is one transaction: a fault inside it keeps nothing, a fault after its commit keeps everything.
 */
import type { ContentOperation, GrantFacts, ReachedFault } from "./operations.ts"
import { failure, faultCommitted, faultResult, type ModelResult, success } from "./results.ts"
import { contentKey, type ContentModelState, refKey, withEntry } from "./state.ts"

/** What a step predicts: the next state, the result and the rules deciding it. */
export interface ModelOutcome {
  readonly state: ContentModelState
  readonly result: ModelResult
  /** Rules deciding the result. */
  readonly rules: ReadonlyArray<string>
  /** Why, in words (for witnesses). */
  readonly why: string
  /** Reference-page rules whose situation the step reached (coverage). */
  readonly situations: ReadonlyArray<string>
}

/** Applies a one-transaction write: `apply` gives the state and result when it commits. */
const oneTransaction = (
  state: ContentModelState,
  fault: ReachedFault | undefined,
  apply: () => Omit<ModelOutcome, "situations"> & { readonly situations?: ReadonlyArray<string> }
): ModelOutcome => {
  const applied = apply()
  const situations = applied.situations ?? []
  if (fault === undefined) return { ...applied, situations }
  const kept = faultCommitted(fault) ? applied.state : state
  return { ...applied, state: kept, result: faultResult(fault), why: `${applied.why}; the fault struck its transaction`, situations }
}

/** K2/K3: registers the tenant and upserts the row with `granted_until = greatest(old, at + L)`. */
export const upload = (state: ContentModelState, op: Extract<ContentOperation, { kind: "uploadBytes" | "uploadStream" }>): ModelOutcome => {
  const rule = op.kind === "uploadBytes" ? "K2" : "K3"
  const limit = op.kind === "uploadStream" ? Math.min(op.limit, state.config.maxContentBytes) : state.config.maxContentBytes
  // A body that fails or runs past the limit rolls its transaction back (when one was open, a crash
  // inside it is still a crash, and a statement that failed first is still the failure: the model is
  // told a failed statement only when it struck before the body's own failure); nothing of it stays.
  const refused = (error: string, why: string): ModelOutcome => ({
    state,
    result: op.fault?.phase === "inside" || op.fault?.phase === "statementFails" ? faultResult(op.fault) : failure(error),
    rules: ["K3"],
    why,
    situations: ["K3"]
  })
  if (op.kind === "uploadStream" && op.bodyFails) return refused("BodyFailed", "a failing body rolls the upload back")
  if (op.size > limit) return refused("ContentTooLarge", `content over ${limit} bytes is ContentTooLarge with nothing written`)
  return oneTransaction(state, op.fault, () => {
    const key = contentKey(op.tenant, op.hash)
    const old = state.contents[key]
    const grantedUntilMs = Math.max(old?.grantedUntilMs ?? Number.MIN_SAFE_INTEGER, op.atMs + state.config.grantLifetimeMs)
    const next: ContentModelState = {
      ...state,
      contents: withEntry(state.contents, key, { tenant: op.tenant, hash: op.hash, size: op.size, grantedUntilMs }),
      sweptAtMs: op.tenant in state.sweptAtMs ? state.sweptAtMs : withEntry(state.sweptAtMs, op.tenant, 0)
    }
    return {
      state: next,
      result: success({ hash: op.hash, size: op.size, expiresAt: grantedUntilMs }),
      rules: [rule, "K1"],
      why: `upload returns the hash, the size and a grant expiring at greatest(old, now + L)${old === undefined ? "" : " (the tenant already held the bytes)"}`,
      situations: old === undefined && !Object.values(state.contents).some((other) => other.hash === op.hash) ? [rule] : [rule, "K1"]
    }
  })
}

/** K4: raises the horizon monotonically; none when the row (with that size) no longer exists. */
export const grant = (state: ContentModelState, op: Extract<ContentOperation, { kind: "grant" }>): ModelOutcome => {
  const key = contentKey(op.tenant, op.hash)
  const old = state.contents[key]
  if (old === undefined || old.size !== op.size) {
    return oneTransaction(state, op.fault, () => ({ state, result: success(null), rules: ["K4"], why: "grant answers none when the content does not exist", situations: ["K4"] }))
  }
  return oneTransaction(state, op.fault, () => {
    const grantedUntilMs = Math.max(old.grantedUntilMs, op.atMs + state.config.grantLifetimeMs)
    return {
      state: { ...state, contents: withEntry(state.contents, key, { ...old, grantedUntilMs }) },
      result: success({ expiresAt: grantedUntilMs }),
      rules: ["K4"],
      why: "grant raises granted_until to greatest(old, now + L) and signs it",
      situations: ["K4"]
    }
  })
}

/**
 * The reasons a refusal may give where K5 leaves the choice to the store, the one the shipped store
 * gives first: a tampered grant (`GrantFacts` "tampered") is `malformed` or `invalid`, as the store's
 * encoding decides; a grant the store signed that is both bound to other content and expired at or
 * before `now + S` is `invalid` or `expired` (K5 names both and fixes no priority between them).
 * `refusalChoice` picks one (`alternatives.ts` spells out both).
 */
const TWO_REASONS = {
  tampered: ["malformed", "invalid"],
  mismatchedExpired: ["invalid", "expired"]
} as const

/** A refusal reason of K5. */
export type RefusalReason = "malformed" | "invalid" | "expired"

/**
 * K4/K5: why a grant is refused for `bound` at `atMs`, or its expiry. Where K5 allows two reasons,
 * `refusalChoice` (0, the canonical one, or 1) picks which; `twoReasons` says the refusal had a choice.
 */
export const verdictOf = (state: ContentModelState, grantFacts: GrantFacts, bound: { readonly tenant: string; readonly hash: string; readonly size: number }, atMs: number, refusalChoice: 0 | 1 = 0):
  | { readonly ok: true; readonly expiresAt: number }
  | { readonly ok: false; readonly reason: RefusalReason; readonly twoReasons: boolean } => {
  if (grantFacts.kind === "malformed") return { ok: false, reason: "malformed", twoReasons: false }
  if (grantFacts.kind === "tampered") return { ok: false, reason: TWO_REASONS.tampered[refusalChoice], twoReasons: true }
  if (grantFacts.kind === "forged") return { ok: false, reason: "invalid", twoReasons: false }
  const expired = grantFacts.expiresAt <= atMs + state.config.skewMs
  if (grantFacts.tenant !== bound.tenant || grantFacts.hash !== bound.hash || grantFacts.size !== bound.size) {
    return expired ? { ok: false, reason: TWO_REASONS.mismatchedExpired[refusalChoice], twoReasons: true } : { ok: false, reason: "invalid", twoReasons: false }
  }
  if (expired) return { ok: false, reason: "expired", twoReasons: false }
  return { ok: true, expiresAt: grantFacts.expiresAt }
}

/** K5: verifies the grant (only the grant: no content row is read) and records the reference. */
export const attach = (state: ContentModelState, op: Extract<ContentOperation, { kind: "attach" }>): ModelOutcome => {
  const verdict = verdictOf(state, op.grant, op, op.atMs, op.refusalChoice ?? 0)
  if (!verdict.ok) {
    const rules = verdict.reason === "expired" ? ["K5"] : ["K5", "K4"]
    // An implementation that checks the grant inside its transaction met a failed statement that struck first.
    const result = op.fault?.phase === "statementFails" ? faultResult(op.fault) : failure(`InvalidContentRef:${verdict.reason}`)
    return { state, result, rules, why: `attach refuses a grant that is ${verdict.reason}`, situations: rules }
  }
  return oneTransaction(state, op.fault, () => ({
    state: { ...state, refs: withEntry(state.refs, refKey(op), { tenant: op.tenant, actor: op.actor, blob: op.blob, name: op.name, hash: op.hash, size: op.size }) },
    result: success(null),
    rules: ["K5"],
    why: "attach with a grant expiring after now + S records the reference",
    situations: ["K5"]
  }))
}

/** K5: detach deletes one reference. */
export const detach = (state: ContentModelState, op: Extract<ContentOperation, { kind: "detach" }>): ModelOutcome =>
  oneTransaction(state, op.fault, () => ({
    state: { ...state, refs: withEntry(state.refs, refKey(op), undefined) },
    result: success(refKey(op) in state.refs),
    rules: ["K5"],
    why: "detach deletes exactly that reference and says whether it existed",
    situations: ["K5"]
  }))
