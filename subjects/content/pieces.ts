/**
 * The named pieces the content store is composed of, and the correct defaults.
 *
 * `makeContentStore(pieces)` (make.ts) wires the pieces into the upload, grant, attach, read and sweep
 * skeleton. The shipped implementation uses `defaultContentPieces`; a known-bad variant used to test
 * the suite replaces exactly one piece. The shipped code has no bug flags. Each piece cites its rules.
 */
import { Effect, Option, type Result } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { hookPoint } from "../../harness/HookPoints.ts"
import type { GrantBound, InvalidContentRefReason } from "./api.ts"
import type { ContentDialect } from "./dialect.ts"
import type { Grants } from "./grants.ts"
import type { Candidate, ChunkRow, ContentStatements } from "./store.ts"

/** The margins of the sweep's horizons. */
export interface Horizons {
  readonly graceMs: number
  readonly turnMs: number
  readonly skewMs: number
}

/** What a stream's first statement saw of a content's chunks. */
export interface ChunkHead {
  readonly chunks: number
  readonly last: number
  readonly bytes: number
}

/** The pieces of the content store. */
export interface ContentPieces {
  /** K6: candidates have `granted_until < sweepStart - G - T - S`. */
  readonly candidateBeforeMs: (sweepStartMs: number, horizons: Horizons) => number
  /** K6, (ii): the delete re-checks `granted_until < sweepStart - T - S`. */
  readonly recheckBeforeMs: (sweepStartMs: number, horizons: Horizons) => number
  /** K6: the page after the last candidate of a batch, by `(granted_until, hash)`. */
  readonly nextPage: (last: Candidate) => Candidate
  /** K6, (i): the candidate hashes some reference of the tenant names (every shard, every key). */
  readonly scanReferences: (statements: ContentStatements, tenant: string, hashes: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>, SqlError>
  /** K6, "together": deletes unreferenced candidates still below the re-check with their chunks; the rows deleted. */
  readonly deleteUnreferenced: (statements: ContentStatements, tenant: string, hashes: ReadonlyArray<string>, recheckBeforeMs: number) => Effect.Effect<number, SqlError>
  /** K6: the tenants of a pass; a forced pass records nothing. */
  readonly tenantsOfPass: (statements: ContentStatements, force: boolean, nowMs: number, intervalMs: number, limit: number) => Effect.Effect<ReadonlyArray<string>, SqlError>
  /** K4, (iii): raises the horizon under the row lock; the new horizon, or undefined when the row is gone. */
  readonly raiseGrant: (statements: ContentStatements, bound: GrantBound, untilMs: number) => Effect.Effect<number | undefined, SqlError>
  /** K4, K5: verifies a grant for `bound` at `nowMs`. */
  readonly verifyGrant: (grants: Grants, grant: string, bound: GrantBound, nowMs: number, skewMs: number) => Effect.Effect<Result.Result<number, InvalidContentRefReason>>
  /** K7: the bytes when chunks 0..n-1 are all there and sum to `size`; otherwise none. */
  readonly assemble: (rows: ReadonlyArray<ChunkRow>, size: number) => Option.Option<Uint8Array>
  /** K7: whether a stream may start, from its first statement's view of the chunks. */
  readonly streamComplete: (head: ChunkHead, size: number) => boolean
  /**
   * "Parameters" (T only grows): the SQL value a registration's upsert sets `turn_ms` to, from the
   * stored value and the registered one (`excluded.turn_ms`).
   */
  readonly recordedTurnSql: (dialect: ContentDialect, storedColumn: string) => string
}

const assemble = (rows: ReadonlyArray<ChunkRow>, size: number): Option.Option<Uint8Array> => {
  let total = 0
  for (const [index, row] of rows.entries()) {
    if (row.chunk !== index) return Option.none()
    total += row.bytes.byteLength
  }
  if (rows.length === 0 || total !== size) return Option.none()
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const row of rows) {
    bytes.set(row.bytes, offset)
    offset += row.bytes.byteLength
  }
  return Option.some(bytes)
}

/** The shipped pieces. */
export const defaultContentPieces: ContentPieces = {
  recordedTurnSql: (dialect, storedColumn) => dialect.greatest(storedColumn, "excluded.turn_ms"),
  candidateBeforeMs: (start, h) => start - h.graceMs - h.turnMs - h.skewMs,
  recheckBeforeMs: (start, h) => start - h.turnMs - h.skewMs,
  nextPage: (last) => last,
  scanReferences: (statements, tenant, hashes) =>
    Effect.map(
      statements.sql<Record<string, unknown>>`SELECT DISTINCT hash FROM actor_content_refs
        WHERE tenant_id = ${tenant} AND ${statements.sql.in("hash", hashes)}`,
      (rows) => new Set(rows.map((row) => String(row["hash"])))
    ),
  deleteUnreferenced: (statements, tenant, hashes, recheckBeforeMs) =>
    statements.dialect.deleteInOneStatement
      ? Effect.map(statements.sql.withTransaction(Effect.tap(
        statements.deleteRowsWithChunks(tenant, hashes, recheckBeforeMs),
        () => hookPoint("content.afterDelete")
      )), (gone) => gone.length)
      : statements.sql.withTransaction(Effect.gen(function*() {
        const gone = yield* statements.deleteRows(tenant, hashes, recheckBeforeMs)
        yield* statements.deleteChunks(tenant, gone)
        yield* hookPoint("content.afterDelete")
        return gone.length
      })),
  tenantsOfPass: (statements, force, nowMs, intervalMs, limit) =>
    force ? statements.allTenants : statements.sql.withTransaction(statements.claimTenants(nowMs, nowMs - intervalMs, limit)),
  raiseGrant: (statements, bound, untilMs) =>
    Effect.gen(function*() {
      yield* hookPoint("content.beforeRaise")
      return yield* statements.sql.withTransaction(Effect.tap(
        statements.raise(bound.tenant, bound.hash, bound.size, untilMs),
        () => hookPoint("content.afterRaise")
      ))
    }),
  verifyGrant: (grants, grant, bound, nowMs, skewMs) => grants.verify(grant, bound, nowMs, skewMs),
  assemble,
  streamComplete: (head, size) => head.chunks > 0 && head.last === head.chunks - 1 && head.bytes === size
}
