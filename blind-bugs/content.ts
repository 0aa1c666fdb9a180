import type { BlindBugSet } from "./BlindBug.ts"

export const bugs: BlindBugSet = {
  subject: "content",
  implementation: "examples/independent-content",
  bugs: [
    {
      id: "upload-size-limit-inclusive",
      file: "examples/independent-content/uploadBytes.ts",
      find: "if (bytes.byteLength > maxContentBytes)",
      replace: "if (bytes.byteLength >= maxContentBytes)",
      rules: ["K3"],
      summary: "Reject uploads that reach the maximum content size in uploadBytes.",
      observable: "Uploading bytes of exactly maxContentBytes (64 MiB by default) fails with ContentTooLarge instead of being stored."
    },
    {
      id: "candidate-horizon-without-skew",
      file: "examples/independent-content/sweep.ts",
      find: "const candidateBeforeMs = sweepStart - graceMs - turnMs - skewMs",
      replace: "const candidateBeforeMs = sweepStart - graceMs - turnMs",
      rules: ["K6"],
      summary: "Candidate horizon is grace plus turn; skew is already covered by the delete's re-check bound.",
      observable: "Unreferenced content is deleted by a sweep up to S (60 s) before granted_until + G + T + S."
    },
    {
      id: "attach-expiry-boundary-exclusive",
      file: "examples/independent-content/verifyGrant.ts",
      find: "return verified.success <= now + ctx.settings.skewMs",
      replace: "return verified.success < now + ctx.settings.skewMs",
      rules: ["K5"],
      summary: "A grant counts as expired only once its expiry is before NOW + S.",
      observable: "attach/verify accept a grant whose expiry is exactly NOW + S instead of refusing it as expired."
    },
    {
      id: "upload-chunks-after-commit",
      file: "examples/independent-content/uploadBytes.ts",
      find: "      const upserted = yield* upsertContent(ctx, tenant, hash, size)\n      if (upserted.inserted) {\n        const chunks = cutChunks(bytes, chunkBytes)\n        for (const [index, chunk] of chunks.entries()) yield* writeChunk(ctx.sql, tenant, hash, index, chunk)\n      }\n      return upserted\n    })\n  )\n",
      replace: "      return yield* upsertContent(ctx, tenant, hash, size)\n    })\n  )\n  if (row.inserted) {\n    const chunks = cutChunks(bytes, chunkBytes)\n    for (const [index, chunk] of chunks.entries()) yield* writeChunk(ctx.sql, tenant, hash, index, chunk)\n  }\n",
      rules: ["K2", "K7"],
      summary: "Keep the upload transaction short: commit the row upsert first, then write the chunks of a new row.",
      observable: "A crash or storage failure after the row commits leaves content whose read is None forever: grant succeeds and re-uploads write no chunks since the row exists."
    },
    {
      id: "sweep-chunk-delete-whole-batch",
      file: "examples/independent-content/sweepBatch.ts",
      find: "WHERE tenant_id = ${tenant} AND hash IN ${sql.in(gone.map((row) => row.hash))}",
      replace: "WHERE tenant_id = ${tenant} AND hash IN ${sql.in(hashes)}",
      rules: ["K6", "K7"],
      summary: "Delete the chunks of the batch's unreferenced hashes directly instead of mapping the RETURNING rows.",
      observable: "When a grant raises one candidate's horizon between the scan and the delete (SQLite path), its row survives the re-check but its chunks are deleted: grant answers Some, read answers None."
    },
    {
      id: "candidate-cursor-drops-ties",
      file: "examples/independent-content/sweep.ts",
      find: "sql`AND (granted_until_ms > ${after.grantedUntilMs} OR (granted_until_ms = ${after.grantedUntilMs} AND hash > ${after.hash}))`",
      replace: "sql`AND granted_until_ms > ${after.grantedUntilMs}`",
      rules: ["K6"],
      summary: "Page sweep candidates by horizon only; the hash tiebreak in the cursor looked redundant.",
      observable: "When more candidates than one sweep batch share a granted_until value, those after the first page are never deleted, even by a forced sweep."
    },
    {
      id: "detach-ignores-tenant",
      file: "examples/independent-content/references.ts",
      find: "  const { tenant, actor, blob, name } = attachment\n  const gone = yield* ctx.sql`DELETE FROM actor_content_refs\n    WHERE tenant_id = ${tenant} AND actor = ${actor} AND blob = ${blob} AND name = ${name}",
      replace: "  const { actor, blob, name } = attachment\n  const gone = yield* ctx.sql`DELETE FROM actor_content_refs\n    WHERE actor = ${actor} AND blob = ${blob} AND name = ${name}",
      rules: ["K5", "K1"],
      summary: "Detach deletes the reference by actor, blob and name, which already identify it.",
      observable: "Detaching in one tenant also removes another tenant's reference with the same actor/blob/name, so that tenant's still-referenced content gets swept."
    },
    {
      id: "empty-chunk-set-reads-as-empty",
      file: "examples/independent-content/chunks.ts",
      find: "  if (rows.length === 0) return Option.none()\n  const parts",
      replace: "  const parts",
      rules: ["K7", "K2"],
      summary: "Drop the redundant empty-rows check in completeChunks; the size comparison covers it.",
      observable: "read/stream of size-0 content that was swept (or never stored) returns empty bytes instead of None."
    }
  ]
}
