import type { BlindBugSet } from "./BlindBug.ts"

/** A second blind set for content, written by another author who had not read the suite. */
export const bugs: BlindBugSet = {
  subject: "content",
  implementation: "examples/independent-content",
  bugs: [
    {
      id: "sqlite-sweep-deletes-autocommit",
      file: "examples/independent-content/sweepBatch.ts",
      find: "  return sql.withTransaction(\n    Effect.gen(function*() {\n      const gone",
      replace: "  return (\n    Effect.gen(function*() {\n      const gone",
      rules: ["K6", "K7"],
      summary: "Drop the transaction around the two SQLite deletes: the client has one connection, so nothing can run between them anyway.",
      observable: "A crash or storage failure between the row delete and the chunk delete leaves chunks with no row: read still returns the bytes while grant answers None, and re-uploading the same bytes fails on the chunk primary key."
    },
    {
      id: "turn-budget-upsert-compares-excluded",
      file: "examples/independent-content/schema.ts",
      find: "DO UPDATE SET turn_ms = ${d.larger(\"actor_content_types.turn_ms\", turnMs)}",
      replace: "DO UPDATE SET turn_ms = ${d.larger(\"excluded.turn_ms\", turnMs)}",
      rules: ["K6"],
      summary: "Compare the turn budget against the upserted row's value in the ON CONFLICT clause, as attach's upsert does.",
      observable: "Re-making the store (a restart) with a smaller turnMs lowers the recorded T, so the sweep deletes unreferenced content before granted_until + G + T + S for the longer turn recorded earlier."
    },
    {
      id: "grant-raise-ignores-size",
      file: "examples/independent-content/grantContent.ts",
      find: "WHERE tenant_id = ${tenant} AND hash = ${hash} AND size = ${size}",
      replace: "WHERE tenant_id = ${tenant} AND hash = ${hash}",
      rules: ["K4"],
      summary: "The hash already identifies the bytes, so the grant's UPDATE only needs tenant and hash.",
      observable: "grant(tenant, hash, wrongSize) answers Some with a grant signed for the wrong size (which attach then accepts) instead of None."
    },
    {
      id: "reattach-keeps-old-reference",
      file: "examples/independent-content/references.ts",
      find: "ON CONFLICT (tenant_id, actor, blob, name) DO UPDATE SET hash = excluded.hash, size = excluded.size",
      replace: "ON CONFLICT (tenant_id, actor, blob, name) DO NOTHING",
      rules: ["K5", "K6"],
      summary: "Make attach idempotent: a repeated attach under the same name leaves the existing reference row alone.",
      observable: "Attaching new content under a name already in use succeeds but the reference still names the old content, so the newly attached content is swept once its horizon passes."
    },
    {
      id: "forced-sweep-stamps-tenants",
      file: "examples/independent-content/sweepTenants.ts",
      find: "? sql<{ readonly tenant_id: string }>`SELECT tenant_id FROM tenant_content_sweeps`",
      replace: "? sql<{ readonly tenant_id: string }>`UPDATE tenant_content_sweeps SET swept_at_ms = ${startedMs} RETURNING tenant_id`",
      rules: ["K6"],
      summary: "A forced pass sweeps every tenant, so stamp them as swept too and let the hourly pass skip the work already done.",
      observable: "After a forced sweep, non-forced sweeps in the next interval skip every tenant, so content that becomes deletable in the meantime is not deleted by them."
    },
    {
      id: "empty-upload-writes-no-chunk",
      file: "examples/independent-content/chunks.ts",
      find: "const count = Math.max(1, Math.ceil(bytes.byteLength / chunkBytes))",
      replace: "const count = Math.ceil(bytes.byteLength / chunkBytes)",
      rules: ["K2", "K7"],
      summary: "The chunk count is simply ceil(size / chunkBytes); the max() around it was noise.",
      observable: "Uploading empty bytes stores a row with no chunk 0: read and stream of that empty content answer None, and uploading it again does not repair it."
    },
    {
      id: "read-failure-reads-as-missing",
      file: "examples/independent-content/reads.ts",
      find: "    Effect.map((rows) => Option.map(completeChunks(rows, size), (parts) => joinParts(parts, size)))\n  )",
      replace: "    Effect.map((rows) => Option.map(completeChunks(rows, size), (parts) => joinParts(parts, size))),\n    Effect.orElseSucceed(() => Option.none<Uint8Array>())\n  )",
      rules: ["K7"],
      summary: "A read that cannot fetch the chunks has no bytes to give, so answer None rather than failing the caller.",
      observable: "A storage failure during read of stored, complete content answers None (as if swept) instead of failing with SqlError."
    },
    {
      id: "upsert-vanished-row-not-reinserted",
      file: "examples/independent-content/contentRow.ts",
      find: "    if (raised[0] !== undefined) {\n      return { inserted: false, grantedUntilMs: toNumber(raised[0].granted_until_ms) } satisfies UpsertedRow\n    }",
      replace: "    return { inserted: false, grantedUntilMs: raised[0] === undefined ? until : toNumber(raised[0].granted_until_ms) } satisfies UpsertedRow",
      rules: ["K2", "K6"],
      summary: "If the raise finds the row gone it was only just swept; report the horizon we meant to set instead of looping on insert attempts.",
      observable: "An upload racing a sweep that deletes the row between its insert and its raise returns a ref, but neither row nor chunks exist: grant and read answer None instead of the upload re-inserting them."
    }
  ]
}
