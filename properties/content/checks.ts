/**
 * The checks of one content step, finest first: the call's result, then storage as observed
 * (content and chunks together, each content row, references, sweep registrations). Each check names
 * the rules that decide it, so a disagreement is attributed to the requirement it breaks: a content
 * row a sweep deleted that the model keeps is clause (i), (ii) or (iii) when referenced or raced and
 * the lower deletion bound otherwise; one it kept that the model deleted is the upper bound on a forced
 * sweep.
 */
import type { Check } from "../../harness/ModelBased.ts"
import type { Json } from "../../harness/Property.ts"
import { type ContentModelState, type ContentOperation, isReferenced, observableOf, raceClause } from "../../models/content/index.ts"
import type { ObservedStorage } from "./observe.ts"

/** Rules and reason deciding a content row after `op`, from the direction of the disagreement. */
const contentRowRules = (op: ContentOperation, before: ContentModelState, model: ContentModelState, key: string, expected: Json, actual: Json): { rules: ReadonlyArray<string>; why: string } => {
  if (op.kind !== "sweep") return { rules: op.kind === "uploadStream" ? ["K3"] : op.kind === "grant" ? ["K4"] : op.kind === "uploadBytes" ? ["K2"] : ["K5"], why: `${op.kind} writes exactly its own row` }
  const [tenant, hash] = key.split("/") as [string, string]
  if (expected !== null && actual === null) {
    if (isReferenced(before, tenant, hash)) return { rules: ["(i)", "K6"], why: "a reference visible to the scan keeps its content" }
    const racing = op.competitor?.operation
    if (op.competitor !== undefined && op.competitor.betweenScanAndDelete && racing !== undefined && racing.kind !== "detach" && racing.tenant === tenant && racing.hash === hash) {
      const clause = raceClause(racing)
      const rules = clause === "(ii)" ? ["(ii)", "K5", "K6"] : clause === "(iii)" ? ["(iii)", "K4", "K6"] : ["(i)", "K6"]
      return { rules, why: `the racing ${op.competitor.operation.kind} ran between the reference scan and the delete, whose re-check must refuse a raised horizon` }
    }
    if (op.competitor !== undefined && !op.competitor.betweenScanAndDelete && op.competitor.beforeSweep !== true && racing?.kind === "uploadBytes" && racing.tenant === tenant && racing.hash === hash) {
      return { rules: ["K2"], why: "the racing upload's writes landed after the sweep's delete, and an upload is one transaction that leaves its row with its chunks, writing both again when the row is gone" }
    }
    if (isReferenced(model, tenant, hash)) return { rules: ["(i)", "K6"], why: "a reference visible to the scan keeps its content" }
    return { rules: ["earliest", "K6"], why: "unreferenced content goes no earlier than granted_until + G + T + S" }
  }
  if (expected === null && actual !== null) {
    return op.force
      ? { rules: ["latest", "K6"], why: "a forced sweep deletes unreferenced content past granted_until + G + T + S" }
      : { rules: ["K6"], why: "the hourly pass deletes unreferenced candidates of the tenants it claims" }
  }
  return { rules: ["K6"], why: "a sweep changes no horizon" }
}

/** Every check of storage after `op`. */
export const storageChecks = (op: ContentOperation, before: ContentModelState, model: ContentModelState, observed: ObservedStorage, resultRules: ReadonlyArray<string>): ReadonlyArray<Check> => {
  const expected = observableOf(model)
  const checks: Array<Check> = [{
    observable: "content rows and their chunks",
    expected: [],
    actual: [...observed.apart],
    rules: op.kind === "sweep" ? ["together", "K6"] : resultRules,
    why: op.kind === "sweep" ? "a content row and its chunks disappear together" : "every stored content has all its chunks, chunk 0 even when empty"
  }]
  const keys = [...new Set([...Object.keys(expected.contents), ...Object.keys(observed.contents)])].sort()
  for (const key of keys) {
    const want = (expected.contents[key] ?? null) as Json
    const got = (observed.contents[key] ?? null) as Json
    checks.push({ observable: `content ${key}`, expected: want, actual: got, ...contentRowRules(op, before, model, key, want, got) })
  }
  checks.push({ observable: "references", expected: [...expected.refs], actual: [...observed.refs], rules: ["K5"], why: "attach records one reference, detach deletes one, nothing else touches them" })
  checks.push({
    observable: "sweep registrations",
    expected: expected.sweptAtMs as Json,
    actual: observed.sweptAtMs as Json,
    rules: ["K6"],
    why: "uploads register the tenant; an hourly pass records its sweep, a forced one records nothing"
  })
  return checks
}
