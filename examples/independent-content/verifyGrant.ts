/**
 * K4/K5: judging a grant presented for `(tenant, hash, size)`, in this order: not a grant
 * (`malformed`), not signed for these (`invalid`), expiring at or before NOW + S (`expired`).
 */
import { Effect, Result } from "effect"
import type { GrantBound, InvalidContentRefReason } from "../../subjects/content/api.ts"
import { nowMs, type StoreContext } from "./context.ts"

/**
 * A grant's expiry, or why it is refused: malformed, then not signed for `bound`, then expiring at
 * or before NOW + S.
 */
export const verifyGrant = (ctx: StoreContext, grant: string, bound: GrantBound) =>
  Effect.map(nowMs, (now): Result.Result<number, InvalidContentRefReason> => {
    const verified = ctx.grants.verify(grant, bound)
    if (Result.isFailure(verified)) return verified
    return verified.success <= now + ctx.settings.skewMs ? Result.fail("expired") : verified
  })
