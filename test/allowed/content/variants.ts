/**
 * Allowed variants of the content store: the shipped store with one choice changed that
 * `reference/content.md` leaves to the implementation. Every content suite must pass each of them
 * (`passes.test.ts`); a verdict that fails one checks something no rule requires.
 */
import { Effect, Result } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { type AllowedVariant, buildAllowedVariant, wrappedAllowedVariant } from "../../../harness/allowedVariant.ts"
import { hookPoint } from "../../../harness/HookPoints.ts"
import type { ContentImplementation, ContentRef, ContentStore, GrantBound } from "../../../subjects/content/api.ts"
import { readInteger } from "../../../subjects/content/dialect.ts"
import { shippedContent } from "../../../subjects/content/index.ts"
import { type ContentPieces, defaultContentPieces } from "../../../subjects/content/pieces.ts"
import { CONTENTS_TABLE, REFS_TABLE, tenantRoutingKey } from "../../../subjects/content/schema.ts"
import { contentPieceKit } from "../../known-bad/content/kit.ts"
import { hooklessOf } from "../../support/withoutHookPoints.ts"

/** The tenants of each pass in reverse order of id (upstream's query has no ORDER BY). */
export const reversedTenantsOfPass: ContentPieces["tenantsOfPass"] = (statements, force, nowMs, intervalMs, limit) =>
  Effect.map(defaultContentPieces.tenantsOfPass(statements, force, nowMs, intervalMs, limit), (tenants) => [...tenants].reverse())

/** Reads every reference of the tenant and keeps the candidate hashes among them (a wider scan, same answer). */
export const wholeTenantScanReferences: ContentPieces["scanReferences"] = (statements, tenant, hashes) =>
  Effect.map(
    statements.sql<Record<string, unknown>>`SELECT hash FROM ${statements.sql(REFS_TABLE)} WHERE tenant_id = ${tenant}`,
    (rows) => {
      const wanted = new Set(hashes)
      return new Set(rows.map((row) => String(row["hash"])).filter((hash) => wanted.has(hash)))
    }
  )

/**
 * Raises the horizon only when it grows (`... AND granted_until_ms < until`), reading it otherwise:
 * the no-op write of an unchanged horizon is not sent.
 */
export const noOpSkippingRaiseGrant: ContentPieces["raiseGrant"] = (statements, bound, untilMs) =>
  Effect.gen(function*() {
    yield* hookPoint("content.beforeRaise")
    const { sql } = statements
    return yield* sql.withTransaction(Effect.gen(function*() {
      const raised = yield* sql<Record<string, unknown>>`UPDATE ${sql(CONTENTS_TABLE)} SET granted_until_ms = ${untilMs}
        WHERE routing_key = ${tenantRoutingKey(bound.tenant)} AND tenant_id = ${bound.tenant} AND hash = ${bound.hash}
          AND size = ${bound.size} AND granted_until_ms < ${untilMs} RETURNING granted_until_ms`
      const horizon = raised[0] === undefined
        ? yield* statements.horizonOf(bound.tenant, bound.hash, bound.size)
        : readInteger(raised[0]["granted_until_ms"])
      yield* hookPoint("content.afterRaise")
      return horizon
    }))
  })

/**
 * On a single-writer engine (two statements, as the shipped store): reads which candidates are still
 * below the re-check, deletes their chunks, then their rows, in one transaction (the shipped store
 * deletes the rows first). Postgres keeps the shipped one-statement delete.
 */
export const chunksFirstDeleteUnreferenced: ContentPieces["deleteUnreferenced"] = (statements, tenant, hashes, recheckBeforeMs) => {
  if (statements.dialect.deleteInOneStatement) return defaultContentPieces.deleteUnreferenced(statements, tenant, hashes, recheckBeforeMs)
  const { sql } = statements
  return sql.withTransaction(Effect.gen(function*() {
    const due = yield* sql<Record<string, unknown>>`SELECT hash FROM ${sql(CONTENTS_TABLE)}
      WHERE routing_key = ${tenantRoutingKey(tenant)} AND tenant_id = ${tenant}
        AND ${sql.in("hash", hashes)} AND granted_until_ms < ${recheckBeforeMs}`
    const dueHashes = due.map((row) => String(row["hash"]))
    yield* statements.deleteChunks(tenant, dueHashes)
    const gone = dueHashes.length === 0 ? [] : yield* statements.deleteRows(tenant, dueHashes, recheckBeforeMs)
    yield* hookPoint("content.afterDelete")
    return gone.length
  }))
}

/** The bound a grant's payload names, when the grant has the shipped encoding; else undefined. */
export const signedBoundOf = (grant: string): GrantBound | undefined => {
  const text = Base64Url.decodeString(grant.split(".")[1] ?? "")
  if (Result.isFailure(text)) return undefined
  try {
    const { tenant, hash, size } = JSON.parse(text.success) as Record<string, unknown>
    return typeof tenant === "string" && typeof hash === "string" && typeof size === "number" ? { tenant, hash, size } : undefined
  } catch {
    return undefined
  }
}

/**
 * Refuses a genuine grant that is both for another bound and expired as `expired` (the shipped
 * store says `invalid`): the expiry is checked before the bound.
 */
export const expiryFirstVerifyGrant: ContentPieces["verifyGrant"] = (grants, grant, bound, nowMs, skewMs) =>
  Effect.gen(function*() {
    const verified = yield* grants.verify(grant, bound, nowMs, skewMs)
    if (Result.isSuccess(verified) || verified.failure !== "invalid") return verified
    const signed = signedBoundOf(grant)
    if (signed === undefined) return verified
    const own = yield* grants.verify(grant, signed, nowMs, skewMs)
    return Result.isFailure(own) && own.failure === "expired" ? own : verified
  })

/** The text prefix of the `grant-text-prefixed` variant's grants. */
export const GRANT_TEXT_PREFIX = "g2~"

const prefixed = (ref: ContentRef): ContentRef => ({ ...ref, grant: `${GRANT_TEXT_PREFIX}${ref.grant}` })
/** The shipped grant inside a prefixed one; a text without the prefix becomes one no store signs. */
const unprefixed = (grant: string): string => (grant.startsWith(GRANT_TEXT_PREFIX) ? grant.slice(GRANT_TEXT_PREFIX.length) : "not a grant")

/** The shipped store whose grants are written `g2~<shipped grant>` (another encoding of the same MAC). */
const prefixedGrantStore = (store: ContentStore): ContentStore => ({
  ...store,
  uploadBytes: (tenant, bytes) => Effect.map(store.uploadBytes(tenant, bytes), prefixed),
  uploadStream: (tenant, body, limit) => Effect.map(store.uploadStream(tenant, body, limit), prefixed),
  grant: (tenant, hash, size) => Effect.map(store.grant(tenant, hash, size), (granted) => granted._tag === "Some" ? { ...granted, value: prefixed(granted.value) } : granted),
  attach: (attachment) => store.attach({ ...attachment, ref: { ...attachment.ref, grant: unprefixed(attachment.ref.grant) } }),
  verify: (grant, bound) => store.verify(unprefixed(grant), bound)
})

/** The allowed variants of the content store. */
export const contentAllowedVariants: ReadonlyArray<AllowedVariant<ContentImplementation>> = [
  buildAllowedVariant(contentPieceKit, {
    name: "tenants-reversed",
    freedom: "K6 fixes what a pass sweeps per tenant, not the order it takes its tenants in (upstream's query has no ORDER BY)",
    pieces: { tenantsOfPass: reversedTenantsOfPass }
  }),
  buildAllowedVariant(contentPieceKit, {
    name: "references-scanned-whole-tenant",
    freedom: "K6 asks which candidate hashes are referenced, not how narrow the scan is: reading every reference of the tenant gives the same set",
    pieces: { scanReferences: wholeTenantScanReferences }
  }),
  buildAllowedVariant(contentPieceKit, {
    name: "raise-skips-no-op-write",
    freedom: "K4 fixes the horizon (greatest) and (iii) the lock order of a raise that races a delete, not whether an unchanged horizon is written again",
    pieces: { raiseGrant: noOpSkippingRaiseGrant }
  }),
  buildAllowedVariant(contentPieceKit, {
    name: "chunks-deleted-before-rows",
    freedom: "K6 \"together\" fixes that a row and its chunks commit together; on a single-writer engine (two statements of one transaction) their order is open",
    pieces: { deleteUnreferenced: chunksFirstDeleteUnreferenced }
  }),
  buildAllowedVariant(contentPieceKit, {
    name: "expiry-checked-before-bound",
    freedom: "K5 names the reasons invalid and expired but no priority between them: a genuine grant for another bound that is also expired may be refused as either",
    pieces: { verifyGrant: expiryFirstVerifyGrant }
  }),
  wrappedAllowedVariant({
    name: "grant-text-prefixed",
    freedom: "K4 fixes what a grant's MAC covers, not the grant's text: the shipped grant behind a version prefix is another encoding of it"
  }, (reportName) => ({ name: reportName, make: (options) => Effect.map(shippedContent.make(options), prefixedGrantStore) }))
]

/**
 * The shipped store without hook points: allowed (DESIGN.md: an implementation faithful to upstream,
 * without our hook points, must pass), but not yet passing. The content races reach a sweep between
 * its reference scan and its delete only through the hook point `content.afterReferenceScan`, so
 * without it CNT-010 and CNT-011 are `unknown` (reached by no scenario), and on postgres CNT-012 too
 * (its lock races hold a transaction open at `content.afterDelete` / `content.afterRaise`);
 * `passes.test.ts` pins that gap on sqlite until the harness can pause an operation at a storage
 * transaction or statement instead.
 */
export const contentWithoutHookPoints: AllowedVariant<ContentImplementation> = wrappedAllowedVariant({
  name: "without-hook-points",
  freedom: "hook points are optional refinements (DESIGN.md: an implementation faithful to upstream, without our hook points, must pass)"
}, (reportName) => hooklessOf(shippedContent, reportName))
