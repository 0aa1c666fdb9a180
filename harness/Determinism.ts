/**
 * The determinism check (`run --check-determinism`), in the manner of madsim's: every scenario runs
 * twice, each time on a fresh database under the same virtual clock and seeded randomness, and the two
 * traces must be equal step by step. A difference means the implementation, the adapter or the model
 * reads something the harness does not control (the wall clock, `Math.random`, map iteration order
 * of a shared cache, the database clock), so no counterexample of it could be trusted to replay.
 *
 * @example
 * ```ts
 * const execute = checkingDeterminism(executeOnce)
 * // fails with HarnessError "scenario is not deterministic: step 3 (processDueAlarms) differs: ..."
 * ```
 */
import { Effect } from "effect"
import { HarnessError } from "./errors.ts"
import type { ExecuteScenario } from "./FailureSearch.ts"
import { brief, jsonEqual } from "./ModelBased.ts"
import type { ExecutionTrace, Json } from "./Property.ts"

/** Where two traces of one scenario first differ, in words; `undefined` when they are equal. */
export const firstTraceDifference = (first: ExecutionTrace, second: ExecutionTrace): string | undefined => {
  const steps = Math.max(first.steps.length, second.steps.length)
  for (let index = 0; index < steps; index++) {
    const [a, b] = [first.steps[index], second.steps[index]]
    if (a === undefined || b === undefined) {
      return `the first run had ${first.steps.length} steps, the second ${second.steps.length}`
    }
    if (!jsonEqual(a, b)) {
      const field = (Object.keys({ ...a, ...b }) as Array<keyof typeof a>).find((key) => !jsonEqual(a[key] ?? null, b[key] ?? null))
      const shown = (value: unknown) => brief((value ?? null) as Json)
      return `step ${index} (${a.operation}) differs in ${String(field)}: ${shown(field === undefined ? a : a[field])} the first time, ${shown(field === undefined ? b : b[field])} the second`
    }
  }
  if (!jsonEqual(first.divergence, second.divergence)) return `the divergence differs: ${brief(first.divergence as unknown as Json)} the first time, ${brief(second.divergence as unknown as Json)} the second`
  if (!jsonEqual(first.covered, second.covered)) return "the requirements reached differ"
  if (!jsonEqual(first.situations ?? [], second.situations ?? [])) return "the situations reached differ"
  return undefined
}

/**
 * Wraps `execute` so each scenario runs twice and fails with a `HarnessError` naming the first
 * difference (the property's verdict is then `error`); returns the first trace when both agree.
 */
export const checkingDeterminism = (execute: ExecuteScenario): ExecuteScenario => (scenario) =>
  Effect.gen(function*() {
    const first = yield* execute(scenario)
    const second = yield* execute(scenario)
    const difference = firstTraceDifference(first, second)
    if (difference === undefined) return first
    return yield* new HarnessError({
      message: `scenario is not deterministic: ${difference}`,
      hint: "something outside the harness's control decides the outcome (the wall clock, Math.random, the database clock, a cache shared between runs); read time from Effect's Clock and randomness from Effect's Random"
    })
  })
