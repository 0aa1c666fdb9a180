import type { BlindBugSet } from "./BlindBug.ts"

/** A third blind set for content, written by another author who had not read the suite. */
export const bugs: BlindBugSet = {
  subject: "content",
  implementation: "examples/independent-content",
  bugs: [
    {
      id: "stream-upload-chunks-outside-transaction",
      file: "examples/independent-content/uploadStream.ts",
      find: "    const stored = yield* sql.withTransaction(\n      Effect.gen(function*() {\n        const digest = incrementalSha256()\n        const sink = chunkSink(settings.chunkBytes, (index, bytes) => writeChunk(sql, tenant, pending, index, bytes))\n        let size = 0\n        yield* Stream.runForEach(body, (part): Effect.Effect<void, ContentTooLarge | SqlError> => {\n          size += part.byteLength\n          if (size > limit) return Effect.fail(new ContentTooLarge({ maxBytes: limit }))\n          digest.update(part)\n          return sink.push(part)\n        })\n        if (size > settings.maxContentBytes) return yield* new ContentTooLarge({ maxBytes: settings.maxContentBytes })\n        yield* sink.finish\n        const hash = digest.hex()\n        yield* registerTenant(ctx, tenant)\n        const row = yield* upsertContent(ctx, tenant, hash, size)\n        yield* row.inserted\n          ? sql`UPDATE tenant_content_chunks SET hash = ${hash} WHERE tenant_id = ${tenant} AND hash = ${pending}`\n          : sql`DELETE FROM tenant_content_chunks WHERE tenant_id = ${tenant} AND hash = ${pending}`\n        return { hash, size, grantedUntilMs: row.grantedUntilMs }\n      })\n    )",
      replace: "    const stored = yield* (\n      Effect.gen(function*() {\n        const digest = incrementalSha256()\n        const sink = chunkSink(settings.chunkBytes, (index, bytes) => writeChunk(sql, tenant, pending, index, bytes))\n        let size = 0\n        yield* Stream.runForEach(body, (part): Effect.Effect<void, ContentTooLarge | SqlError> => {\n          size += part.byteLength\n          if (size > limit) return Effect.fail(new ContentTooLarge({ maxBytes: limit }))\n          digest.update(part)\n          return sink.push(part)\n        })\n        if (size > settings.maxContentBytes) return yield* new ContentTooLarge({ maxBytes: settings.maxContentBytes })\n        yield* sink.finish\n        const hash = digest.hex()\n        return yield* sql.withTransaction(\n          Effect.gen(function*() {\n            yield* registerTenant(ctx, tenant)\n            const row = yield* upsertContent(ctx, tenant, hash, size)\n            yield* row.inserted\n              ? sql`UPDATE tenant_content_chunks SET hash = ${hash} WHERE tenant_id = ${tenant} AND hash = ${pending}`\n              : sql`DELETE FROM tenant_content_chunks WHERE tenant_id = ${tenant} AND hash = ${pending}`\n            return { hash, size, grantedUntilMs: row.grantedUntilMs }\n          })\n        )\n      })\n    )",
      rules: ["K3"],
      summary: "Don't hold a transaction open while the client streams: write the pending chunks as they arrive, then register, upsert and rename in one short transaction.",
      observable: "A body that fails mid-stream, passes the limit or the maximum, or an upload cut by a crash leaves its pending chunk rows stored forever instead of nothing."
    },
    {
      id: "grant-looks-up-then-raises",
      file: "examples/independent-content/grantContent.ts",
      find: "  const [row] = yield* ctx.sql<{ readonly granted_until_ms: unknown }>`\n    UPDATE tenant_contents SET granted_until_ms = ${ctx.d.larger(\"tenant_contents.granted_until_ms\", until)}\n    WHERE tenant_id = ${tenant} AND hash = ${hash} AND size = ${size}\n    RETURNING granted_until_ms`\n  if (row === undefined) return Option.none<ContentRef>()\n  return Option.some(refOf(ctx, tenant, hash, size, toNumber(row.granted_until_ms)))",
      replace: "  const [row] = yield* ctx.sql<{ readonly granted_until_ms: unknown }>`\n    SELECT granted_until_ms FROM tenant_contents\n    WHERE tenant_id = ${tenant} AND hash = ${hash} AND size = ${size}`\n  if (row === undefined) return Option.none<ContentRef>()\n  yield* ctx.sql`UPDATE tenant_contents SET granted_until_ms = ${ctx.d.larger(\"tenant_contents.granted_until_ms\", until)}\n    WHERE tenant_id = ${tenant} AND hash = ${hash} AND size = ${size}`\n  return Option.some(refOf(ctx, tenant, hash, size, Math.max(toNumber(row.granted_until_ms), until)))",
      rules: ["K4", "K6"],
      summary: "Look the content row up first and raise its horizon only when it exists, so an unknown hash costs no write and needs no RETURNING.",
      observable: "A grant racing a sweep that deletes the row between the lookup and the raise returns Some for deleted content; attach accepts that grant and read answers None."
    },
    {
      id: "sweep-chunk-delete-any-tenant",
      file: "examples/independent-content/sweepBatch.ts",
      find: "        DELETE FROM tenant_content_chunks\n        WHERE tenant_id = ${tenant} AND hash IN (SELECT hash FROM gone))",
      replace: "        DELETE FROM tenant_content_chunks\n        WHERE hash IN (SELECT hash FROM gone))",
      rules: ["K1", "K6", "K7"],
      summary: "The gone CTE already holds only this tenant's deleted hashes, so the chunk delete just joins on hash.",
      observable: "On Postgres, when two tenants store the same bytes and one tenant's copy is swept, the other tenant's chunks go too: its read answers None while its row (and grant) remain."
    },
    {
      id: "upload-rearms-tenant-sweep",
      file: "examples/independent-content/contentRow.ts",
      find: "VALUES (${tenant}, 0)\n    ON CONFLICT (tenant_id) DO NOTHING",
      replace: "VALUES (${tenant}, 0)\n    ON CONFLICT (tenant_id) DO UPDATE SET swept_at_ms = 0",
      rules: ["K6", "K2"],
      summary: "Re-arm a tenant for the next sweep pass whenever it uploads, so its new garbage is collected promptly.",
      observable: "Any upload right after a tenant's scheduled sweep makes the next non-forced sweep within the hour sweep that tenant again and delete content that passed its horizon meanwhile."
    },
    {
      id: "attach-skew-as-leniency",
      file: "examples/independent-content/verifyGrant.ts",
      find: "return verified.success <= now + ctx.settings.skewMs",
      replace: "return verified.success <= now - ctx.settings.skewMs",
      rules: ["K5", "K6"],
      summary: "Tolerate clock skew when judging a grant: it only counts as expired once it is S past its expiry.",
      observable: "attach and verify accept a grant expiring within the next S, or that expired up to S ago, so a sweep may delete the content the new reference points to."
    },
    {
      id: "tenant-registration-failure-ignored",
      file: "examples/independent-content/contentRow.ts",
      find: "DO NOTHING`.pipe(Effect.asVoid)",
      replace: "DO NOTHING`.pipe(Effect.asVoid, Effect.ignore)",
      rules: ["K2", "K6"],
      summary: "Registering the tenant for sweeping is bookkeeping; don't fail a user's upload over it.",
      observable: "If that insert fails (storage error) on a tenant's first upload, the upload still succeeds but the tenant is never registered, so its unreferenced content is never swept, even by a forced sweep."
    },
    {
      id: "stream-upload-skips-store-maximum",
      file: "examples/independent-content/uploadStream.ts",
      find: "        if (size > settings.maxContentBytes) return yield* new ContentTooLarge({ maxBytes: settings.maxContentBytes })\n",
      replace: "",
      rules: ["K3"],
      summary: "Drop the post-stream check against maxContentBytes: the caller's limit already bounds the streamed body.",
      observable: "On a multi-connection store, uploadStream with a limit above maxContentBytes stores a body larger than the maximum instead of failing with ContentTooLarge."
    },
    {
      id: "stream-timeout-on-query-only",
      file: "examples/independent-content/reads.ts",
      find: "      Effect.orDie,\n      Effect.map((rows) =>\n        Option.match(completeChunks(rows, size), {\n          onNone: () => Stream.fail(new Cause.NoSuchElementError(`content ${hash} of ${tenant} with ${size} bytes is not stored`)),\n          onSome: (parts) => Stream.fromIterable(parts)\n        })\n      )\n    )\n  ).pipe(\n    Stream.interruptWhen(\n      Effect.sleep(timeoutMs).pipe(Effect.andThen(Effect.die(new Error(`a content stream outlived its ${timeoutMs} ms timeout`))))\n    )\n  )",
      replace: "      Effect.orDie,\n      Effect.timeoutOrElse({\n        duration: timeoutMs,\n        orElse: () => Effect.die(new Error(`a content stream outlived its ${timeoutMs} ms timeout`))\n      }),\n      Effect.map((rows) =>\n        Option.match(completeChunks(rows, size), {\n          onNone: () => Stream.fail(new Cause.NoSuchElementError(`content ${hash} of ${tenant} with ${size} bytes is not stored`)),\n          onSome: (parts) => Stream.fromIterable(parts)\n        })\n      )\n    )\n  )",
      rules: ["K7"],
      summary: "Apply the command timeout to the chunk query, where the database time goes, instead of racing the whole stream against a timer.",
      observable: "A stream whose consumer is still pulling chunks after timeoutMs keeps emitting instead of being interrupted."
    }
  ]
}
