/**
 * Binding someone else's content store to the suite: what an implementation author writes.
 *
 *   npx durable-conformance run --implementation ./examples/third-party-content/index.ts --adapter sqlite --subject content
 *
 * The module default-exports `{ subject: "content", implementation, version }`, where `implementation`
 * is a `ContentImplementation` (subjects/content/api.ts): a name and `make({ sql, dialect, settings })`.
 * Here `make` opens "their" upstream-shaped store (`theirStore.ts`), provides the harness's client to
 * each call (their methods read it from the context) and renames attach/detach. Their errors must be
 * the tagged errors of api.ts (`ContentTooLarge`, `InvalidContentRef`) or storage errors.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { ContentImplementation, ContentStore } from "../../subjects/content/api.ts"
import { tenantContent } from "./theirStore.ts"

const implementation: ContentImplementation = {
  name: "third-party-content",
  make: ({ sql, dialect, settings }) =>
    Effect.gen(function*() {
      const provide = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.provideService(effect, SqlClient.SqlClient, sql)
      const theirs = yield* provide(tenantContent({
        grantKey: settings.grantKey,
        graceMs: settings.graceMs ?? 86_400_000,
        skewMs: settings.skewMs ?? 60_000,
        singleConnection: settings.singleConnection ?? false,
        dialect,
        limits: settings
      })).pipe(Effect.orDie)
      const store: ContentStore = {
        uploadBytes: (tenant, bytes) => provide(theirs.uploadBytes(tenant, bytes)) as ReturnType<ContentStore["uploadBytes"]>,
        uploadStream: (tenant, body, limit) => provide(theirs.uploadStream(tenant, body, limit)) as never,
        grant: (tenant, hash, size) => provide(theirs.grant(tenant, hash, size)) as ReturnType<ContentStore["grant"]>,
        attach: ({ tenant, actor, blob, name, ref }) => provide(theirs.attachRef(tenant, actor, blob, name, ref)) as ReturnType<ContentStore["attach"]>,
        detach: ({ tenant, actor, blob, name }) => provide(theirs.detachRef(tenant, actor, blob, name)) as ReturnType<ContentStore["detach"]>,
        read: (tenant, hash, size) => provide(theirs.read(tenant, hash, size)) as ReturnType<ContentStore["read"]>,
        stream: theirs.stream,
        sweep: (force) => provide(theirs.sweep(force)) as ReturnType<ContentStore["sweep"]>,
        verify: theirs.verify
      }
      return store
    })
}

export default { subject: "content" as const, implementation, version: "0.1.0" }
