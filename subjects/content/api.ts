/**
 * The public API of the `content` subject: a tenant-scoped content store (upload bytes or a stream,
 * grants, references from actors, grant-checked reads and streams) and its sweep of unreferenced
 * content, which never deletes referenced content. Names and shapes follow the upstream store
 * (`tenantContent` of @rikalabs/akter 0.1.0-alpha.0, seed 001) so upstream, or a fork of it, binds with a
 * thin wrapper. Rule numbers (K1-K7, clauses (i)-(iii)) refer to `reference/content.md`.
 *
 * Determinism: implementations read time only through Effect's `Clock` (passed to SQL as parameters,
 * never the database clock) and randomness only through Effect's `Random`.
 *
 * @example
 * ```ts
 * const store = yield* shippedContent.make({ sql, dialect: "sqlite", settings: { grantKey: "k" } })
 * const ref = yield* store.uploadBytes("tenant-a", new TextEncoder().encode("hello"))
 * yield* store.attach({ tenant: "tenant-a", actor: "doc-1", blob: "file", name: "hello.txt", ref })
 * ```
 */
import type { Cause, Effect, Option, Result, Stream } from "effect"
import { Data } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { Dialect } from "../../adapters/contract.ts"

/** A content reference as uploads and grants return it: the identity and a signed grant. */
export interface ContentRef {
  /** Lowercase hex SHA-256 of the bytes (K1). */
  readonly hash: string
  readonly size: number
  /** The signed grant: a MAC over `{tenant, hash, size, expiresAt}` (K4). */
  readonly grant: string
}

/** What a grant binds, besides its expiry. */
export interface GrantBound {
  readonly tenant: string
  readonly hash: string
  readonly size: number
}

/** Why a grant is refused (K5): not a grant, a MAC/tenant/size mismatch, or expiring too soon. */
export type InvalidContentRefReason = "malformed" | "invalid" | "expired"

/** The content is larger than the limit (K3); nothing was written. */
export class ContentTooLarge extends Data.TaggedError("ContentTooLarge")<{ readonly maxBytes: number }> {
  override get message(): string {
    return `content is larger than ${this.maxBytes} bytes; upload a smaller body`
  }
}

/** An attach whose grant was refused (K5), with the reason. Nothing was written. */
export class InvalidContentRef extends Data.TaggedError("InvalidContentRef")<{ readonly reason: InvalidContentRefReason }> {
  override get message(): string {
    return `the content grant is ${this.reason}; ask for a fresh grant of this tenant's content`
  }
}

/** One reference of an actor to content (a row of `actor_content_refs`). */
export interface ContentAttachment {
  readonly tenant: string
  readonly actor: string
  /** The actor's field holding the reference. */
  readonly blob: string
  readonly name: string
}

/** The store's parameters; every one has upstream's default (`DEFAULT_CONTENT_SETTINGS`). */
export interface ContentSettings {
  /** HMAC-SHA256 key of grants (text, UTF-8). Required. */
  readonly grantKey: string
  /** L: lifetime of a grant. */
  readonly grantLifetimeMs: number
  /** G: how long unreferenced content outlives its last grant, before the turn and skew margins. */
  readonly graceMs: number
  /** S: the bound on clock skew. */
  readonly skewMs: number
  /** The turn budget recorded for the actor type this store serves (T is the largest recorded). */
  readonly turnMs: number
  readonly chunkBytes: number
  readonly maxContentBytes: number
  /** Candidates one sweep statement considers. */
  readonly sweepBatch: number
  /** Tenants one non-forced sweep pass claims. */
  readonly sweepTenants: number
  /** A tenant is swept at most this often unless forced. */
  readonly sweepIntervalMs: number
  /**
   * One connection only (PGlite, SQLite, Durable Objects): no transaction stays open across a
   * client's upload or download; those buffer in memory instead (upstream's flag).
   */
  readonly singleConnection: boolean
}

/** Upstream's defaults: L 1 h, G 24 h, S 60 s, T 30 s, 1 MiB chunks, 64 MiB max, batch 500, 100 tenants, hourly. */
export const DEFAULT_CONTENT_SETTINGS: Omit<ContentSettings, "grantKey"> = {
  grantLifetimeMs: 3_600_000,
  graceMs: 86_400_000,
  skewMs: 60_000,
  turnMs: 30_000,
  chunkBytes: 1024 * 1024,
  maxContentBytes: 64 * 1024 * 1024,
  sweepBatch: 500,
  sweepTenants: 100,
  sweepIntervalMs: 3_600_000,
  singleConnection: false
}

/** The content store (upstream's `ContentStoreImpl`, with attach/detach of the runtime's turn). */
export interface ContentStore {
  /** K2: stores bytes already in memory; existing content writes no bytes. */
  readonly uploadBytes: (tenant: string, bytes: Uint8Array) => Effect.Effect<ContentRef, ContentTooLarge | SqlError>
  /** K3: stores a body as it arrives, in one transaction; past `limit` nothing stays. */
  readonly uploadStream: <E>(tenant: string, body: Stream.Stream<Uint8Array, E>, limit: number) => Effect.Effect<ContentRef, E | ContentTooLarge | SqlError>
  /** K4: raises the grant horizon and signs a grant; none when the content no longer exists. */
  readonly grant: (tenant: string, hash: string, size: number) => Effect.Effect<Option.Option<ContentRef>, SqlError>
  /** K5: verifies the grant and records the reference. */
  readonly attach: (attachment: ContentAttachment & { readonly ref: ContentRef }) => Effect.Effect<void, InvalidContentRef | SqlError>
  /** K5: deletes one reference; whether it existed. */
  readonly detach: (attachment: ContentAttachment) => Effect.Effect<boolean, SqlError>
  /** K7: the bytes when every chunk is there and they sum to `size`; otherwise none. */
  readonly read: (tenant: string, hash: string, size: number) => Effect.Effect<Option.Option<Uint8Array>, SqlError>
  /** K7: the chunks from one snapshot, checked before anything is emitted; ends after `timeoutMs`. */
  readonly stream: (tenant: string, hash: string, size: number, timeoutMs: number) => Stream.Stream<Uint8Array, Cause.NoSuchElementError>
  /** K6: deletes unreferenced content past its horizons; the number of content rows deleted. */
  readonly sweep: (force: boolean) => Effect.Effect<number, SqlError>
  /** K4/K5: the grant's expiry, or why it is refused, for `bound`. */
  readonly verify: (grant: string, bound: GrantBound) => Effect.Effect<Result.Result<number, InvalidContentRefReason>>
}

/** What `make` receives: the client (the harness's storage boundary under test), the dialect, the settings. */
export interface ContentMakeOptions {
  readonly sql: SqlClient.SqlClient
  readonly dialect: Dialect
  readonly settings: Partial<ContentSettings> & { readonly grantKey: string }
}

/** An implementation of the content subject, as the suite binds it. */
export interface ContentImplementation {
  /** Short stable name in reports. */
  readonly name: string
  /** Builds the store (creating its tables when missing) over the given client. */
  readonly make: (options: ContentMakeOptions) => Effect.Effect<ContentStore, SqlError>
}
