/**
 * Requirement catalog of the `content` subject (reference page `content.md`: rules K1-K7, the
 * guarantee clauses (i)-(iii), "content and chunks go together" and the two bounds on deletion time).
 * Rule labels: `K1`..`K7`, `(i)`, `(ii)`, `(iii)`, `together`, `earliest`, `latest`, and `rowlock` for the
 * part of (iii) that only truly concurrent transactions can show (the row lock orders them).
 */
import { type Attributor, makeAttributor } from "../harness/Attribution.ts"
import type { Requirement } from "./Requirement.ts"
import type { CapabilityName } from "../adapters/contract.ts"

const SINCE = "0.2.0"

const content = (id: string, title: string, text: string, rules: ReadonlyArray<string>, needs: ReadonlyArray<CapabilityName> = []): Requirement => ({
  id,
  subject: "content",
  title,
  text,
  rules,
  since: SINCE,
  needs
})

/** Every requirement of the content subject. */
export const contentRequirements: ReadonlyArray<Requirement> = [
  content("CNT-001", "identity is (tenant, sha256)",
    "Content MUST be identified by (tenant, lowercase hex SHA-256 of its bytes); uploading bytes a tenant already holds MUST return the same hash and size and write no new chunks, and deduplication MUST NOT cross tenants.",
    ["K1"]),
  content("CNT-002", "upload of bytes",
    "An upload of bytes MUST, in one transaction, register the tenant for sweeping, upsert the content row with granted_until = greatest(old, NOW + L), and write chunks 0..n-1 (chunk 0 even for empty content) only when the row is new; it MUST return {hash, size, grant} whose grant expires at the returned granted_until.",
    ["K2"]),
  content("CNT-003", "upload of a stream; size limit",
    "A streamed upload MUST store exactly what an upload of the same bytes stores; a body past the limit (64 MiB by default) MUST fail with ContentTooLarge and a failing body with its own error, and in both cases no part of the body, row or chunk MUST stay.",
    ["K3"]),
  content("CNT-004", "grants raise the horizon monotonically",
    "grant MUST raise granted_until to greatest(old, NOW + L) and return a grant expiring then, and MUST answer none when the content (with that size) no longer exists.",
    ["K4"]),
  content("CNT-005", "forged, foreign, mis-sized, malformed and tampered grants are refused",
    "A grant MUST be a MAC over {tenant, hash, size, expiresAt}; attach and verify MUST refuse a grant with a forged MAC, another tenant's grant, a grant for another hash or size ('invalid'), a string that is not a grant ('malformed') and a signed grant whose text was changed (appended to, truncated, a character replaced: 'malformed' or 'invalid', as the encoding makes it), writing nothing.",
    ["K5", "K4"]),
  content("CNT-006", "attach checks expiry against NOW + S; detach deletes one reference",
    "attach MUST check the grant only (never the content row), MUST refuse with 'expired' a grant expiring at or before NOW + S, and otherwise MUST record the reference (tenant, actor, blob, name, hash, size); detach MUST delete exactly that reference.",
    ["K5"]),
  content("CNT-007", "sweep candidates, re-check, schedule and count",
    "A sweep MUST take as candidates content with granted_until < sweepStart - G - T - S paged by (granted_until, hash), delete the unreferenced ones whose granted_until is still < sweepStart - T - S when the delete reads the row, return the number of content rows deleted, sweep a tenant at most once per interval unless forced, and MUST NOT record a forced sweep as the tenant's sweep.",
    ["K6"]),
  content("CNT-008", "reads and streams: bytes or none, never partial",
    "read MUST return the bytes only when chunks 0..n-1 are all present and sum to the size asked, otherwise none; stream MUST check the same before emitting anything (failing with NoSuchElementError), and an interrupted stream MUST leave storage unchanged.",
    ["K7"]),
  content("CNT-009", "(i) a reference visible to the scan keeps its content",
    "A sweep MUST NOT delete content that a reference visible to its reference scan names, in any tenant, shard or key range.",
    ["(i)", "K6"]),
  content("CNT-010", "(ii) a reference committed after the scan keeps its content",
    "A reference attached after the sweep's reference scan, under a grant valid at attach, MUST keep its content: the delete's re-check against sweepStart - T - S MUST refuse it.",
    ["(ii)", "K5", "K6"]),
  content("CNT-011", "(iii) a grant or upload racing the delete",
    "A grant or upload racing the sweep's delete MUST be ordered with it: if the raise comes first the content MUST stay; if the delete comes first grant MUST answer none and an upload MUST re-insert the row and all its chunks.",
    ["(iii)", "K4", "K6"]),
  content("CNT-012", "(iii) the row lock orders truly concurrent transactions",
    "On an engine with independent connections and row locks, a grant or upload that reaches a content row the sweep's delete has locked (or the delete reaching a row a raise has locked) MUST wait for that transaction (observed with pg_blocking_pids), and the outcome MUST be that of the order the lock imposed.",
    ["rowlock", "(iii)"],
    ["independentConnections", "rowLocks"]),
  content("CNT-013", "content and its chunks go together",
    "A content row and its chunks MUST disappear together or not at all, and every stored content row MUST have all its chunks: no crash or interleaving MAY leave a row without complete chunks or chunks without a row.",
    ["together", "K6"]),
  content("CNT-014", "no deletion before granted_until + G + T + S",
    "Unreferenced content MUST NOT be deleted by a sweep that starts at or before granted_until + G + T + S.",
    ["earliest", "K6"]),
  content("CNT-015", "a forced sweep deletes by then",
    "Unreferenced content whose granted_until + G + T + S lies before a forced sweep's start MUST be deleted by that sweep.",
    ["latest", "K6"])
]

/** Attribution over the content catalog (the fallback names "together", the catch-all invariant). */
export const contentAttributor: Attributor = makeAttributor(contentRequirements, "CNT-013")
