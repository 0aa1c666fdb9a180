/**
 * Loads a third-party implementation module for `run --implementation` and `certify --implementation`.
 *
 * The module's default export (or an export named `implementation`) is either an implementation of a
 * registered subject (`properties/plugins.ts`; for alarms an `AlarmsImplementation` `{ name, make }`)
 * or a binding `{ subject, implementation, version? }`. The suite of that subject is then bound to it in
 * place of the shipped implementation.
 */
import { Effect } from "effect"
import { type AdapterDefinition, AdapterError } from "../adapters/contract.ts"
import { resolveAdapters } from "./adapterRegistry.ts"
import { exportShapes, pluginSuite, resolveExportBinding, type SubjectImplementation } from "../harness/SubjectPlugin.ts"
import type { SubjectSuite } from "../harness/Suite.ts"
import { subjectPlugins } from "../properties/plugins.ts"
import type { SubjectName } from "../spec/Requirement.ts"
import { importUserModule } from "./loadModule.ts"
import { UsageError } from "./options.ts"

/** A subject bound to a third-party implementation. */
export interface ImplementationBinding {
  readonly subject: SubjectName
  readonly implementation: SubjectImplementation
  /** Recorded in certificates; "unversioned" when the module gives none. */
  readonly version: string
  /** The subject's suite bound to the implementation. */
  readonly suite: SubjectSuite
  /** Absolute path of the module (bundled into hosted runtimes such as do-sqlite's worker). */
  readonly modulePath: string
}

const EXPORT_HINT = `export default ${exportShapes(subjectPlugins, { version: true })} (see examples/README.md)`

const bindingOf = (value: unknown, specifier: string, modulePath: string): ImplementationBinding | UsageError | undefined => {
  const resolved = resolveExportBinding(subjectPlugins, value)
  if (resolved === undefined) return undefined
  switch (resolved._tag) {
    case "UnknownSubject":
      return new UsageError({
        message: `implementation module ${specifier} binds subject ${JSON.stringify(resolved.subject)}, which cannot take a third-party implementation`,
        hint: `bind one of: ${subjectPlugins.map((plugin) => plugin.name).join(", ")}`
      })
    case "Ambiguous": {
      const names = resolved.plugins.map((plugin) => plugin.name)
      return new UsageError({
        message: `implementation module ${specifier} exports an implementation that fits the API of several subjects (${names.join(", ")})`,
        hint: `say which: export default { subject: ${JSON.stringify(names[0])}, implementation, version }`
      })
    }
    case "NotAnImplementation": {
      const type = resolved.plugin.implementationType
      return new UsageError({ message: `implementation module ${specifier}: \`implementation\` is not an ${type.name} (needs ${type.needs})`, hint: EXPORT_HINT })
    }
    case "Bound": {
      const { implementation, plugin } = resolved
      return { subject: plugin.name, implementation, version: resolved.version ?? "unversioned", suite: pluginSuite(plugin, implementation), modulePath }
    }
  }
}

/**
 * Loads and checks `specifier` (a `.ts`, `.mts` or `.js` path relative to `cwd`, ES module or
 * CommonJS package: `cli/loadModule.ts`). Every problem is a one-line `UsageError`. The isolation
 * child loads implementation modules with this function too.
 */
export const loadImplementationModule = (specifier: string, cwd: string): Effect.Effect<ImplementationBinding, UsageError> =>
  Effect.gen(function*() {
    const loaded = yield* importUserModule(specifier, cwd, `implementation module ${specifier}`).pipe(
      Effect.mapError((error) => new UsageError({ message: error.message, hint: error.hint }))
    )
    for (const candidate of [loaded.exports["default"], loaded.exports["implementation"]]) {
      const binding = bindingOf(candidate, specifier, loaded.path)
      if (binding instanceof UsageError) return yield* binding
      if (binding !== undefined) return binding
    }
    return yield* new UsageError({ message: `implementation module ${specifier} does not export an implementation`, hint: EXPORT_HINT })
  })

/** `suites` with the bound subject's suite replaced by the binding's. */
export const bindSuites = (suites: ReadonlyArray<SubjectSuite>, binding: ImplementationBinding): ReadonlyArray<SubjectSuite> =>
  suites.map((suite) => (suite.subject === binding.subject ? binding.suite : suite))

/**
 * Resolves `--adapter` values for a run with a bound implementation. Adapters whose databases live in
 * another runtime run registered properties there, so the implementation module must be bundled into
 * that runtime: `do-sqlite` is built with the module as its extra suites.
 */
export const resolveAdaptersFor = (
  specifiers: ReadonlyArray<string>,
  binding: ImplementationBinding | undefined
): Effect.Effect<ReadonlyArray<AdapterDefinition>, AdapterError> =>
  binding === undefined
    ? resolveAdapters(specifiers)
    : Effect.forEach(specifiers, (specifier) =>
      specifier === "do-sqlite"
        ? Effect.tryPromise({
          try: () => import("../hosts/do-sqlite/host.ts").then((module) => module.makeDoSqliteAdapterDefinition({ extraSuitesModule: binding.modulePath })),
          catch: (cause) => new AdapterError({ adapter: specifier, message: `cannot load the do-sqlite adapter: ${String(cause)}`, hint: "run npm ci to install miniflare", cause })
        })
        : Effect.map(resolveAdapters([specifier]), (definitions) => definitions[0]!))
