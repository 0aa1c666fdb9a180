/**
 * A subject plugin: everything the CLI, the hosts and the spec index need to know about one durable
 * primitive (`alarms`, later `content`, `clocks`, `cron`, `pool`), in one value. The registry of
 * plugins is `properties/plugins.ts`; adding a subject is one line there.
 *
 * A plugin names the subject's requirement catalog and reference model, recognises an
 * implementation of its public API (`isImplementation`), carries the shipped implementation, builds
 * the subject's suite bound to any implementation, and may offer hook points and a handler for real
 * platform-alarm deliveries (do-sqlite runs it when workerd fires the Durable Object's alarm).
 *
 * @example
 * ```ts
 * const plugin = findPlugin(subjectPlugins, "alarms")!
 * const suite = pluginSuite(plugin, plugin.shipped)          // the shipped implementation's suite
 * if (plugin.isImplementation(value)) pluginSuite(plugin, value) // a third party's
 * ```
 */
import type { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { PlatformAlarm } from "../adapters/contract.ts"
import type { Requirement, SubjectName } from "../spec/Requirement.ts"
import { withHookVocabulary } from "./HookVocabulary.ts"
import type { AnyReferenceModel } from "./ReferenceModel.ts"
import type { SubjectSuite } from "./Suite.ts"

/** What every implementation of every subject has: a short stable name used in reports. */
export interface SubjectImplementation {
  readonly name: string
}

/** How a subject's implementation type is named in usage messages. */
export interface ImplementationTypeName {
  /** The exported type, e.g. `AlarmsImplementation`. */
  readonly name: string
  /** Its shape in braces, e.g. `{ name, make }`. */
  readonly shape: string
  /** What the guard needs, in words, e.g. `a name and a make function`. */
  readonly needs: string
}

/** One real platform alarm delivery, as a host hands it to a subject. */
export interface PlatformAlarmDelivery {
  /** A client over the storage the delivery belongs to (the same tables a run wrote). */
  readonly sql: SqlClient.SqlClient
  /** The platform alarm slot (already cleared for this delivery; the handler may set it again). */
  readonly platformAlarm: PlatformAlarm
  /** The host's retry counter: 0 on the first attempt. */
  readonly retryCount: number
  readonly isRetry: boolean
  /** The virtual time the alarm was set for, when the host reports it. */
  readonly scheduledAtMs: number | null
}

/** A subject's work for one real platform alarm delivery; a failure makes the host retry the alarm. */
export type PlatformAlarmDeliveryHandler = (delivery: PlatformAlarmDelivery) => Effect.Effect<void, unknown>

/** One subject, as the CLI, the hosts and the spec index see it. */
export interface SubjectPlugin<Implementation extends SubjectImplementation> {
  /** The subject, e.g. `alarms` (also the `subject` of a binding module and of the suite). */
  readonly name: SubjectName
  /** The subject's requirement catalog, in ID order. */
  readonly requirements: ReadonlyArray<Requirement>
  /** The reference model the properties compare against (its name and description go in reports). */
  readonly model: AnyReferenceModel
  /** How the implementation type is named in usage messages. */
  readonly implementationType: ImplementationTypeName
  /** Whether `value` implements the subject's public API. */
  readonly isImplementation: (value: unknown) => value is Implementation
  /** The implementation this package ships. */
  readonly shipped: Implementation
  /** The subject's suite bound to `implementation`. */
  readonly suite: (implementation: Implementation) => SubjectSuite
  /** Hook point names an implementation may offer for finer interleavings (optional refinements). */
  readonly hookPoints?: ReadonlyArray<string>
  /** What a real platform alarm delivery runs on do-sqlite, registered under the subject's name. */
  readonly platformAlarmDelivery?: PlatformAlarmDeliveryHandler
}

/**
 * The suite of `plugin` bound to `implementation`, each property checking the hook points the
 * implementation reaches against the plugin's `hookPoints` (`HookVocabulary.ts`). Every runner binds
 * suites through this, never through `plugin.suite` alone.
 */
export const pluginSuite = <Implementation extends SubjectImplementation>(
  plugin: SubjectPlugin<Implementation>,
  implementation: Implementation
): SubjectSuite => withHookVocabulary(plugin.suite(implementation), plugin.hookPoints)

/** A plugin whose implementation type is not known statically (the registry holds these). */
export type AnySubjectPlugin = SubjectPlugin<any>

/** The plugin of `subject` in `plugins`, if any. */
export const findPlugin = (plugins: ReadonlyArray<AnySubjectPlugin>, subject: unknown): AnySubjectPlugin | undefined =>
  plugins.find((plugin) => plugin.name === subject)

/**
 * A guard for the common implementation shape: an object with a non-empty `name` and the named
 * functions.
 *
 * @example hasNameAndFunctions({ name: "mine", make: () => 0 }, ["make"]) // true
 */
export const hasNameAndFunctions = (value: unknown, functionNames: ReadonlyArray<string>): boolean => {
  if (typeof value !== "object" || value === null) return false
  const record = value as Readonly<Record<string, unknown>>
  return typeof record.name === "string" && record.name.length > 0 &&
    functionNames.every((functionName) => typeof record[functionName] === "function")
}

/** What an export of an implementation module binds to, or why it cannot bind. */
export type ExportBinding =
  | {
    readonly _tag: "Bound"
    readonly plugin: AnySubjectPlugin
    readonly implementation: SubjectImplementation
    /** The module's `version`, when it is a non-empty string. */
    readonly version: string | undefined
  }
  /** A binding `{ subject, ... }` naming a subject no plugin takes. */
  | { readonly _tag: "UnknownSubject"; readonly subject: unknown }
  /** A binding whose `implementation` fails its subject's guard. */
  | { readonly _tag: "NotAnImplementation"; readonly plugin: AnySubjectPlugin }
  /**
   * A bare implementation that fits the API of several subjects (alarms, content, clocks and cron all
   * take `{ name, make }`): binding it to the first would run the wrong requirements on it.
   */
  | { readonly _tag: "Ambiguous"; readonly plugins: ReadonlyArray<AnySubjectPlugin> }

const versionOf = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 ? value : undefined

/**
 * Reads one export of an implementation module: a binding `{ subject, implementation, version? }`,
 * or a bare implementation of exactly one plugin's subject (`Ambiguous` when several guards accept it:
 * the module must then say which subject). `undefined` when the value is neither.
 *
 * @example resolveExportBinding(subjectPlugins, { subject: "alarms", implementation: mine })?._tag // "Bound"
 */
export const resolveExportBinding = (plugins: ReadonlyArray<AnySubjectPlugin>, value: unknown): ExportBinding | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const candidate = value as { readonly subject?: unknown; readonly implementation?: unknown; readonly version?: unknown }
  if (candidate.subject !== undefined) {
    const plugin = findPlugin(plugins, candidate.subject)
    if (plugin === undefined) return { _tag: "UnknownSubject", subject: candidate.subject }
    if (!plugin.isImplementation(candidate.implementation)) return { _tag: "NotAnImplementation", plugin }
    return { _tag: "Bound", plugin, implementation: candidate.implementation, version: versionOf(candidate.version) }
  }
  const accepting = plugins.filter((entry) => entry.isImplementation(value))
  if (accepting.length > 1) return { _tag: "Ambiguous", plugins: accepting }
  const plugin = accepting[0]
  return plugin === undefined ? undefined : { _tag: "Bound", plugin, implementation: value as SubjectImplementation, version: versionOf(candidate.version) }
}

/**
 * The export shapes an implementation module may use, for usage hints.
 *
 * @example exportShapes(subjectPlugins, { version: true }) // 'an AlarmsImplementation { name, make } or { subject: "alarms", implementation, version }'
 */
export const exportShapes = (plugins: ReadonlyArray<AnySubjectPlugin>, options: { readonly version: boolean }): string => {
  const bare = plugins.map((plugin) => `an ${plugin.implementationType.name} ${plugin.implementationType.shape}`)
  const subjects = plugins.map((plugin) => JSON.stringify(plugin.name)).join(" | ")
  return [...bare, `{ subject: ${subjects}, implementation${options.version ? ", version" : ""} }`].join(" or ")
}
