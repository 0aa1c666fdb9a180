/**
 * Which pool requirements a step's situation reached (coverage: a requirement no scenario reached is
 * reported unknown, never passed), read from the model before and after the operation. The finer
 * named situations (`models/pool/situations.ts`) read the same facts; `test/models/pool-situations.test.ts`
 * checks that a situation's requirement is credited here for the same step.
 */
import type { PoolModelState, PoolOperation } from "../../models/pool/index.ts"

/** Requirement ids whose situation `operation` reached, going from `before` to `after`. */
export const coveredBy = (before: PoolModelState, after: PoolModelState, operation: PoolOperation): ReadonlyArray<string> => {
  const ids = new Set<string>()
  if (operation.op === "start" || operation.op === "flood" || operation.op === "probe") ids.add("POL-001")
  if (operation.op === "interrupt" || operation.op === "handoverInterrupt" || operation.op === "drain" || operation.op === "probe") {
    if (after.interruptions > before.interruptions) ids.add("POL-011")
  }
  if (operation.op === "interruptStatement" || operation.op === "interruptCommit") {
    ids.add("POL-011")
    ids.add("POL-004")
    if (operation.op === "interruptStatement") ids.add("POL-012")
    if (operation.op === "interruptCommit" && after.ops[operation.id]!.spec.failing) ids.add("POL-005")
  }
  if (operation.op === "release") ids.add("POL-004")
  if (operation.op === "release" && operation.reborrow !== null) ids.add("POL-010")
  for (const id of after.order) {
    const op = after.ops[id]!
    const was = before.ops[id]
    const changed = was === undefined || was.status !== op.status || was.refusals !== op.refusals || was.received.length !== op.received.length
    if (!changed) continue
    if (op.statements > 0) ids.add("POL-003")
    if (op.refusals > (was?.refusals ?? 0)) {
      ids.add("POL-008")
      ids.add("POL-009")
    }
    if (op.grantedBy === "handover" && was?.grantedBy === "none") {
      ids.add("POL-002")
      ids.add("POL-010")
    }
    if (op.grantedBy === "passedOn" && was?.grantedBy === "none") ids.add("POL-011")
    if (op.spec.inside !== null && op.spec.kind === "borrow") ids.add("POL-004")
    if (op.spec.kind === "notify" && (op.spec.inside !== null || op.spec.longChannel)) ids.add("POL-006")
    if (op.spec.kind === "listen" && op.received.length > (was?.received.length ?? 0)) ids.add("POL-006")
    if (op.spec.kind === "transaction" && op.spec.failing && op.status === "failed") ids.add("POL-005")
    if (op.spec.retry && op.refusals > 0 && op.status !== "pending") ids.add("POL-007")
    if (op.spec.retry && op.failure === "error") ids.add("POL-012")
  }
  return [...ids].sort()
}
