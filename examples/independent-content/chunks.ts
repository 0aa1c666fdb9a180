/**
 * Chunked bytes: how content is cut into `tenant_content_chunks` rows and how stored rows are judged
 * complete (K7: chunks 0..n-1 all present and summing to the size, else nothing).
 */
import { Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { toBytes, toNumber } from "./rows.ts"

/** One stored chunk row as read back. */
export interface ChunkRow {
  readonly chunk: unknown
  readonly bytes: unknown
}

/** Cuts bytes into chunks of `chunkBytes`; empty content still has chunk 0 (K2). */
export const cutChunks = (bytes: Uint8Array, chunkBytes: number): ReadonlyArray<Uint8Array> => {
  const count = Math.max(1, Math.ceil(bytes.byteLength / chunkBytes))
  return Array.from({ length: count }, (_, index) => bytes.subarray(index * chunkBytes, (index + 1) * chunkBytes))
}

/** Writes one chunk row under `name` (the content hash, or a pending name while streaming). */
export const writeChunk = (
  sql: SqlClient.SqlClient,
  tenant: string,
  name: string,
  chunk: number,
  bytes: Uint8Array
): Effect.Effect<void, SqlError> =>
  sql`INSERT INTO tenant_content_chunks (tenant_id, hash, chunk, bytes)
    VALUES (${tenant}, ${name}, ${chunk}, ${bytes})`.pipe(Effect.asVoid)

/** Reads every chunk of one content in one statement (one snapshot), in chunk order. */
export const readChunkRows = (
  sql: SqlClient.SqlClient,
  tenant: string,
  hash: string
): Effect.Effect<ReadonlyArray<ChunkRow>, SqlError> =>
  sql<ChunkRow>`SELECT chunk, bytes FROM tenant_content_chunks
    WHERE tenant_id = ${tenant} AND hash = ${hash} ORDER BY chunk`

/** The chunks' bytes when they are exactly 0..n-1 and sum to `size`; otherwise none, never a part. */
export const completeChunks = (rows: ReadonlyArray<ChunkRow>, size: number): Option.Option<ReadonlyArray<Uint8Array>> => {
  if (rows.length === 0) return Option.none()
  const parts: Array<Uint8Array> = []
  let total = 0
  for (const [index, row] of rows.entries()) {
    if (toNumber(row.chunk) !== index) return Option.none()
    const bytes = toBytes(row.bytes)
    total += bytes.byteLength
    parts.push(bytes)
  }
  return total === size ? Option.some(parts) : Option.none()
}

/** Joins parts into one array of `size` bytes. */
export const joinParts = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const joined = new Uint8Array(size)
  let offset = 0
  for (const part of parts) {
    joined.set(part, offset)
    offset += part.byteLength
  }
  return joined
}
