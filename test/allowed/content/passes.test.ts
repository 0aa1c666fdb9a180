/**
 * Every allowed variant of the content store (`variants.ts`) passes every applicable content
 * requirement at the gate's budget and seed, and each differs from the shipped store where that is
 * cheap to show. Every variant runs on sqlite; those whose choice meets postgres-only SQL (the tenant
 * claim's `FOR UPDATE SKIP LOCKED`, the raise's `RETURNING` under the row lock) also on pglite.
 * Timeouts are three times the measured run (2 shared cores), at least 30 s.
 */
import { Effect, Result } from "effect"
import type { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter, sqliteAdapter } from "../../../adapters/sqlite/index.ts"
import { type AllowedVariant, rejections } from "../../../harness/allowedVariant.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../../../harness/Budget.ts"
import { runConformance } from "../../../harness/Conformance.ts"
import { advanceByMs, withVirtualTime } from "../../../harness/VirtualClock.ts"
import { contentSuite } from "../../../properties/content/index.ts"
import { type ContentImplementation, type ContentStore, DEFAULT_CONTENT_SETTINGS, shippedContent } from "../../../subjects/content/index.ts"
import type { ContentStatements } from "../../../subjects/content/store.ts"
import { describeVariantsPass, type MeasuredSeconds, variantTimeoutMs } from "../../support/everyRequirementPasses.ts"
import { contentAllowedVariants, contentWithoutHookPoints, GRANT_TEXT_PREFIX, reversedTenantsOfPass } from "./variants.ts"
import { catchKnownBad } from "../../../harness/knownBad.ts"
import { recheckOmitted } from "../../known-bad/content/recheck-omitted.ts"
import { hooklessService } from "../../support/withoutHookPoints.ts"

/** Measured seconds per variant on sqlite and, where it runs there, pglite. */
const MEASURED_S: Readonly<Record<string, MeasuredSeconds>> = {
  "tenants-reversed": { sqlite: 3, pglite: 18 },
  "references-scanned-whole-tenant": { sqlite: 4 },
  "raise-skips-no-op-write": { sqlite: 9, pglite: 74 },
  "chunks-deleted-before-rows": { sqlite: 9 },
  "expiry-checked-before-bound": { sqlite: 7 },
  "grant-text-prefixed": { sqlite: 14 }
}

const variant = (name: string): AllowedVariant<ContentImplementation> => contentAllowedVariants.find((each) => each.name === name)!

/** Runs `body` with a fresh `implementation` store on a fresh SQLite database at the virtual epoch. */
const withStore = <A>(implementation: ContentImplementation, body: (store: ContentStore, sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(Effect.scoped(withVirtualTime(Effect.gen(function*() {
    const database = yield* makeSqliteAdapter().open()
    const store = yield* implementation.make({ sql: database.sql, dialect: "sqlite", settings: { grantKey: "test key", singleConnection: true } })
    return yield* body(store, database.sql)
  }))) as Effect.Effect<A, never>)

describeVariantsPass("content", contentAllowedVariants, contentSuite, MEASURED_S)

describe("allowed content variants: a store without hook points", () => {
  it("without hook points: every requirement passes, CNT-010 and CNT-011 through the storage boundary's point after a reference scan", async () => {
    const report = await Effect.runPromise(runConformance({ kind: "run", adapters: [sqliteAdapter], suites: [contentSuite(contentWithoutHookPoints.implementation)], runs: DEFAULT_RUNS, seed: DEFAULT_SEED, suiteHash: "unhashed" }))
    expect(rejections(report)).toEqual([])
  }, variantTimeoutMs(5))

  it("without hook points, a delete that trusts the candidate scan is still caught, naming CNT-010 or CNT-011", async () => {
    const bad = recheckOmitted.implementation
    const hookless: ContentImplementation = { name: `${bad.name}-without-hook-points`, make: (options) => Effect.map(bad.make(options), hooklessService) }
    const result = await Effect.runPromise(catchKnownBad({ suite: contentSuite(hookless), adapter: makeSqliteAdapter(), propertyOrder: ["content/races"], stopAfterFailures: 1 }))
    expect(result.caught, result.run.verdict).toBe(true)
    for (const counterexample of result.counterexamples) expect(["CNT-010", "CNT-011"]).toContain(counterexample.divergence.requirementId)
  }, variantTimeoutMs(5))
})

describe("allowed content variants differ from the shipped store", () => {
  it("tenants-reversed takes a forced pass's tenants last id first", async () => {
    const statements = { allTenants: Effect.succeed(["t1", "t2", "t3"]) } as unknown as ContentStatements
    expect(await Effect.runPromise(reversedTenantsOfPass(statements, true, 0, 0, 100))).toEqual(["t3", "t2", "t1"])
  })

  it("raise-skips-no-op-write writes nothing when a grant leaves the horizon as it is", async () => {
    const changesOfRegrant = (implementation: ContentImplementation) =>
      withStore(implementation, (store, sql) => Effect.gen(function*() {
        const ref = yield* store.uploadBytes("t1", new Uint8Array([1]))
        const changes = () => Effect.map(sql<{ readonly n: number }>`SELECT total_changes() AS n`, (rows) => Number(rows[0]!.n))
        const before = yield* changes()
        yield* store.grant("t1", ref.hash, ref.size)
        return (yield* changes()) - before
      }))
    expect(await changesOfRegrant(shippedContent)).toBe(1)
    expect(await changesOfRegrant(variant("raise-skips-no-op-write").implementation)).toBe(0)
  })

  it("expiry-checked-before-bound refuses an expired grant for another tenant as expired, the shipped store as invalid", async () => {
    const reasonOf = (implementation: ContentImplementation) =>
      withStore(implementation, (store) => Effect.gen(function*() {
        const ref = yield* store.uploadBytes("t1", new Uint8Array([1]))
        yield* advanceByMs(DEFAULT_CONTENT_SETTINGS.grantLifetimeMs)
        return yield* store.verify(ref.grant, { tenant: "t2", hash: ref.hash, size: ref.size })
      }))
    expect(await reasonOf(shippedContent)).toEqual(Result.fail("invalid"))
    expect(await reasonOf(variant("expiry-checked-before-bound").implementation)).toEqual(Result.fail("expired"))
  })

  it("grant-text-prefixed writes its grants behind a prefix, and refuses the shipped text as malformed", async () => {
    const outcome = await withStore(variant("grant-text-prefixed").implementation, (store) => Effect.gen(function*() {
      const ref = yield* store.uploadBytes("t1", new Uint8Array([1]))
      const bound = { tenant: "t1", hash: ref.hash, size: ref.size }
      return { grant: ref.grant, own: yield* store.verify(ref.grant, bound), bare: yield* store.verify(ref.grant.slice(GRANT_TEXT_PREFIX.length), bound) }
    }))
    expect(outcome.grant.startsWith(GRANT_TEXT_PREFIX)).toBe(true)
    expect(Result.isSuccess(outcome.own)).toBe(true)
    expect(outcome.bare).toEqual(Result.fail("malformed"))
  })
})
