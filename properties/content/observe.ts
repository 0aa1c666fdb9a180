/**
 * What the harness reads of a content store's storage after every step, through the adapter, by
 * upstream's table and column names: content rows, whether each has all its chunks (and chunks
 * without a row), references and sweep registrations.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Json } from "../../harness/Property.ts"

/** Storage as observed after a step. */
export interface ObservedStorage {
  readonly contents: Readonly<Record<string, { readonly size: number; readonly grantedUntilMs: number }>>
  /** Keys of rows without complete chunks 0..n-1 summing to the size, and of chunks without a row. */
  readonly apart: ReadonlyArray<string>
  readonly refs: ReadonlyArray<string>
  readonly sweptAtMs: Readonly<Record<string, number>>
}

const int = (value: unknown): number => Number(typeof value === "bigint" ? value : String(value))

const byteLength = (value: unknown): number =>
  value instanceof Uint8Array ? value.byteLength : value instanceof ArrayBuffer ? value.byteLength : -1

/** Chunk rows grouped by content key: indexes and total bytes. */
const chunkGroups = (rows: ReadonlyArray<Record<string, unknown>>) => {
  const groups = new Map<string, { indexes: Array<number>; bytes: number }>()
  for (const row of rows) {
    const key = `${String(row["tenant_id"])}/${String(row["hash"])}`
    const group = groups.get(key) ?? { indexes: [], bytes: 0 }
    group.indexes.push(int(row["chunk"]))
    group.bytes += byteLength(row["bytes"])
    groups.set(key, group)
  }
  return groups
}

/** Reads the observed storage. */
export const observeStorage = (sql: SqlClient.SqlClient) =>
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
      const group = groups.get(key)
      const complete = group !== undefined && group.indexes.every((index, position) => index === position) && group.bytes === content.size
      if (!complete) apart.push(`${key}: row without complete chunks`)
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
export const storageJson = (observed: ObservedStorage): Json => JSON.parse(JSON.stringify(observed)) as Json
