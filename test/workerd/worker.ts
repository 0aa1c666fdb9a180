/**
 * Main module of the `workerd` vitest project: exports the conformance Durable Object (declared in
 * `wrangler.jsonc` as a SQLite-backed class) and a trivial fetch handler.
 */
import { makeConformanceObject } from "../../adapters/do-sqlite/makeConformanceObject.ts"
import { findTestProperty } from "./testProperties.ts"

/** The conformance object, with the workerd tests' own properties. */
export class ConformanceObject extends makeConformanceObject(findTestProperty) {}

export default {
  fetch: (): Response => new Response("durable-conformance workerd test worker")
}
