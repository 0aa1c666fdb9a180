/**
 * The subject-agnostic shape of a model-based property.
 *
 * A property is generated data (a scenario: operations, fault plan, interleaving schedule, all plain
 * JSON so it shrinks and replays exactly) plus an `execute` function that runs the scenario against
 * an implementation and a reference model side by side on one isolated database, and returns the
 * trace of what ran. The runner (`Runner.ts`) owns seeds, budgets, shrinking and replay tokens; a
 * property owns only the meaning of its scenario.
 */
import type { Effect, Scope } from "effect"
import type * as fc from "fast-check"
import type { AdapterCapabilities, CapabilityName, Dialect, IsolatedDatabase } from "../adapters/contract.ts"
import type { SubjectName } from "../spec/Requirement.ts"
import type { HarnessError } from "./errors.ts"
import type { InterleavingShape } from "./PctBound.ts"

/** Any value that survives `JSON.stringify` / `JSON.parse` unchanged. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/** One executed step of a scenario, as shown in reports and replays. */
export interface StepRecord {
  /** Position in the executed scenario, from 0. */
  readonly index: number
  /** Operation name, e.g. `scheduleAlarm`, `advanceClock`, `crashAtHook`. */
  readonly operation: string
  /** Operation arguments, as generated. */
  readonly args: Json
  /** Virtual time (epoch ms) when the step started. */
  readonly virtualTimeMs: number
  /** What the implementation returned or failed with (normalized to JSON). */
  readonly implementation: Json
  /** What the model predicted. */
  readonly model: Json
  /** A fault injected during this step, in words (`crash at hook afterReferenceScan`). */
  readonly fault?: string
  /** Observable state of the implementation after the step (rows, platform alarm, ...). */
  readonly implementationState?: Json
  /** The model's state after the step, in the same shape as `implementationState`. */
  readonly modelState?: Json
}

/** The first disagreement between implementation and model: the witness of a failed requirement. */
export interface Divergence {
  /** The requirement whose observable differed. */
  readonly requirementId: string
  /** Other requirements citing as many of the broken rules (ambiguous attribution names them all). */
  readonly alsoRequirementIds?: ReadonlyArray<string>
  /** Index of the step where it showed. */
  readonly stepIndex: number
  /** The observable that differed, e.g. `getAlarmStatus(job/a)`. */
  readonly observable?: string
  /** The reference-page rules that decide the observable. */
  readonly rules?: ReadonlyArray<string>
  /** One plain sentence: what was expected, what happened, and why the model expected it. */
  readonly explanation: string
  readonly expected: Json
  /** Other values the rules allowed for the observable, by a choice they leave open; none was observed either. */
  readonly alsoExpected?: ReadonlyArray<Json>
  readonly actual: Json
}

/** Everything one scenario execution produced. */
export interface ExecutionTrace {
  readonly steps: ReadonlyArray<StepRecord>
  /** Null when implementation and model agreed on every observable after every step. */
  readonly divergence: Divergence | null
  /** Requirement IDs whose situation this execution actually reached (coverage, like `Sometimes`). */
  readonly covered: ReadonlyArray<string>
  /**
   * The model's named situations this execution reached (`replayDrop`, `crashAfterCommit`, ...), sorted;
   * the situation coverage table counts them per adapter. Absent when the subject names none.
   */
  readonly situations?: ReadonlyArray<string>
}

/** What `execute` gets: the fresh database and the adapter's capabilities. */
export interface ExecutionEnvironment {
  readonly database: IsolatedDatabase
  readonly capabilities: AdapterCapabilities
  readonly adapterName: string
  /** The adapter's SQL dialect, so a subject picks its dialect file without guessing. */
  readonly dialect: Dialect
  /**
   * The property's own requirement IDs (`PropertyDefinition.requirements`), set by the runner: the
   * model-based loop attributes a disagreement among these only, so a property never names a
   * requirement it does not check.
   */
  readonly requirements: ReadonlyArray<string>
}

/** A model-based property of one subject. `S` is the scenario type: plain JSON data. */
export interface PropertyDefinition<S extends Json = Json> {
  /** Stable id, e.g. `alarms/model`. Part of replay tokens. */
  readonly id: string
  readonly subject: SubjectName
  /** One line saying what it drives. */
  readonly title: string
  /** Requirement IDs this property can witness failing (and reports as covered). */
  readonly requirements: ReadonlyArray<string>
  /** Capabilities the property itself needs; without them it is not-applicable on that adapter. */
  readonly needs: ReadonlyArray<CapabilityName>
  /** Name of the implementation the property is bound to (default `reference`, the shipped one). */
  readonly implementation?: string
  /** How many independent connections each run opens (default 1). */
  readonly connections?: number
  /**
   * For a concurrent property that step-schedules operations (`StepScheduler.ts`): n operations, k a
   * stated bound on scheduling points per run, d the deepest PCT depth drawn. Reports state the PCT
   * bound for it (`PctBound.ts`), counting the runs whose trace names `pctSituation(d)`.
   */
  readonly interleaving?: InterleavingShape
  /** The scenario generator, which may read the adapter's capabilities. */
  readonly scenario: (capabilities: AdapterCapabilities) => fc.Arbitrary<S>
  /**
   * Optional: the part of a failing `scenario` that ran, given its trace (drop commands after the
   * divergence that shrinking could not remove). The runner keeps it only when it fails the same way.
   */
  readonly truncate?: (scenario: S, trace: ExecutionTrace) => S
  /** Runs one scenario; infrastructure failures (not divergences) fail with `HarnessError`. */
  readonly execute: (scenario: S, environment: ExecutionEnvironment) => Effect.Effect<ExecutionTrace, HarnessError, Scope.Scope>
}
