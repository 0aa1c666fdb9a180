/**
 * Which properties the conformance Durable Object can run: the suite registry's (bound to the shipped
 * implementations) plus suites a worker registers when it loads (third-party or known-bad
 * implementations, see `host.ts` option `extraSuitesModule`). A run request names a property id and
 * the implementation it is bound to, so `alarms/model` of the shipped scheduler and `alarms/model` of
 * `known-bad/h1-content-ack` are different properties here.
 */
import type { PropertyDefinition } from "../../harness/Property.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import { suites as registrySuites } from "../../properties/registry.ts"
import type { AlarmsImplementation } from "../../subjects/alarms/api.ts"

/** Implementation name of a property that is not bound to one (the adapter contract). */
export const REFERENCE_IMPLEMENTATION = "reference"

/** Most extra suites a worker may register (one per implementation under test is the expected use). */
export const MAX_EXTRA_SUITES = 256

const extraSuites: Array<SubjectSuite> = []

/**
 * Adds suites whose properties the object may run besides the registry's. Throws when more than
 * `MAX_EXTRA_SUITES` would be registered.
 */
export const registerHostedSuites = (suites: ReadonlyArray<SubjectSuite>): void => {
  if (extraSuites.length + suites.length > MAX_EXTRA_SUITES) {
    throw new Error(`at most ${MAX_EXTRA_SUITES} extra suites may be registered in one worker; bundle fewer`)
  }
  extraSuites.push(...suites)
}

/** The registry's suites, then the registered extra ones. */
export const hostedSuites = (): ReadonlyArray<SubjectSuite> => [...registrySuites, ...extraSuites]

/** The implementation a property is bound to (`reference` when it names none). */
export const implementationOf = (property: PropertyDefinition<any>): string => property.implementation ?? REFERENCE_IMPLEMENTATION

/**
 * The property `propertyId` bound to `implementation`, searched in `suites` (default: registry and
 * extra suites). Without an implementation the first property with that id wins (the registry's).
 */
export const findHostedProperty = (
  propertyId: string,
  implementation?: string,
  suites: ReadonlyArray<SubjectSuite> = hostedSuites()
): PropertyDefinition<any> | undefined => {
  for (const suite of suites) {
    for (const property of suite.properties) {
      if (property.id !== propertyId) continue
      if (implementation === undefined || implementationOf(property) === implementation) return property
    }
  }
  return undefined
}

/** Whether `value` looks like an `AlarmsImplementation` (a non-empty name and a `make` function). */
const isAlarmsImplementation = (value: unknown): value is AlarmsImplementation =>
  typeof value === "object" && value !== null &&
  typeof (value as AlarmsImplementation).name === "string" && (value as AlarmsImplementation).name.length > 0 &&
  typeof (value as AlarmsImplementation).make === "function"

/**
 * The suites a bundled module provides: its `suites` export when it has one, else the alarms suite
 * bound to its default (or `implementation`) export, an `AlarmsImplementation` or a binding
 * `{ subject: "alarms", implementation }` (the shapes `--implementation` accepts). Throws when the
 * module provides neither, naming `specifier`.
 */
export const suitesOfModule = (module: Readonly<Record<string, unknown>>, specifier: string): ReadonlyArray<SubjectSuite> => {
  const suites = module.suites
  if (Array.isArray(suites)) return suites as ReadonlyArray<SubjectSuite>
  for (const candidate of [module.default, module.implementation]) {
    if (isAlarmsImplementation(candidate)) return [alarmsSuite(candidate)]
    if (typeof candidate === "object" && candidate !== null) {
      const binding = candidate as { readonly subject?: unknown; readonly implementation?: unknown }
      if (binding.subject === "alarms" && isAlarmsImplementation(binding.implementation)) return [alarmsSuite(binding.implementation)]
    }
  }
  throw new Error(
    `module ${specifier} exports neither suites nor an alarms implementation; ` +
      "export `suites: SubjectSuite[]`, or default-export an AlarmsImplementation or { subject: \"alarms\", implementation }"
  )
}
