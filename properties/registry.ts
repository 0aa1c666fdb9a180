/**
 * Every subject suite this package certifies, bound to the shipped implementations, and lookup by
 * property id (used by `replay` and by hosts that run properties elsewhere, such as workerd).
 * Importable in Node and in workerd: no file-system access here.
 */
import type { PropertyDefinition } from "../harness/Property.ts"
import { assertSuiteConsistent, type SubjectSuite } from "../harness/Suite.ts"
import type { SubjectName } from "../spec/Requirement.ts"
import { adapterRequirements } from "../spec/adapter.ts"
import { adapterProperties } from "./adapter/index.ts"
import { alarmsSuite } from "./alarms/index.ts"

/** The storage adapter contract: the first suite `certify` runs on a vendor's adapter. */
export const adapterSuite: SubjectSuite = {
  subject: "adapter",
  implementation: "reference",
  requirements: adapterRequirements,
  properties: adapterProperties
}

/** The suites in the order a run executes them: the adapter contract first. */
export const suites: ReadonlyArray<SubjectSuite> = [adapterSuite, alarmsSuite()]

for (const suite of suites) assertSuiteConsistent(suite)

/** Subject names with a suite. */
export const subjectNames: ReadonlyArray<SubjectName> = suites.map((suite) => suite.subject)

/** The suite of `subject`, if there is one. */
export const findSuite = (subject: string): SubjectSuite | undefined => suites.find((suite) => suite.subject === subject)

/** The registered property with this id, if any. */
export const findProperty = (propertyId: string): PropertyDefinition<any> | undefined =>
  suites.flatMap((suite) => suite.properties).find((property) => property.id === propertyId)
