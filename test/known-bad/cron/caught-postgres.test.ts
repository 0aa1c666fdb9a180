/** Every known-bad cron implementation is caught on postgres (the server the vitest globalSetup started; see `caughtOn.ts`). */
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll } from "vitest"
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { makePostgresAdapter } from "../../../adapters/postgres/index.ts"
import { describeCaughtOn } from "./caughtOn.ts"

const scope = Scope.makeUnsafe()
let adapter: StorageAdapter
beforeAll(async () => {
  adapter = await Effect.runPromise(Scope.provide(makePostgresAdapter().make, scope))
}, 120_000)
afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})
describeCaughtOn("postgres", () => adapter)
