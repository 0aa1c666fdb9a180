/**
 * The typed definitions' own checks (R29), which run before the untyped handle sees a mutation: an
 * undeclared tag is `InvalidAlarmRefError`; a schedule whose payload does not encode with its tag's
 * schema (not JSON, or not a number for a tag that takes numbers only) is `InvalidAlarmPayloadError`. Both precede every other check, including the handle's
 * confinement (R5), because the typed wrapper runs them before it calls the handle.
 */
import type { Mutation } from "./operations.ts"
import { type ClosureOutcome, failWith, reach, type StepRun } from "./run.ts"
import { isUnencodablePayload } from "./validation.ts"

/** The failure the typed definitions raise for `mutation`, or null (also null for the untyped scheduler). */
export const typedDefinitionProblem = (run: StepRun, mutation: Mutation): Extract<ClosureOutcome<never>, { readonly ok: false }> | null => {
  const knownTags = run.state.knownTags
  if (knownTags === null) return null
  const tag = mutation.kind === "cancelAlarm" ? mutation.ref.tag : mutation.input.tag
  if (!knownTags.includes(tag)) {
    reach(run, "unknownTagRejected")
    return failWith({ _tag: "InvalidAlarmRefError", reason: `unknown alarm tag "${tag}"` }, ["R29"], "the typed definitions do not know this tag")
  }
  if (mutation.kind === "cancelAlarm") return null
  if (isUnencodablePayload(mutation.input.payload)) {
    reach(run, "invalidPayloadRejected")
    return failWith(
      { _tag: "InvalidAlarmPayloadError", reason: "payload does not encode with the tag's schema" },
      ["R29", "R8"],
      "typed definitions encode the payload before the configuration, ref and repeat checks"
    )
  }
  // An unencodable payload is never a number: past the check above, only a narrowed tag's schema can refuse it.
  if (run.state.numberTags.includes(tag) && typeof mutation.input.payload !== "number") {
    reach(run, "narrowedPayloadRejected")
    return failWith(
      { _tag: "InvalidAlarmPayloadError", reason: "payload is not a number, as the tag's schema requires" },
      ["R29", "R8"],
      "the tag's schema takes numbers only, and typed definitions encode the payload before every other check"
    )
  }
  return null
}
