/**
 * The sweep of the content model (K6) and the guarantee around it ((i)-(iii), the deletion bounds).
 *
 * The model follows the pass batch by batch, as upstream does: the tenants of the pass (a forced pass
 * takes every registered tenant and records nothing; otherwise one transaction claims the tenants due
 * and records the sweep), then per tenant the candidates below `sweepStart - G - T - S` paged by
 * `(granted_until, hash)`, the reference scan, and one transaction deleting the unreferenced
 * candidates still below `sweepStart - T - S` together with their chunks. A racing operation runs
 * between the first reference scan and its delete, or after the pass; a storage fault stops the pass
 * at its transaction. Upstream runs the claim and each delete as one auto-committed statement instead:
 * the storage boundary counts and faults each as a transaction of its own (`harness/AutoCommittedWrites.ts`),
 * so the numbering is the same for either layout.
 */
import type { ContentOperation, RacingOperation, ReachedFault } from "./operations.ts"
import { faultCommitted, faultResult, type ModelResult, success } from "./results.ts"
import { type ContentModelState, isReferenced, type ModelContent, withEntry } from "./state.ts"
import { compareCodeUnits } from "../../harness/CodeUnitOrder.ts"
import { everyOrder } from "../../harness/Alternatives.ts"

/** What a pass did. */
export interface SweepRun {
  readonly state: ContentModelState
  readonly result: ModelResult
  /** Rules whose situations the pass reached. */
  readonly situations: ReadonlyArray<string>
  /**
   * The implementation reached a fault in a transaction past the pass's own: it is built differently,
   * so where it stopped is unknown; each content row and registration may be as before or as after.
   */
  readonly uncertain: boolean
  /** Per delete transaction, in order: the content keys it targets and those it deletes. */
  readonly deletes: ReadonlyArray<{ readonly targets: ReadonlyArray<string>; readonly deleted: ReadonlyArray<string> }>
  /** The racing operation's predicted outcome, when there was one. */
  readonly competitor?: { readonly state: ContentModelState; readonly result: ModelResult; readonly rules: ReadonlyArray<string> }
}

/** Applies a racing operation (the model's step for it). */
export type ApplyRacing = (state: ContentModelState, operation: RacingOperation) => { readonly state: ContentModelState; readonly result: ModelResult; readonly rules: ReadonlyArray<string> }

/** Mutable bookkeeping of one pass. */
interface Pass {
  state: ContentModelState
  transactions: number
  stopped: ReachedFault | null
  deleted: number
  situations: Set<string>
  competitor: SweepRun["competitor"]
  deletes: Array<{ readonly targets: ReadonlyArray<string>; readonly deleted: Array<string> }>
  /** Batches with candidates so far (each had its reference scan). */
  batches: number
}

const byPage = (a: ModelContent, b: ModelContent): number =>
  a.grantedUntilMs - b.grantedUntilMs || compareCodeUnits(a.hash, b.hash)

/** Counts a transaction; true when the fault stops the pass here (after `commit` ran if it committed). */
const transaction = (pass: Pass, fault: ReachedFault | undefined, commit: () => void): boolean => {
  pass.transactions++
  const struck = fault !== undefined && fault.transaction === pass.transactions
  if (!struck || faultCommitted(fault)) commit()
  if (struck) pass.stopped = fault
  return struck
}

/** `tenants` in `order` (those it does not name after those it names, by id). */
export const inTenantOrder = (tenants: ReadonlyArray<string>, order: ReadonlyArray<string> | undefined): ReadonlyArray<string> => {
  const byId = [...tenants].sort()
  if (order === undefined) return byId
  const rank = (tenant: string) => (order.includes(tenant) ? order.indexOf(tenant) : order.length)
  return byId.sort((a, b) => rank(a) - rank(b) || compareCodeUnits(a, b))
}

/** The tenants of the pass, in the op's order; a non-forced pass claims them in one transaction. */
const tenantsOf = (pass: Pass, op: Extract<ContentOperation, { kind: "sweep" }>): ReadonlyArray<string> => {
  const config = pass.state.config
  const registered = inTenantOrder(Object.keys(pass.state.sweptAtMs), op.tenantOrder)
  if (op.force) return registered
  const due = registered.filter((tenant) => pass.state.sweptAtMs[tenant]! <= op.atMs - config.sweepIntervalMs).slice(0, config.sweepTenants)
  const struck = transaction(pass, op.fault, () => {
    let sweptAtMs = pass.state.sweptAtMs
    for (const tenant of due) sweptAtMs = withEntry(sweptAtMs, tenant, op.atMs)
    pass.state = { ...pass.state, sweptAtMs }
  })
  return struck ? [] : due
}

/** Notes the situations a tenant's content puts the pass in (coverage of the guarantee). */
const noteSituations = (pass: Pass, tenant: string, atMs: number, force: boolean): void => {
  const config = pass.state.config
  for (const content of Object.values(pass.state.contents)) {
    if (content.tenant !== tenant) continue
    const pastHorizon = content.grantedUntilMs < atMs - config.graceMs - config.turnMs - config.skewMs
    const referenced = isReferenced(pass.state, tenant, content.hash)
    if (referenced && pastHorizon) pass.situations.add("(i)")
    if (!referenced && !pastHorizon) pass.situations.add("earliest")
    // Past the horizon the last registered turn would give, within the one the longest recorded turn gives.
    const pastShorterTurn = content.grantedUntilMs < atMs - config.graceMs - pass.state.registeredTurnMs - config.skewMs
    if (!referenced && !pastHorizon && pastShorterTurn) pass.situations.add("longestTurn")
    if (!referenced && pastHorizon && force) pass.situations.add("latest")
  }
}

/** One tenant's batches. */
const sweepTenant = (pass: Pass, op: Extract<ContentOperation, { kind: "sweep" }>, tenant: string, race: ApplyRacing) => {
  const config = pass.state.config
  const candidateBefore = op.atMs - config.graceMs - config.turnMs - config.skewMs
  const recheckBefore = op.atMs - config.turnMs - config.skewMs
  noteSituations(pass, tenant, op.atMs, op.force)
  let after: ModelContent | undefined
  for (let batch = 0; batch <= Object.keys(pass.state.contents).length; batch++) {
    const candidates = Object.values(pass.state.contents)
      .filter((content) => content.tenant === tenant && content.grantedUntilMs < candidateBefore && (after === undefined || byPage(content, after) > 0))
      .sort(byPage)
      .slice(0, config.sweepBatch)
    if (candidates.length === 0) return
    after = candidates[candidates.length - 1]!
    const unreferenced = candidates.filter((content) => !isReferenced(pass.state, tenant, content.hash))
    pass.batches++
    if (op.competitor?.betweenScanAndDelete === true && pass.competitor === undefined && pass.batches === (op.competitor.atBatch ?? 1)) {
      pass.competitor = race(pass.state, op.competitor.operation)
      pass.state = pass.competitor.state
    }
    if (unreferenced.length === 0) continue
    const record = { targets: unreferenced.map((candidate) => `${tenant}/${candidate.hash}`), deleted: [] as Array<string> }
    pass.deletes.push(record)
    const struck = transaction(pass, op.fault, () => {
      let contents = pass.state.contents
      let spared = 0
      for (const key of record.targets) {
        const now = contents[key]
        if (now !== undefined && now.grantedUntilMs < recheckBefore) {
          contents = withEntry(contents, key, undefined)
          record.deleted.push(key)
          pass.deleted++
        } else if (now !== undefined) {
          spared++
        }
      }
      // One delete whose re-check spares a candidate raised since the scan ((iii)) and deletes another.
      if (spared > 0 && record.deleted.length > 0) pass.situations.add("recheckSplitsBatch")
      pass.state = { ...pass.state, contents }
    })
    if (struck) return
  }
}

/** K6: one sweep pass at `op.atMs`, with its racing operation and fault. */
export const sweep = (state: ContentModelState, op: Extract<ContentOperation, { kind: "sweep" }>, race: ApplyRacing): SweepRun => {
  const pass: Pass = { state, transactions: 0, stopped: null, deleted: 0, situations: new Set(["K6"]), competitor: undefined, deletes: [], batches: 0 }
  if (op.competitor?.beforeSweep === true) {
    pass.competitor = race(pass.state, op.competitor.operation)
    pass.state = pass.competitor.state
  }
  for (const tenant of tenantsOf(pass, op)) {
    if (pass.stopped !== null) break
    sweepTenant(pass, op, tenant, race)
  }
  if (pass.deleted > 0) pass.situations.add("together")
  if (op.competitor !== undefined && pass.competitor === undefined) {
    pass.competitor = race(pass.state, op.competitor.operation)
    pass.state = pass.competitor.state
  }
  // A fault the implementation reached in a transaction past the pass's own struck after all of them.
  const stopped = pass.stopped ?? (op.fault !== undefined && op.fault.transaction > pass.transactions ? op.fault : null)
  const result = stopped === null ? success(pass.deleted) : faultResult(stopped)
  const uncertain = pass.stopped === null && stopped !== null
  return { state: pass.state, result, uncertain, situations: [...pass.situations], deletes: pass.deletes, ...(pass.competitor === undefined ? {} : { competitor: pass.competitor }) }
}

/** Bound on the tenants whose orders `sweepAlternatives` spells out (4: 24 orders). */
const MAX_ORDERED_TENANTS = 4

/**
 * The sweeps K6 allows for `op`: one per order of the registered tenants, by id first (as `op`).
 * A step is judged by the first the implementation agrees with (`harness/Alternatives.ts`). Past
 * `MAX_ORDERED_TENANTS` tenants only the order by id is spelled out.
 */
export const sweepAlternatives = (state: ContentModelState, op: Extract<ContentOperation, { kind: "sweep" }>): ReadonlyArray<Extract<ContentOperation, { kind: "sweep" }>> => {
  const tenants = Object.keys(state.sweptAtMs).sort()
  if (tenants.length <= 1 || tenants.length > MAX_ORDERED_TENANTS || op.tenantOrder !== undefined) return [op]
  return everyOrder(tenants).map((order, index) => (index === 0 ? op : { ...op, tenantOrder: order }))
}

