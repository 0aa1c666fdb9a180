/**
 * Real bug: the reference scan misses a key range (here: actors from `n` on, as a scatter that skipped
 * a shard would), so content referenced only from there is deleted.
 *
 * Breaks clause (i) (CNT-009).
 */
import { Effect } from "effect"
import { knownBadContent } from "./kit.ts"

/** The scan misses actors >= 'n'. */
export const scanMissesKeyRange = knownBadContent({
  name: "scan-misses-key-range",
  bug: "the reference scan covers actors below 'n' only (a missed shard or key range)",
  breaks: ["CNT-009"],
  pieces: {
    scanReferences: (statements, tenant, hashes) =>
      Effect.map(
        statements.sql<Record<string, unknown>>`SELECT DISTINCT hash FROM actor_content_refs
          WHERE tenant_id = ${tenant} AND actor < 'n' AND ${statements.sql.in("hash", hashes)}`,
        (rows) => new Set(rows.map((row) => String(row["hash"])))
      )
  }
})
