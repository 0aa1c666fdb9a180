/**
 * K6: the sweep. Per tenant: `sweepStart = NOW`; candidates have a horizon below
 * `sweepStart - G - T - S`, paged by `(granted_until_ms, hash)`; each batch is scanned for references
 * and its unreferenced candidates deleted if their horizon is still below `sweepStart - T - S`.
 */
import { Effect } from "effect"
import { nowMs, type StoreContext } from "./context.ts"
import { toNumber } from "./rows.ts"
import { longestTurnMs } from "./schema.ts"
import { deleteUnreferenced, referencedHashes } from "./sweepBatch.ts"
import { claimTenants } from "./sweepTenants.ts"

/** One candidate row and its place in the page order. */
interface Candidate {
  readonly hash: string
  readonly granted_until_ms: unknown
}

/** The next page of candidates after `after` (none: from the start). */
const candidatePage = (
  ctx: StoreContext,
  tenant: string,
  candidateBeforeMs: number,
  after: { readonly grantedUntilMs: number; readonly hash: string } | undefined
) => {
  const { sql } = ctx
  const cursor = after === undefined
    ? sql.literal("")
    : sql`AND (granted_until_ms > ${after.grantedUntilMs} OR (granted_until_ms = ${after.grantedUntilMs} AND hash > ${after.hash}))`
  return sql<Candidate>`SELECT hash, granted_until_ms FROM tenant_contents
    WHERE tenant_id = ${tenant} AND granted_until_ms < ${candidateBeforeMs} ${cursor}
    ORDER BY granted_until_ms, hash LIMIT ${ctx.settings.sweepBatch}`
}

/** Sweeps one tenant with turn bound `turnMs`; the number of content rows deleted. */
const sweepTenant = Effect.fnUntraced(function*(ctx: StoreContext, tenant: string, turnMs: number) {
  const { graceMs, skewMs } = ctx.settings
  const sweepStart = yield* nowMs
  const candidateBeforeMs = sweepStart - graceMs - turnMs - skewMs
  const recheckBeforeMs = sweepStart - turnMs - skewMs
  let after: { grantedUntilMs: number; hash: string } | undefined = undefined
  let deleted = 0
  // Ends: the cursor strictly increases through a finite ordering, and a page past the last row is empty.
  for (;;) {
    const page: ReadonlyArray<Candidate> = yield* candidatePage(ctx, tenant, candidateBeforeMs, after)
    const last: Candidate | undefined = page.at(-1)
    if (last === undefined) return deleted
    after = { grantedUntilMs: toNumber(last.granted_until_ms), hash: last.hash }
    const hashes = page.map((row) => row.hash)
    const referenced = yield* referencedHashes(ctx, tenant, hashes)
    deleted += yield* deleteUnreferenced(ctx, tenant, hashes.filter((hash) => !referenced.has(hash)), recheckBeforeMs)
  }
})

/** One sweep pass over the due (or, forced, all) tenants; the number of content rows deleted. */
export const sweep = Effect.fnUntraced(function*(ctx: StoreContext, force: boolean) {
  const tenants = yield* claimTenants(ctx, force, yield* nowMs)
  const turnMs = yield* longestTurnMs(ctx.sql)
  let deleted = 0
  for (const tenant of tenants) deleted += yield* sweepTenant(ctx, tenant, turnMs)
  return deleted
})
