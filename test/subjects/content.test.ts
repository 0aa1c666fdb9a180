/**
 * Direct tests of the shipped content store on SQLite under a virtual clock: upstream's defaults
 * (1 MiB chunks, 64 MiB limit) with a real streamed upload past the limit that writes nothing,
 * round trips of bytes and streams, grants signed with the configured key, the refusal reasons, the
 * deletion horizon, and time taken from Effect's `Clock` only.
 */
import { Effect, Exit, Option, Result, Stream } from "effect"
import type { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { advanceByMs, VIRTUAL_EPOCH_MS, withVirtualTime } from "../../harness/VirtualClock.ts"
import { type ContentStore, ContentTooLarge, DEFAULT_CONTENT_SETTINGS, shippedContent } from "../../subjects/content/index.ts"

const MIB = 1024 * 1024

/** Runs `body` with a fresh store on a fresh SQLite database at the virtual epoch. */
const withStore = <A, E>(body: (store: ContentStore, sql: SqlClient.SqlClient) => Effect.Effect<A, E>, settings: Partial<typeof DEFAULT_CONTENT_SETTINGS> = {}) =>
  Effect.runPromise(Effect.scoped(withVirtualTime(Effect.gen(function*() {
    const database = yield* makeSqliteAdapter().open()
    const store = yield* shippedContent.make({ sql: database.sql, dialect: "sqlite", settings: { grantKey: "test key", singleConnection: true, ...settings } })
    return yield* body(store, database.sql)
  }))) as Effect.Effect<A, never>)

const count = (sql: SqlClient.SqlClient, table: string) => Effect.map(sql<{ readonly n: number }>`SELECT count(*) AS n FROM ${sql(table)}`, (rows) => Number(rows[0]!.n))

describe("content store (sqlite, upstream defaults)", () => {
  it("has upstream's defaults", () => {
    expect(DEFAULT_CONTENT_SETTINGS).toMatchObject({ grantLifetimeMs: 3_600_000, graceMs: 86_400_000, skewMs: 60_000, turnMs: 30_000, chunkBytes: MIB, maxContentBytes: 64 * MIB, sweepBatch: 500, sweepTenants: 100, sweepIntervalMs: 3_600_000 })
  })

  it("a streamed upload past the real 64 MiB limit fails with ContentTooLarge and writes nothing", async () => {
    const part = new Uint8Array(MIB).fill(7)
    const body = Stream.concat(Stream.fromIterable(Array.from({ length: 64 }, () => part)), Stream.make(new Uint8Array(1)))
    const outcome = await withStore((store, sql) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(store.uploadStream("t1", body, 64 * MIB))
        return { exit, contents: yield* count(sql, "tenant_contents"), chunks: yield* count(sql, "tenant_content_chunks"), sweeps: yield* count(sql, "tenant_content_sweeps") }
      }))
    expect(Exit.isFailure(outcome.exit)).toBe(true)
    if (Exit.isFailure(outcome.exit)) expect(outcome.exit.cause.reasons[0]?._tag === "Fail" && outcome.exit.cause.reasons[0].error).toBeInstanceOf(ContentTooLarge)
    expect(outcome).toMatchObject({ contents: 0, chunks: 0, sweeps: 0 })
  }, 60_000)

  it("stores 2.5 MiB in 1 MiB chunks; read and stream return exactly the bytes; an empty content has chunk 0", async () => {
    const bytes = new Uint8Array(2.5 * MIB).map((_, index) => index % 251)
    const outcome = await withStore((store, sql) =>
      Effect.gen(function*() {
        const ref = yield* store.uploadBytes("t1", bytes)
        const read = yield* store.read("t1", ref.hash, ref.size)
        const streamed = yield* Stream.runCollect(store.stream("t1", ref.hash, ref.size, 30_000))
        const empty = yield* store.uploadBytes("t1", new Uint8Array(0))
        return { ref, read, streamed, chunks: yield* count(sql, "tenant_content_chunks"), emptyRead: yield* store.read("t1", empty.hash, 0) }
      }))
    expect(outcome.ref.size).toBe(bytes.byteLength)
    expect(outcome.ref.hash).toMatch(/^[0-9a-f]{64}$/)
    // Byte-wise comparison (vitest's deep equality is slow on megabytes).
    const read = Option.getOrThrow(outcome.read)
    expect(read.byteLength === bytes.byteLength && read.every((byte, index) => byte === bytes[index])).toBe(true)
    expect(outcome.streamed.map((part) => part.byteLength)).toEqual([MIB, MIB, MIB / 2])
    expect(outcome.chunks).toBe(4)
    expect(Option.getOrThrow(outcome.emptyRead).byteLength).toBe(0)
  })

  it("grants expire at granted_until, are refused for another tenant, size or key, and within S of expiry", async () => {
    const outcome = await withStore((store) =>
      Effect.gen(function*() {
        const ref = yield* store.uploadBytes("t1", new TextEncoder().encode("hello"))
        const bound = { tenant: "t1", hash: ref.hash, size: ref.size }
        const fresh = yield* store.verify(ref.grant, bound)
        const foreign = yield* store.verify(ref.grant, { ...bound, tenant: "t2" })
        const sized = yield* store.verify(ref.grant, { ...bound, size: 6 })
        const malformed = yield* store.verify("nonsense", bound)
        yield* advanceByMs(DEFAULT_CONTENT_SETTINGS.grantLifetimeMs - DEFAULT_CONTENT_SETTINGS.skewMs)
        const expired = yield* store.verify(ref.grant, bound)
        return { fresh, foreign, sized, malformed, expired }
      }))
    expect(outcome.fresh).toEqual(Result.succeed(VIRTUAL_EPOCH_MS + DEFAULT_CONTENT_SETTINGS.grantLifetimeMs))
    expect(outcome.foreign).toEqual(Result.fail("invalid"))
    expect(outcome.sized).toEqual(Result.fail("invalid"))
    expect(outcome.malformed).toEqual(Result.fail("malformed"))
    expect(outcome.expired).toEqual(Result.fail("expired"))
  })

  it("a grant signed with another key is refused", async () => {
    const outcome = await Effect.runPromise(Effect.scoped(withVirtualTime(Effect.gen(function*() {
      const database = yield* makeSqliteAdapter().open()
      const store = yield* shippedContent.make({ sql: database.sql, dialect: "sqlite", settings: { grantKey: "mine" } })
      const forger = yield* shippedContent.make({ sql: database.sql, dialect: "sqlite", settings: { grantKey: "theirs" } })
      const ref = yield* store.uploadBytes("t1", new Uint8Array([1, 2]))
      const forged = Option.getOrThrow(yield* forger.grant("t1", ref.hash, ref.size))
      return yield* Effect.exit(store.attach({ tenant: "t1", actor: "a", blob: "file", name: "x", ref: forged }))
    }))))
    expect(Exit.isFailure(outcome) && outcome.cause.reasons[0]?._tag === "Fail" ? outcome.cause.reasons[0].error : undefined).toMatchObject({ _tag: "InvalidContentRef", reason: "invalid" })
  })

  it("a stream still running after its timeout (virtual time) is interrupted", async () => {
    const outcome = await withStore((store) =>
      Effect.gen(function*() {
        const ref = yield* store.uploadBytes("t1", new Uint8Array(3 * 1024).fill(1))
        let parts = 0
        const exit = yield* Effect.exit(Stream.runForEach(store.stream("t1", ref.hash, ref.size, 30_000), () => {
          parts++
          return advanceByMs(30_001)
        }))
        return { exit, parts }
      }), { chunkBytes: 1024 })
    expect(Exit.isFailure(outcome.exit)).toBe(true)
    expect(outcome.parts).toBeLessThan(3)
  })

  it("sweeps unreferenced content only after granted_until + G + T + S, and keeps referenced content", async () => {
    const { graceMs, turnMs, skewMs, grantLifetimeMs } = DEFAULT_CONTENT_SETTINGS
    const outcome = await withStore((store) =>
      Effect.gen(function*() {
        const kept = yield* store.uploadBytes("t1", new Uint8Array([1]))
        const gone = yield* store.uploadBytes("t1", new Uint8Array([2]))
        yield* store.attach({ tenant: "t1", actor: "a", blob: "file", name: "x", ref: kept })
        yield* advanceByMs(grantLifetimeMs + graceMs + turnMs + skewMs)
        const atHorizon = yield* store.sweep(true)
        yield* advanceByMs(1)
        const after = yield* store.sweep(true)
        return { atHorizon, after, kept: yield* store.read("t1", kept.hash, 1), gone: yield* store.read("t1", gone.hash, 1), grant: yield* store.grant("t1", gone.hash, 1) }
      }))
    expect(outcome).toMatchObject({ atHorizon: 0, after: 1 })
    expect(Option.isSome(outcome.kept)).toBe(true)
    expect(Option.isNone(outcome.gone)).toBe(true)
    expect(Option.isNone(outcome.grant)).toBe(true)
  })
})
