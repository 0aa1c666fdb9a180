/**
 * A subject's hook vocabulary: the hook point names its properties know how to pause at
 * (`SubjectPlugin.hookPoints`), checked on every hit an implementation makes.
 *
 * Hook points are optional: an implementation that reaches none is certified the same way, with fewer
 * interleavings explored. But a hook point reached under a name the subject does not declare is a
 * binding mistake the harness would otherwise never see: no schedule can pause there, so every
 * interleaving meant for that place silently collapses into the sequential one and the concurrent
 * properties pass without having explored it. So each scenario notes the undeclared names reached,
 * and the property ends in a `HarnessError` naming them instead of a verdict built on interleavings
 * that never happened.
 */
import { Context, Effect } from "effect"
import type { PropertyDefinition } from "./Property.ts"
import type { SubjectSuite } from "./Suite.ts"
import { HarnessError } from "./errors.ts"

/** Distinct undeclared names remembered per scenario (the error lists them; more add nothing). */
export const MAX_UNDECLARED_HOOK_NAMES = 16

/** The vocabulary of the running scenario and the undeclared names reached so far. */
export interface HookVocabularyState {
  /** Declared names; `undefined` outside a checked scenario (then nothing is checked). */
  readonly declared: ReadonlySet<string> | undefined
  /** Undeclared names reached, first hit first, at most `MAX_UNDECLARED_HOOK_NAMES`. */
  readonly undeclared: Array<string>
}

/** The running scenario's vocabulary; the default checks nothing. */
export const HookVocabulary = Context.Reference<HookVocabularyState>("durable-conformance/harness/HookVocabulary", {
  defaultValue: () => ({ declared: undefined, undeclared: [] })
})

/** Notes a hit of `name` against the running scenario's vocabulary (called by `hookPoint`). */
export const noteHookPoint = (name: string): Effect.Effect<void> =>
  Effect.map(Effect.service(HookVocabulary), (state) => {
    if (state.declared === undefined || state.declared.has(name)) return
    if (state.undeclared.includes(name) || state.undeclared.length >= MAX_UNDECLARED_HOOK_NAMES) return
    state.undeclared.push(name)
  })

/** The error of a scenario that reached undeclared hook points, saying what to rename. */
export const undeclaredHookError = (
  subject: string,
  propertyId: string,
  undeclared: ReadonlyArray<string>,
  declared: ReadonlyArray<string>
): HarnessError =>
  new HarnessError({
    message: `${propertyId}: the implementation reached hook point${undeclared.length === 1 ? "" : "s"} ` +
      `${undeclared.map((name) => JSON.stringify(name)).join(", ")}, which subject ${subject} does not declare, ` +
      "so no interleaving could pause there",
    hint: `use the declared names (${declared.map((name) => JSON.stringify(name)).join(", ")}), ` +
      "or remove the hook point: hook points are optional"
  })

const checkedProperty = (
  subject: string,
  property: PropertyDefinition<any>,
  declared: ReadonlyArray<string>
): PropertyDefinition<any> => {
  // Shared read-only by every scenario of the property; only the undeclared list is per scenario.
  const declaredNames: ReadonlySet<string> = new Set(declared)
  return {
    ...property,
    execute: (scenario, environment) =>
      Effect.gen(function*() {
        const state: HookVocabularyState = { declared: declaredNames, undeclared: [] }
        const trace = yield* Effect.provideService(property.execute(scenario, environment), HookVocabulary, state)
        if (state.undeclared.length > 0) return yield* undeclaredHookError(subject, property.id, state.undeclared, declared)
        return trace
      })
  }
}

/**
 * `suite` with every property checking the hook points its implementation reaches against
 * `declared`; unchanged when the subject declares none (`undefined`).
 *
 * @example withHookVocabulary(alarmsSuite(mine), ["alarms.afterReadExisting"])
 */
export const withHookVocabulary = (suite: SubjectSuite, declared: ReadonlyArray<string> | undefined): SubjectSuite =>
  declared === undefined
    ? suite
    : { ...suite, properties: suite.properties.map((property) => checkedProperty(suite.subject, property, declared)) }
