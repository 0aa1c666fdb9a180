/**
 * The `config` probe: "apart from the gates it is `PgClient.make`: the same compiler, transforms, span
 * attributes, ..." (seed 001, `bounded.d.ts`). A caller's config (its own span attributes, database,
 * username, host, port, each given or not) builds a bounded pool and upstream's `PgClient.make`, side
 * by side in a scope of their own; a statement of each carries the span attributes a tracer records for
 * it (`Statement.spanAttributes`, public on every statement, from which the span name is also derived).
 * Both must be the same list, in the same order (the last value of a key wins). Neither pool opens a
 * session: no statement runs, so nothing reaches the wire and the config needs no reachable server.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Exit } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql"
import type { Json } from "../../harness/Property.ts"
import { HarnessError } from "../../harness/errors.ts"
import type { CallerConfig } from "./surfaceScenario.ts"
import { outcomeOf, type ProbeResult, type SurfaceContext } from "./surfaceRuntime.ts"
import { toJson } from "../../harness/ToJson.ts"

/** The seed's statement the check cites (the reference page has no rule on telemetry). */
export const SEED_CLIENT_RULE = "seed bounded.d.ts"

/** The span attributes a statement of `client` carries, as JSON. */
const statementAttributes = (client: SqlClient.SqlClient): Json => {
  const attributes: unknown = (client.unsafe("SELECT 1") as { readonly spanAttributes?: unknown }).spanAttributes
  return Array.isArray(attributes) ? toJson(attributes) : `not a list (${typeof attributes})`
}

/** The `config` probe: the pool's statement span attributes are upstream's for the caller's `config`. */
export const configProbe = (context: SurfaceContext, caller: CallerConfig): Effect.Effect<ProbeResult, HarnessError> =>
  Effect.gen(function*() {
    const config: PgClient.PgPoolConfig = { ...caller, ssl: false, maxConnections: context.maxConnections, minConnections: 0 }
    const built = yield* Effect.scoped(Effect.gen(function*() {
      const upstream = yield* PgClient.make(config).pipe(Effect.mapError((cause) =>
        new HarnessError({ message: `pool property: PgClient.make refused a caller's config: ${cause.message}`, hint: "the config probe's generator", cause })
      ))
      const pool = yield* Effect.exit(context.implementation.boundedPool(config))
      const actual: Json = Exit.isSuccess(pool) ? statementAttributes(pool.value) : `not built: ${outcomeOf(pool)}`
      return { expected: statementAttributes(upstream), actual }
    })).pipe(Effect.provide(Reactivity.layer))
    return {
      checks: [{
        observable: `span attributes of a statement, pool built with ${JSON.stringify(caller)}`,
        expected: built.expected,
        actual: built.actual,
        rules: [SEED_CLIENT_RULE],
        why: "apart from its gates the bounded pool is PgClient.make, with the same span attributes (the caller's, then db.system.name, db.namespace, server.address, server.port from the config)"
      }],
      covered: ["POL-013"],
      implementation: built.actual,
      model: built.expected
    }
  })
