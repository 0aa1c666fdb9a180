/**
 * Own: attach and verify bind the grant to the tenant it names instead of the tenant attaching, so
 * another tenant's grant is accepted.
 *
 * Breaks the refusal of foreign grants (CNT-005).
 */
import { knownBadContent } from "./kit.ts"

const tenantNamed = (grant: string): string | undefined => {
  try {
    const payload = grant.split(".")[1] ?? ""
    const text = atob(payload.replace(/-/g, "+").replace(/_/g, "/"))
    const tenant = (JSON.parse(text) as { readonly tenant?: unknown }).tenant
    return typeof tenant === "string" ? tenant : undefined
  } catch {
    return undefined
  }
}

/** Tenant taken from the grant. */
export const foreignGrantAccepted = knownBadContent({
  name: "foreign-grant-accepted",
  bug: "the grant is checked against the tenant it names, not the tenant attaching",
  breaks: ["CNT-005"],
  pieces: {
    verifyGrant: (grants, grant, bound, nowMs, skewMs) => grants.verify(grant, { ...bound, tenant: tenantNamed(grant) ?? bound.tenant }, nowMs, skewMs)
  }
})
