/**
 * The three in-process built-in adapters (sqlite, pglite, postgres) for a test file: built once in
 * `beforeAll`, closed in `afterAll`. Postgres uses the server the vitest globalSetup started.
 */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll } from "vitest"
import type { StorageAdapter } from "../../adapters/contract.ts"
import { makePgliteAdapter } from "../../adapters/pglite/index.ts"
import { makePostgresAdapter } from "../../adapters/postgres/index.ts"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"

/** Names of the adapters `useNodeAdapters` builds. */
export const NODE_ADAPTER_NAMES = ["sqlite", "pglite", "postgres"] as const

/** Registers the hooks and returns the record the adapters appear in once `beforeAll` ran. */
export const useNodeAdapters = (): Record<string, StorageAdapter> => {
  const scope = Scope.makeUnsafe()
  const adapters: Record<string, StorageAdapter> = {}
  beforeAll(async () => {
    adapters.sqlite = makeSqliteAdapter()
    adapters.pglite = await Effect.runPromise(Scope.provide(makePgliteAdapter, scope))
    adapters.postgres = await Effect.runPromise(Scope.provide(makePostgresAdapter().make, scope))
  })
  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  return adapters
}

/**
 * The postgres adapter alone for a test file (the server the vitest globalSetup started): built in
 * `beforeAll`, closed in `afterAll`. Returns its getter, which throws when called before `beforeAll` ran.
 */
export const usePostgresAdapter = (): (() => StorageAdapter) => {
  const scope = Scope.makeUnsafe()
  let adapter: StorageAdapter | undefined
  beforeAll(async () => {
    adapter = await Effect.runPromise(Scope.provide(makePostgresAdapter().make, scope))
  }, 120_000)
  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  return () => {
    if (adapter === undefined) throw new Error("usePostgresAdapter: the adapter is used before beforeAll ran")
    return adapter
  }
}
