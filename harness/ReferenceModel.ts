/**
 * The shape of a reference model, in the manner of porcupine's `Model` (`Init`, `Step`, `Equal`,
 * `DescribeOperation`, `DescribeState`): a handful of pure, synchronous functions over plain JSON.
 *
 * A model never imports an implementation, the harness runtime or Effect; a subject's model module
 * imports this file for its type only (`import type`), so the model stays runnable anywhere. The
 * model-versus-implementation loop and the reports call a model only through this interface.
 *
 * @example
 * ```ts
 * import type { ReferenceModel } from "../../harness/ReferenceModel.ts"
 *
 * export const counterModel: ReferenceModel<number, { readonly add: number }, { readonly state: number }> = {
 *   name: "counter",
 *   description: "a counter that only grows",
 *   init: () => 0,
 *   step: (state, operation) => ({ state: state + operation.add }),
 *   describeOperation: (operation) => `add ${operation.add}`,
 *   describeState: (state) => `count ${state}`,
 *   observableState: (state) => state
 * }
 * ```
 */

/**
 * A pure reference model of one subject.
 *
 * - `State`: the model's whole state (plain JSON, never mutated in place).
 * - `Operation`: one call on the subject, as plain JSON (including the virtual time it runs at).
 * - `Outcome`: what `step` returns: the next state plus the predictions the loop compares.
 * - `InitOptions`: what `init` takes (older-layout rows, configuration, ...); `void` when nothing.
 * - `Observable`: the part of the state an implementation can be compared on.
 */
export interface ReferenceModel<
  State,
  Operation,
  Outcome extends { readonly state: State },
  InitOptions = void,
  Observable = unknown
> {
  /** Short stable name used in reports, e.g. `alarms-model`. */
  readonly name: string
  /** One line: what the model follows (upstream package and version, reference page). */
  readonly description: string
  /** The state before any operation. */
  readonly init: (options?: InitOptions) => State
  /** Applies `operation` to `state` without mutating it: the next state and every prediction. */
  readonly step: (state: State, operation: Operation) => Outcome
  /** One line naming the operation, for traces and counterexamples. */
  readonly describeOperation: (operation: Operation) => string
  /** A few lines describing the state, for traces and counterexamples. */
  readonly describeState: (state: State) => string
  /** The state as an implementation can be observed (plain JSON, compared structurally). */
  readonly observableState: (state: State) => Observable
}

/** A reference model whose type parameters are not known statically (registries, reports). */
export type AnyReferenceModel = ReferenceModel<any, any, { readonly state: any }, any, unknown>
