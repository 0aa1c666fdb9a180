/**
 * Main module of the `workerd` vitest project: exports the conformance Durable Object (declared in
 * `wrangler.jsonc` as a SQLite-backed class) and a trivial fetch handler.
 */
import { findHostedProperty, registerHostedSuites } from "../../adapters/do-sqlite/hostedSuites.ts"
import { makeConformanceObject } from "../../adapters/do-sqlite/makeConformanceObject.ts"
import { suites as knownBadSuites } from "./knownBadSuites.ts"
import { findTestProperty } from "./testProperties.ts"

registerHostedSuites(knownBadSuites)

/**
 * The conformance object, with the registry's properties, the known-bad alarms suites and the
 * workerd tests' own properties.
 */
export class ConformanceObject extends makeConformanceObject((propertyId, implementation) =>
  findHostedProperty(propertyId, implementation) ?? findTestProperty(propertyId)
) {}

export default {
  fetch: (): Response => new Response("durable-conformance workerd test worker")
}
