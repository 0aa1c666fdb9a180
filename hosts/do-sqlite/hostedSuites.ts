/**
 * Which properties the conformance Durable Object can run: the suite registry's (bound to the shipped
 * implementations) plus suites a worker registers when it loads (third-party or known-bad
 * implementations, see `host.ts` option `extraSuitesModule`). A run request names a property id and
 * the implementation it is bound to, so `alarms/model` of the shipped scheduler and `alarms/model` of
 * `known-bad/h1-content-ack` are different properties here.
 */
import type { PropertyDefinition } from "../../harness/Property.ts"
import { exportShapes, pluginSuite, resolveExportBinding } from "../../harness/SubjectPlugin.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { subjectPlugins } from "../../properties/plugins.ts"
import { suites as registrySuites } from "../../properties/registry.ts"

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

/**
 * The suites a bundled module provides: its `suites` export when it has one, else the suite of the
 * subject its default (or `implementation`) export implements, bound to it: a bare implementation of
 * a registered subject (an `AlarmsImplementation`) or a binding `{ subject, implementation }` (the
 * shapes `--implementation` accepts). Throws when the module provides neither, naming `specifier`.
 */
export const suitesOfModule = (module: Readonly<Record<string, unknown>>, specifier: string): ReadonlyArray<SubjectSuite> => {
  const suites = module.suites
  if (Array.isArray(suites)) return suites as ReadonlyArray<SubjectSuite>
  for (const candidate of [module.default, module.implementation]) {
    const resolved = resolveExportBinding(subjectPlugins, candidate)
    if (resolved?._tag === "Bound") return [pluginSuite(resolved.plugin, resolved.implementation)]
    if (resolved?._tag === "Ambiguous") {
      throw new Error(`module ${specifier} exports an implementation that fits several subjects (${resolved.plugins.map((plugin) => plugin.name).join(", ")}); export { subject, implementation } to say which`)
    }
  }
  throw new Error(
    `module ${specifier} exports neither suites nor an ${subjectPlugins.map((plugin) => plugin.name).join(" or ")} implementation; ` +
      `export \`suites: SubjectSuite[]\`, or default-export ${exportShapes(subjectPlugins, { version: false })}`
  )
}
