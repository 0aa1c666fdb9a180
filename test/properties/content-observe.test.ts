/**
 * The content observation (`properties/content/observe.ts`) read straight from tables written by hand:
 * a row whose chunks are its bytes cut at the chunk size is whole; a chunk with one byte changed, a
 * chunk missing, a cut at another size, and chunks without a row are each reported apart, with why.
 * The digest is the harness's own SHA-256 (`sha256HexOf`), checked here against a known vector.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { sha256HexOf, sha256HexOfParts } from "../../properties/content/config.ts"
import { observeStorage } from "../../properties/content/observe.ts"
import { contentDialect } from "../../subjects/content/dialect.ts"
import { tablesDdl } from "../../subjects/content/schema.ts"

const encoder = new TextEncoder()
const CHUNK_BYTES = 4

type Chunk = readonly [chunk: number, bytes: Uint8Array]

/** Writes one content row and `chunks` by hand on a fresh sqlite database, then observes it. */
const observeRow = (bytes: Uint8Array, chunks: ReadonlyArray<Chunk>, extraChunkKey?: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const adapter = makeSqliteAdapter()
    const sql = (yield* adapter.open()).sql
    for (const ddl of tablesDdl(contentDialect(adapter.dialect, true))) yield* sql.unsafe(ddl)
    const hash = sha256HexOf(bytes)
    yield* sql`INSERT INTO tenant_contents (routing_key, tenant_id, hash, size, granted_until_ms) VALUES (1, 't', ${hash}, ${bytes.byteLength}, 0)`
    for (const [chunk, part] of chunks) {
      yield* sql`INSERT INTO tenant_content_chunks (routing_key, tenant_id, hash, chunk, bytes) VALUES (1, 't', ${hash}, ${chunk}, ${part})`
    }
    if (extraChunkKey !== undefined) {
      yield* sql`INSERT INTO tenant_content_chunks (routing_key, tenant_id, hash, chunk, bytes) VALUES (1, 't', ${extraChunkKey}, 0, ${new Uint8Array([1])})`
    }
    return { hash, observed: yield* observeStorage(sql, CHUNK_BYTES) }
  })))

const hello = encoder.encode("hello, world")
const cut = (bytes: Uint8Array, size: number): ReadonlyArray<Chunk> =>
  Array.from({ length: Math.max(1, Math.ceil(bytes.byteLength / size)) }, (_, index) => [index, bytes.slice(index * size, (index + 1) * size)] as const)

describe("content observation", () => {
  it("hashes with SHA-256, whole or in parts", () => {
    expect(sha256HexOf(encoder.encode("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(sha256HexOfParts([encoder.encode("a"), encoder.encode("bc")])).toBe(sha256HexOf(encoder.encode("abc")))
    expect(sha256HexOf(new Uint8Array(0))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  })

  it("sees a row cut at the chunk size, the empty content's one empty chunk included, as whole", async () => {
    const { hash, observed } = await observeRow(hello, cut(hello, CHUNK_BYTES))
    expect(observed.apart).toEqual([])
    expect(observed.contents).toEqual({ [`t/${hash}`]: { size: hello.byteLength, grantedUntilMs: 0 } })
    expect((await observeRow(new Uint8Array(0), [[0, new Uint8Array(0)]])).observed.apart).toEqual([])
  })

  it("reports a changed byte, a missing chunk, another cut and chunks without a row, each with why", async () => {
    const changed = cut(hello, CHUNK_BYTES).map(([chunk, part]) => [chunk, chunk === 1 ? Uint8Array.from(part, (byte, at) => (at === 0 ? byte ^ 1 : byte)) : part] as const)
    const cases: ReadonlyArray<readonly [ReadonlyArray<Chunk>, string]> = [
      [changed, "row whose chunks do not hash to its hash"],
      [cut(hello, CHUNK_BYTES).filter(([chunk]) => chunk !== 1), "row without complete chunks"],
      [cut(hello, CHUNK_BYTES * 2), `row whose chunks are not its bytes cut every ${CHUNK_BYTES} bytes`],
      [[], "row without complete chunks"]
    ]
    for (const [chunks, why] of cases) {
      const { hash, observed } = await observeRow(hello, chunks)
      expect(observed.apart).toEqual([`t/${hash}: ${why}`])
    }
    const { hash, observed } = await observeRow(hello, cut(hello, CHUNK_BYTES), "orphan")
    expect(observed.apart).toEqual(["t/orphan: chunks without a row"])
    expect(hash).not.toBe("orphan")
  })
})
