/**
 * The registry of subject plugins, in the order a run executes them (after the adapter contract).
 * The CLI (`--implementation`, `--subject`, `list`), the do-sqlite host (hosted suites, platform alarm
 * deliveries) and the spec index iterate this list. Adding a subject is one line in `subjectPlugins`.
 *
 * The storage adapter contract is not a plugin: it has requirements and properties but no model and
 * no implementation to bind (a vendor certifies an adapter, not an implementation of the contract), so
 * it stays a separate, non-bindable entry (`adapterSuite`) that runs first.
 * Importable in Node and in workerd: no file-system access here.
 */
import type { AnySubjectPlugin } from "../harness/SubjectPlugin.ts"
import type { SubjectSuite } from "../harness/Suite.ts"
import { adapterRequirements } from "../spec/adapter.ts"
import { adapterProperties } from "./adapter/index.ts"
import { alarmsPlugin } from "./alarms/plugin.ts"
import { contentPlugin } from "./content/plugin.ts"
import { clocksPlugin } from "./clocks/plugin.ts"
import { cronPlugin } from "./cron/plugin.ts"
import { poolPlugin } from "./pool/plugin.ts"

/** Every subject plugin; a third-party implementation can be bound to each. */
export const subjectPlugins: ReadonlyArray<AnySubjectPlugin> = [
  alarmsPlugin,
  contentPlugin,
  clocksPlugin,
  cronPlugin,
  poolPlugin
]

/** The storage adapter contract: the first suite `certify` runs on a vendor's adapter (not bindable). */
export const adapterSuite: SubjectSuite = {
  subject: "adapter",
  implementation: "reference",
  requirements: adapterRequirements,
  properties: adapterProperties
}
