/**
 * Binding an independently written cron runtime to the suite:
 *
 *   npx durable-conformance run --implementation ./examples/third-party-cron/index.ts --adapter sqlite --subject cron
 *
 * The module default-exports `{ subject: "cron", implementation, version }`; `implementation` is a
 * `CronImplementation` (subjects/cron/api.ts). It has no hook points: the harness pauses at its own
 * transaction boundaries.
 */
import { theirCron } from "./theirCron.ts"

export default { subject: "cron" as const, implementation: theirCron, version: "0.1.0" }
