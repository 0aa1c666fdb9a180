/**
 * One step of the content model: every operation's next state, result, rules and situations.
 * Reads (K7) never change state: bytes only when the content is stored with that size, never partial.
 */
import type { ContentOperation, RacingOperation } from "./operations.ts"
import { failure, faultResult, success } from "./results.ts"
import { contentKey, type ContentModelState } from "./state.ts"
import { sweep } from "./sweep.ts"
import { attach, detach, grant, type ModelOutcome, upload, verdictOf } from "./write.ts"

/** What `step` returns: the outcome, plus the racing operation's outcome for a raced sweep. */
export interface ContentStepOutcome extends ModelOutcome {
  /** A sweep stopped by a fault past its own transactions: storage may be anywhere between before and after. */
  readonly uncertain?: boolean
  readonly competitor?: { readonly result: ModelOutcome["result"]; readonly rules: ReadonlyArray<string> }
}

/** The bytes a read of `tenant/hash` with `size` returns: the content's identity, or null (none). */
const readResult = (state: ContentModelState, tenant: string, hash: string, size: number): { readonly hash: string; readonly size: number } | null => {
  const content = state.contents[contentKey(tenant, hash)]
  return content !== undefined && content.size === size ? { hash, size } : null
}

const racing = (state: ContentModelState, operation: RacingOperation): ModelOutcome => {
  switch (operation.kind) {
    case "uploadBytes":
      return upload(state, operation)
    case "grant":
      return grant(state, operation)
    case "detach":
      return detach(state, operation)
    case "grantAndAttach":
      return grantAndAttach(state, operation)
  }
}

/** A fresh grant, then the attach under it (none when the content is gone: nothing is attached). */
const grantAndAttach = (state: ContentModelState, op: Extract<RacingOperation, { kind: "grantAndAttach" }>): ModelOutcome => {
  const granted = grant(state, { kind: "grant", tenant: op.tenant, hash: op.hash, size: op.size, atMs: op.atMs })
  const value = granted.result._tag === "Success" ? (granted.result.value as { readonly expiresAt: number } | null) : null
  if (value === null) return { ...granted, result: success({ grant: null, attach: null }) }
  const attached = attach(granted.state, {
    kind: "attach", tenant: op.tenant, actor: op.actor, blob: op.blob, name: op.name, hash: op.hash, size: op.size, atMs: op.atMs,
    grant: { kind: "signed", tenant: op.tenant, hash: op.hash, size: op.size, expiresAt: value.expiresAt }
  })
  return {
    state: attached.state,
    result: success({ grant: value, attach: attached.result }),
    rules: ["K4", "K5"],
    why: "a fresh grant raises the horizon and the attach under it records the reference",
    situations: ["K4", "K5"]
  }
}

const readStep = (state: ContentModelState, op: Extract<ContentOperation, { kind: "read" | "stream" }>): ContentStepOutcome => {
  if (op.kind === "read" && op.fault !== undefined) {
    // The store's error handling: a read whose storage failed fails with that error; answering None would
    // tell the caller the content is gone (swept) when it may be whole.
    return { state, result: faultResult(op.fault), rules: ["K7"], why: "a read whose storage failed fails with the storage error, never answers as if the content were missing", situations: ["K7"] }
  }
  const bytes = readResult(state, op.tenant, op.hash, op.size)
  if (op.kind === "read") {
    return { state, result: success(bytes), rules: ["K7"], why: "read returns the bytes only when every chunk is there and they sum to the size", situations: ["K7"] }
  }
  const result = bytes === null ? failure("NoSuchElementError") : success(op.interrupt ? "interrupted" : bytes)
  return { state, result, rules: ["K7"], why: "a stream checks every chunk before emitting anything", situations: ["K7"] }
}

/** Applies `op` to `state`. */
export const contentStep = (state: ContentModelState, op: ContentOperation): ContentStepOutcome => {
  switch (op.kind) {
    case "uploadBytes":
    case "uploadStream":
      return upload(state, op)
    case "grant":
      return grant(state, op)
    case "attach":
      return attach(state, op)
    case "detach":
      return detach(state, op)
    case "read":
    case "stream":
      return readStep(state, op)
    case "verify": {
      const verdict = verdictOf(state, op.grant, op, op.atMs, op.refusalChoice ?? 0)
      const rules = verdict.ok || verdict.reason === "expired" ? ["K5"] : ["K5", "K4"]
      return { state, result: verdict.ok ? success({ expiresAt: verdict.expiresAt }) : failure(verdict.reason), rules, why: "verify checks the MAC, tenant, hash, size and now + S", situations: rules }
    }
    case "sweep": {
      const run = sweep(state, op, racing)
      const situations = op.competitor === undefined ? run.situations : [...run.situations, ...raceSituations(op)]
      return {
        state: run.state,
        result: run.result,
        rules: ["K6"],
        why: "the pass deletes unreferenced candidates past G + T + S whose horizon is still past T + S at the delete",
        situations,
        ...(run.uncertain ? { uncertain: true } : {}),
        ...(run.competitor === undefined ? {} : { competitor: { result: run.competitor.result, rules: run.competitor.rules } })
      }
    }
  }
}

/** The guarantee clause a race exercises: (ii) for grant-and-attach, (iii) for grant and upload, (i) for detach. */
export const raceClause = (operation: RacingOperation): "(i)" | "(ii)" | "(iii)" =>
  operation.kind === "grantAndAttach" ? "(ii)" : operation.kind === "detach" ? "(i)" : "(iii)"

const raceSituations = (op: Extract<ContentOperation, { kind: "sweep" }>): ReadonlyArray<string> =>
  op.competitor !== undefined && op.competitor.betweenScanAndDelete ? [raceClause(op.competitor.operation)] : []
