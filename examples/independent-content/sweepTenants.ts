/**
 * Which tenants one sweep pass visits (K6 parameters): forced, every registered tenant, recording
 * nothing; otherwise at most `sweepTenants` tenants not swept for `sweepIntervalMs`, the longest
 * waiting first, each marked swept at the pass's start in the same statement (on Postgres skipping
 * tenants a concurrent pass holds).
 */
import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import type { StoreContext } from "./context.ts"

/** The tenants this pass sweeps, in tenant order. */
export const claimTenants = (
  ctx: StoreContext,
  force: boolean,
  startedMs: number
): Effect.Effect<ReadonlyArray<string>, SqlError> => {
  const { sql, settings, d } = ctx
  const rows = force
    ? sql<{ readonly tenant_id: string }>`SELECT tenant_id FROM tenant_content_sweeps`
    : sql<{ readonly tenant_id: string }>`
      UPDATE tenant_content_sweeps SET swept_at_ms = ${startedMs}
      WHERE tenant_id IN (
        SELECT tenant_id FROM tenant_content_sweeps
        WHERE swept_at_ms <= ${startedMs - settings.sweepIntervalMs}
        ORDER BY swept_at_ms, tenant_id
        LIMIT ${settings.sweepTenants} ${sql.literal(d.skipLocked)})
      RETURNING tenant_id`
  return Effect.map(rows, (found) =>
    found.map((row) => row.tenant_id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  )
}
