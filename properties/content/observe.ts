/**
 * What the harness reads of a content store's storage after every step, through the adapter, by
 * upstream's table and column names: content rows, whether each has all its chunks (and chunks
 * without a row), references and sweep registrations.
 *
 * A row's chunks are complete when they are chunks 0..n-1 of the row's bytes cut at the store's chunk
 * size (K2: n = ceil(size / chunk size), one empty chunk 0 for empty content) and those bytes hash to
 * the row's hash (K1), so a store that writes an extra, a short or a wrong chunk is seen at once,
 * before any read of that content.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Json } from "../../harness/Property.ts"
import { sha256HexOfParts } from "./config.ts"
import { toJson } from "../../harness/ToJson.ts"

/** Storage as observed after a step. */
export interface ObservedStorage {
  readonly contents: Readonly<Record<string, { readonly size: number; readonly grantedUntilMs: number }>>
  /** Keys of rows without complete chunks 0..n-1 summing to the size, and of chunks without a row. */
  readonly apart: ReadonlyArray<string>
  readonly refs: ReadonlyArray<string>
  readonly sweptAtMs: Readonly<Record<string, number>>
}

const int = (value: unknown): number => Number(typeof value === "bigint" ? value : String(value))

const bytesOf = (value: unknown): Uint8Array | undefined =>
  value instanceof Uint8Array ? value : value instanceof ArrayBuffer ? new Uint8Array(value) : undefined

/** One content's chunk rows, in chunk order. */
interface ChunkGroup {
  readonly indexes: Array<number>
  readonly parts: Array<Uint8Array | undefined>
}

/** Chunk rows grouped by content key: indexes and bytes. */
const chunkGroups = (rows: ReadonlyArray<Record<string, unknown>>) => {
  const groups = new Map<string, ChunkGroup>()
  for (const row of rows) {
    const key = `${String(row["tenant_id"])}/${String(row["hash"])}`
    const group = groups.get(key) ?? { indexes: [], parts: [] }
    group.indexes.push(int(row["chunk"]))
    group.parts.push(bytesOf(row["bytes"]))
    groups.set(key, group)
  }
  return groups
}

/**
 * Why a row's chunks are not its content (K1, K2), or undefined when they are: chunks 0..n-1, each
 * `chunkBytes` long but the last (non-empty unless the content is empty), summing to `size` and hashing to `hash`.
 */
const chunksProblem = (group: ChunkGroup | undefined, size: number, hash: string, chunkBytes: number): string | undefined => {
  if (group === undefined || !group.indexes.every((index, position) => index === position)) return "row without complete chunks"
  const parts = group.parts.filter((part): part is Uint8Array => part !== undefined)
  if (parts.length !== group.parts.length) return "row with a chunk that is not bytes"
  const lengths = parts.map((part) => part.byteLength)
  if (lengths.reduce((sum, length) => sum + length, 0) !== size) return "row without complete chunks"
  const cut = lengths.every((length, index) => index === lengths.length - 1 ? length > 0 || size === 0 : length === chunkBytes)
  if (parts.length !== Math.max(1, Math.ceil(size / chunkBytes)) || !cut) return `row whose chunks are not its bytes cut every ${chunkBytes} bytes`
  return sha256HexOfParts(parts) === hash ? undefined : "row whose chunks do not hash to its hash"
}

/** Reads the observed storage; `chunkBytes` is the chunk size the store was configured with. */
export const observeStorage = (sql: SqlClient.SqlClient, chunkBytes: number) =>
  Effect.gen(function*() {
    const contentRows = yield* sql<Record<string, unknown>>`SELECT tenant_id, hash, size, granted_until_ms FROM tenant_contents ORDER BY tenant_id, hash`
    const chunkRows = yield* sql<Record<string, unknown>>`SELECT tenant_id, hash, chunk, bytes FROM tenant_content_chunks ORDER BY tenant_id, hash, chunk`
    const refRows = yield* sql<Record<string, unknown>>`SELECT tenant_id, actor, blob, name, hash, size FROM actor_content_refs`
    const sweepRows = yield* sql<Record<string, unknown>>`SELECT tenant_id, swept_at_ms FROM tenant_content_sweeps ORDER BY tenant_id`
    const contents: Record<string, { size: number; grantedUntilMs: number }> = {}
    for (const row of contentRows) contents[`${String(row["tenant_id"])}/${String(row["hash"])}`] = { size: int(row["size"]), grantedUntilMs: int(row["granted_until_ms"]) }
    const groups = chunkGroups(chunkRows)
    const apart: Array<string> = []
    for (const [key, content] of Object.entries(contents)) {
      const problem = chunksProblem(groups.get(key), content.size, key.slice(key.indexOf("/") + 1), chunkBytes)
      if (problem !== undefined) apart.push(`${key}: ${problem}`)
    }
    for (const key of groups.keys()) if (!(key in contents)) apart.push(`${key}: chunks without a row`)
    const observed: ObservedStorage = {
      contents,
      apart: apart.sort(),
      refs: refRows.map((row) => `${String(row["tenant_id"])}/${String(row["actor"])}/${String(row["blob"])}/${String(row["name"])}->${String(row["hash"])}/${int(row["size"])}`).sort(),
      sweptAtMs: Object.fromEntries(sweepRows.map((row) => [String(row["tenant_id"]), int(row["swept_at_ms"])]))
    }
    return observed
  })

/** The observed storage as JSON for traces. */
export const storageJson = (observed: ObservedStorage): Json => toJson(observed)
