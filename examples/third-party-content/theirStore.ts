/**
 * Stand-in for an upstream-shaped content store (`tenantContent(settings)` of @rikalabs/akter): its
 * methods need `SqlClient` from the context, grants come from a `grants` object, and content points go
 * to `settings.hooks.at`. It is built here on the shipped store so the example runs; an author binds
 * their real package the same way (`index.ts`).
 */
import { Effect, type Option, type Result, type Stream } from "effect"
import { SqlClient } from "effect/sql"
import type { Dialect } from "../../adapters/contract.ts"
import { type ContentSettings, type ContentStore, shippedContent } from "../../subjects/content/index.ts"

/** Upstream's settings, reduced to what this stand-in reads. */
export interface TheirSettings {
  readonly grantKey: string
  readonly graceMs: number
  readonly skewMs: number
  readonly singleConnection: boolean
  readonly dialect: Dialect
  /** Their size, chunk, batch and turn parameters (upstream constants, made settable for the suite). */
  readonly limits: Partial<Omit<ContentSettings, "grantKey">>
}

type NeedsSql<A, E> = Effect.Effect<A, E, SqlClient.SqlClient>

/** Upstream's surface: every method reads the client from the context. */
export interface TheirStore {
  readonly uploadBytes: (tenant: string, bytes: Uint8Array) => NeedsSql<{ readonly hash: string; readonly size: number; readonly grant: string }, unknown>
  readonly uploadStream: <E>(tenant: string, body: Stream.Stream<Uint8Array, E>, limit: number) => NeedsSql<{ readonly hash: string; readonly size: number; readonly grant: string }, unknown>
  readonly grant: (tenant: string, hash: string, size: number) => NeedsSql<Option.Option<{ readonly hash: string; readonly size: number; readonly grant: string }>, unknown>
  readonly attachRef: (tenant: string, actor: string, blob: string, name: string, ref: { readonly hash: string; readonly size: number; readonly grant: string }) => NeedsSql<void, unknown>
  readonly detachRef: (tenant: string, actor: string, blob: string, name: string) => NeedsSql<boolean, unknown>
  readonly read: (tenant: string, hash: string, size: number) => NeedsSql<Option.Option<Uint8Array>, unknown>
  readonly stream: ContentStore["stream"]
  readonly sweep: (force: boolean) => NeedsSql<number, unknown>
  readonly verify: (grant: string, bound: { readonly tenant: string; readonly hash: string; readonly size: number }) => Effect.Effect<Result.Result<number, "malformed" | "invalid" | "expired">>
}

/** Opens "their" store over the client in the context. */
export const tenantContent = (settings: TheirSettings): NeedsSql<TheirStore, unknown> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const inner = yield* shippedContent.make({ sql, dialect: settings.dialect, settings: { ...settings.limits, grantKey: settings.grantKey, graceMs: settings.graceMs, skewMs: settings.skewMs, singleConnection: settings.singleConnection } })
    return {
      uploadBytes: inner.uploadBytes,
      uploadStream: inner.uploadStream,
      grant: inner.grant,
      attachRef: (tenant, actor, blob, name, ref) => inner.attach({ tenant, actor, blob, name, ref }),
      detachRef: (tenant, actor, blob, name) => inner.detach({ tenant, actor, blob, name }),
      read: inner.read,
      stream: inner.stream,
      sweep: inner.sweep,
      verify: inner.verify
    }
  })
