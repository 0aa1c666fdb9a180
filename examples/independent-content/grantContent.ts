/**
 * K4: a grant for stored content. The horizon is raised monotonically under the row lock, in one
 * statement, so a raise and a sweep's delete are ordered: a raise first moves the horizon past the
 * delete's re-check; a delete first leaves no row, and the answer is none ((iii)).
 */
import { Effect, Option } from "effect"
import type { ContentRef } from "../../subjects/content/api.ts"
import { nowMs, type StoreContext } from "./context.ts"
import { toNumber } from "./rows.ts"
import { refOf } from "./uploadBytes.ts"

/** Raises the horizon of `(tenant, hash)` of this `size` to at least NOW + L and signs a grant; none when no such row. */
export const grantContent = Effect.fnUntraced(function*(ctx: StoreContext, tenant: string, hash: string, size: number) {
  const until = (yield* nowMs) + ctx.settings.grantLifetimeMs
  const [row] = yield* ctx.sql<{ readonly granted_until_ms: unknown }>`
    UPDATE tenant_contents SET granted_until_ms = ${ctx.d.larger("tenant_contents.granted_until_ms", until)}
    WHERE tenant_id = ${tenant} AND hash = ${hash} AND size = ${size}
    RETURNING granted_until_ms`
  if (row === undefined) return Option.none<ContentRef>()
  return Option.some(refOf(ctx, tenant, hash, size, toNumber(row.granted_until_ms)))
})
