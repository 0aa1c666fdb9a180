/**
 * What every operation of one store shares: the client, the dialect's spellings, the settings and
 * the grant keys.
 */
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { DialectSql } from "./dialect.ts"
import type { Grants } from "./grants.ts"
import type { ResolvedSettings } from "./settings.ts"

/** The shared pieces of one store. */
export interface StoreContext {
  readonly sql: SqlClient.SqlClient
  readonly d: DialectSql
  readonly settings: ResolvedSettings
  readonly grants: Grants
}

/** NOW, from Effect's clock (the harness's virtual clock); never the database clock. */
export const nowMs: Effect.Effect<number> = Clock.currentTimeMillis
