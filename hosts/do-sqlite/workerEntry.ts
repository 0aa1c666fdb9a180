/**
 * Main module of the worker that `host.ts` bundles and starts in Miniflare: the shipped conformance
 * Durable Object (every property of the suite's registry, plus extra suites a host bundles in), the
 * alarms subject's real platform alarm delivery, and the fetch handler Node talks to.
 */
import { registerAlarmsDelivery } from "./alarmsDelivery.ts"
import { ConformanceObject } from "./ConformanceObject.ts"
import { conformanceFetchHandler } from "./workerRouting.ts"

registerAlarmsDelivery()

export { ConformanceObject }

export default conformanceFetchHandler
