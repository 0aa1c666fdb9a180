/**
 * Main module of the `workerd` vitest project: exports the conformance Durable Object (declared in
 * `wrangler.jsonc` as a SQLite-backed class) and a trivial fetch handler.
 */
import { findHostedProperty, registerHostedSuites } from "../../hosts/do-sqlite/hostedSuites.ts"
import { makeConformanceObject } from "../../hosts/do-sqlite/makeConformanceObject.ts"
import { suites as knownBadSuites } from "./knownBadSuites.ts"
import { findTestProperty } from "./testProperties.ts"

registerHostedSuites(knownBadSuites)

/**
 * The conformance object, with the registry's properties, the known-bad alarms suites and the
 * workerd tests' own properties.
 */
export class ConformanceObject extends makeConformanceObject((propertyId, implementation) =>
  findHostedProperty(propertyId, implementation) ?? findTestProperty(propertyId)
) {
  /** Identifies this instance: a reset object answers with a new token. */
  readonly #instanceToken = crypto.randomUUID()

  /** RPC (tests only): this instance's token. */
  instanceToken(): string {
    return this.#instanceToken
  }

  /** RPC (tests only): resets the object as an eviction does (`ctx.abort`); the call itself rejects. */
  evictForTest(reason: string): void {
    this.ctx.abort(reason)
  }

  /**
   * RPC (tests only): runs `statements` in one `transactionSync` (committed as far as the caller can
   * tell), then resets the object in the same turn, before workerd flushes the object's implicit transaction.
   */
  commitThenEvictForTest(statements: ReadonlyArray<string>, reason: string): void {
    this.ctx.storage.transactionSync(() => {
      for (const statement of statements) this.ctx.storage.sql.exec(statement)
    })
    this.ctx.abort(reason)
  }
}

export default {
  fetch: (): Response => new Response("durable-conformance workerd test worker")
}
