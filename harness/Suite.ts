/**
 * A subject suite: a subject's requirement catalog plus the properties that check it, bound to one
 * implementation. The conformance run, `certify` and `replay` all work on suites, so a new subject
 * plugs in by adding one suite to the registry.
 */
import type { CapabilityName } from "../adapters/contract.ts"
import type { Requirement, SubjectName } from "../spec/Requirement.ts"
import type { PropertyDefinition } from "./Property.ts"

/** Requirements and properties of one subject, bound to one implementation. */
export interface SubjectSuite {
  readonly subject: SubjectName
  /** The implementation the properties drive (`reference` for the shipped one). */
  readonly implementation: string
  readonly requirements: ReadonlyArray<Requirement>
  readonly properties: ReadonlyArray<PropertyDefinition<any>>
  /**
   * The model's named situations, in the order the coverage table lists them (`Coverage.ts`); its
   * properties' traces report the ones they reached. Optional: a suite without them has no table.
   */
  readonly situations?: ReadonlyArray<string>
  /**
   * Situations only an adapter with these capabilities can reach (e.g. two fires whose transactions
   * overlap need independent connections and row locks). On an adapter without them the situation is
   * not in its coverage table, so `certify` does not ask for it; every other situation is. What every
   * property of the suite needs needs no entry: where no property applies there is no table at all.
   */
  readonly situationNeeds?: Readonly<Record<string, ReadonlyArray<CapabilityName>>>
}

/** Map from property id to the requirement IDs it checks, across suites. */
export const requirementsByProperty = (suites: ReadonlyArray<SubjectSuite>): ReadonlyMap<string, ReadonlyArray<string>> =>
  new Map(suites.flatMap((suite) => suite.properties.map((property) => [property.id, property.requirements] as const)))

/** Checks a suite for programming errors: every requirement a property names exists in the catalog, ids are unique. */
export const assertSuiteConsistent = (suite: SubjectSuite): void => {
  const ids = new Set(suite.requirements.map((requirement) => requirement.id))
  if (ids.size !== suite.requirements.length) throw new Error(`suite ${suite.subject}: duplicate requirement ids`)
  const propertyIds = new Set<string>()
  for (const property of suite.properties) {
    if (propertyIds.has(property.id)) throw new Error(`suite ${suite.subject}: duplicate property id ${property.id}`)
    propertyIds.add(property.id)
    for (const id of property.requirements) {
      if (!ids.has(id)) throw new Error(`property ${property.id} names requirement ${id}, which suite ${suite.subject} does not define`)
    }
  }
}

/** The property `id` of `suite`; throws naming the suite and its property ids when it has none (a test's or an option's typo). */
export const propertyById = <S extends SubjectSuite>(suite: S, id: string): S["properties"][number] => {
  const property = suite.properties.find((candidate) => candidate.id === id)
  if (property === undefined) {
    throw new Error(`suite ${suite.subject} (${suite.implementation}) has no property ${id}; it has ${suite.properties.map((candidate) => candidate.id).join(", ")}`)
  }
  return property
}
