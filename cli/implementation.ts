/**
 * Loads a third-party implementation module for `run --implementation` and `certify --implementation`.
 *
 * The module's default export (or an export named `implementation`) is either an `AlarmsImplementation`
 * (`{ name, make }`) or a binding `{ subject: "alarms", implementation, version? }`. The suite of that
 * subject is then bound to it in place of the shipped implementation.
 */
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Effect } from "effect"
import { type AdapterDefinition, AdapterError } from "../adapters/contract.ts"
import { resolveAdapters } from "./adapterRegistry.ts"
import type { SubjectSuite } from "../harness/Suite.ts"
import { alarmsSuite } from "../properties/alarms/index.ts"
import type { AlarmsImplementation } from "../subjects/alarms/api.ts"
import { UsageError } from "./options.ts"

/** Subjects a third-party implementation can be bound to. */
export const BINDABLE_SUBJECTS = ["alarms"] as const

/** A subject bound to a third-party implementation. */
export interface ImplementationBinding {
  readonly subject: (typeof BINDABLE_SUBJECTS)[number]
  readonly implementation: AlarmsImplementation
  /** Recorded in certificates; "unversioned" when the module gives none. */
  readonly version: string
  /** The subject's suite bound to the implementation. */
  readonly suite: SubjectSuite
  /** Absolute path of the module (bundled into hosted runtimes such as do-sqlite's worker). */
  readonly modulePath: string
}

const EXPORT_HINT = "export default an AlarmsImplementation { name, make } or { subject: \"alarms\", implementation, version } (see examples/README.md)"

const isAlarmsImplementation = (value: unknown): value is AlarmsImplementation =>
  typeof value === "object" && value !== null &&
  typeof (value as AlarmsImplementation).name === "string" && (value as AlarmsImplementation).name.length > 0 &&
  typeof (value as AlarmsImplementation).make === "function"

const bindingOf = (value: unknown, specifier: string, modulePath: string): ImplementationBinding | UsageError | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const candidate = value as { subject?: unknown; implementation?: unknown; version?: unknown }
  if (candidate.subject !== undefined) {
    if (!BINDABLE_SUBJECTS.includes(candidate.subject as "alarms")) {
      return new UsageError({
        message: `implementation module ${specifier} binds subject ${JSON.stringify(candidate.subject)}, which cannot take a third-party implementation`,
        hint: `bind one of: ${BINDABLE_SUBJECTS.join(", ")}`
      })
    }
    if (!isAlarmsImplementation(candidate.implementation)) {
      return new UsageError({ message: `implementation module ${specifier}: \`implementation\` is not an AlarmsImplementation (needs a name and a make function)`, hint: EXPORT_HINT })
    }
    const version = typeof candidate.version === "string" && candidate.version.length > 0 ? candidate.version : "unversioned"
    return { subject: "alarms", implementation: candidate.implementation, version, suite: alarmsSuite(candidate.implementation), modulePath }
  }
  if (isAlarmsImplementation(value)) {
    const version = typeof candidate.version === "string" && candidate.version.length > 0 ? candidate.version : "unversioned"
    return { subject: "alarms", implementation: value, version, suite: alarmsSuite(value), modulePath }
  }
  return undefined
}

/** Loads and checks `specifier` (a .ts or .js path, relative to `cwd`). Every problem is a one-line `UsageError`. */
export const loadImplementationModule = (specifier: string, cwd: string): Effect.Effect<ImplementationBinding, UsageError> =>
  Effect.gen(function*() {
    const path = resolve(cwd, specifier)
    if (!existsSync(path)) {
      return yield* new UsageError({ message: `implementation module ${specifier} does not exist (looked at ${path})`, hint: "check the path given to --implementation" })
    }
    const module = yield* Effect.tryPromise({
      try: () => import(pathToFileURL(path).href) as Promise<Record<string, unknown>>,
      catch: (cause) => new UsageError({ message: `implementation module ${specifier} failed to load: ${cause instanceof Error ? cause.message : String(cause)}`, hint: "fix the error in the module; run it with tsx to see the stack" })
    })
    for (const candidate of [module.default, module.implementation]) {
      const binding = bindingOf(candidate, specifier, path)
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
