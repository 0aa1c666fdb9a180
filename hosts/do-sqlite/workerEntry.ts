/**
 * Main module of the worker that `host.ts` bundles and starts in Miniflare: the shipped conformance
 * Durable Object (every property of the suite's registry, plus extra suites a host bundles in), the
 * real platform alarm delivery of every subject plugin that has one, and the fetch handler Node talks to.
 */
import { subjectPlugins } from "../../properties/plugins.ts"
import { registerPluginDeliveries } from "./alarmHandlers.ts"
import { ConformanceObject } from "./ConformanceObject.ts"
import { conformanceFetchHandler } from "./workerRouting.ts"

registerPluginDeliveries(subjectPlugins)

export { ConformanceObject }

export default conformanceFetchHandler
