/**
 * Main module of the `workerd` vitest project: exports the conformance Durable Object (declared in
 * `wrangler.jsonc` as a SQLite-backed class) and a trivial fetch handler.
 */
import { makeConformanceObject } from "../../adapters/do-sqlite/makeConformanceObject.ts"
import { adapterProperties } from "../../properties/adapter/index.ts"
import { findTestProperty } from "./testProperties.ts"

const adapterPropertiesById = new Map(adapterProperties.map((property) => [property.id, property]))

/** The conformance object, with the adapter-contract properties and the workerd tests' own properties. */
export class ConformanceObject extends makeConformanceObject((propertyId) => adapterPropertiesById.get(propertyId) ?? findTestProperty(propertyId)) {}

export default {
  fetch: (): Response => new Response("durable-conformance workerd test worker")
}
