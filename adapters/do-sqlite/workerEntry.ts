/**
 * Main module of the worker that `host.ts` bundles and starts in Miniflare: the shipped conformance
 * Durable Object (every property of the suite's registry) and the fetch handler Node talks to.
 */
import { ConformanceObject } from "./ConformanceObject.ts"
import { conformanceFetchHandler } from "./workerRouting.ts"

export { ConformanceObject }

export default conformanceFetchHandler
