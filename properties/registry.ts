/**
 * Every subject suite this package certifies, bound to the shipped implementations, and lookup by
 * property id (used by `replay` and by hosts that run properties elsewhere, such as workerd).
 * Importable in Node and in workerd: no file-system access here.
 */
import type { PropertyDefinition } from "../harness/Property.ts"
import { pluginSuite } from "../harness/SubjectPlugin.ts"
import { assertSuiteConsistent, type SubjectSuite } from "../harness/Suite.ts"
import type { SubjectName } from "../spec/Requirement.ts"
import { adapterSuite, subjectPlugins } from "./plugins.ts"

export { adapterSuite } from "./plugins.ts"

/** The suites in the order a run executes them: the adapter contract first, then each plugin's shipped suite. */
export const suites: ReadonlyArray<SubjectSuite> = [adapterSuite, ...subjectPlugins.map((plugin) => pluginSuite(plugin, plugin.shipped))]

for (const suite of suites) assertSuiteConsistent(suite)

/** Subject names with a suite. */
export const subjectNames: ReadonlyArray<SubjectName> = suites.map((suite) => suite.subject)

/** The suite of `subject`, if there is one. */
export const findSuite = (subject: string): SubjectSuite | undefined => suites.find((suite) => suite.subject === subject)

/** The registered property with this id, if any. */
export const findProperty = (propertyId: string): PropertyDefinition<any> | undefined =>
  suites.flatMap((suite) => suite.properties).find((property) => property.id === propertyId)
