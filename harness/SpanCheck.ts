/**
 * The check that a call opened the spans upstream opens for the same operation (an operator's traces,
 * dashboards and alerts key on those names), from the names `SpanRecorder` recorded. Only that every
 * expected name is among the opened ones is asked: an implementation may open spans of its own around
 * or inside them.
 */
import type { Check } from "./ModelBased.ts"

/** Most distinct opened span names a witness shows. */
export const SHOWN_SPANS = 8

/**
 * The check of one call: `expected` span names all among `opened`.
 *
 * @example spanNamesCheck("deferredDone", ["DeferredPersistence.deferredDone"], ["clocks.deferredDone"], "seed DeferredPersistence.ts")
 * // a mismatch: actual { opened: ["clocks.deferredDone"], missing: ["DeferredPersistence.deferredDone"] }
 */
export const spanNamesCheck = (operation: string, expected: ReadonlyArray<string>, opened: ReadonlyArray<string>, rule: string): Check => {
  const missing = expected.filter((name) => !opened.includes(name))
  return {
    observable: "spans the call opened",
    expected: [...expected],
    actual: missing.length === 0 ? [...expected] : { opened: [...new Set(opened)].slice(0, SHOWN_SPANS), missing },
    rules: [rule],
    why: `upstream runs ${operation} in ${expected.length === 1 ? "the span" : "the spans"} ${expected.join(", ")}, and traces, dashboards and alerts key on ${expected.length === 1 ? "it" : "them"}`
  }
}
