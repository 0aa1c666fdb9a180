/**
 * The scenario of the alarms properties: plain JSON commands over a small id space (2 tags x 3 ids,
 * so collisions happen), with times relative to the virtual clock at the command (`runInMs`), so a
 * shrunk scenario stays meaningful. `toModelInput` / `toModelMutation` turn a command into the
 * model's absolute-time operation at execution time.
 */
import type { Json } from "../../harness/Property.ts"
import type {
  HandlerScript,
  LegacyRow,
  Mutation,
  OnFailureScript,
  ProcessOptions,
  ScheduleConfigurationInput,
  ScheduleInput,
  TransactionFault,
  TransactionMutation
} from "../../models/alarms/index.ts"

/** Tags of the id space. */
export const TAGS = ["a", "b"] as const
/** Ids of the id space. */
export const IDS = ["1", "2", "3"] as const

/** A reference; usually inside the id space, sometimes invalid (empty tag or id). */
export interface RefSpec {
  readonly tag: string
  readonly id: string
}

/** A schedule input whose deadline is `runInMs` after the virtual clock at the call (may be negative: overdue). */
export interface InputSpec extends RefSpec {
  readonly payload: Json
  readonly runInMs: number
  readonly repeatEveryMs?: number
  readonly progress?: number
  /**
   * In a handler script: copy the handled row's payload, deadline and repeat (an identical re-arm).
   * Resolved from the model's state before the step, so both sides see the same values.
   */
  readonly copyOfOwnRow?: boolean
}

/** One mutation: a schedule (or schedule-earlier) or a cancel. */
export type MutationSpec =
  | { readonly kind: "scheduleAlarm" | "scheduleAlarmEarlier"; readonly input: InputSpec }
  | { readonly kind: "cancelAlarm"; readonly ref: RefSpec }

/** A mutation inside an external `transaction` closure, possibly misused (R5). */
export type TransactionMutationSpec = MutationSpec & { readonly misuse?: "forkedFiber" | "afterTransaction" }

/** A handler's write: a standalone call or an explicit transaction. */
export type HandlerWriteSpec =
  | MutationSpec
  | { readonly kind: "transaction"; readonly mutations: ReadonlyArray<MutationSpec>; readonly closureFails?: boolean }

/** What a handler does (see the model's `HandlerScript`), with relative times. */
export interface HandlerScriptSpec {
  readonly writes?: ReadonlyArray<HandlerWriteSpec>
  readonly outcome?: "succeed" | "fail"
  readonly onFailure?: OnFailureScript
  readonly forkedWrite?: MutationSpec
}

/** The handler script of one alarm. */
export interface HandlerEntrySpec extends RefSpec {
  readonly script: HandlerScriptSpec
}

/** One command of a scenario. `fault` names the storage transaction of this step to break. */
export type Command =
  | {
    readonly op: "schedule"
    readonly earlier?: boolean
    readonly input: InputSpec
    readonly fault?: TransactionFault
    readonly reporterFails?: boolean
  }
  | { readonly op: "cancel"; readonly ref: RefSpec; readonly fault?: TransactionFault }
  | { readonly op: "status"; readonly ref: RefSpec }
  | {
    readonly op: "transaction"
    readonly mutations: ReadonlyArray<TransactionMutationSpec>
    readonly closureFails?: boolean
    readonly fault?: TransactionFault
    readonly reporterFails?: boolean
  }
  | {
    readonly op: "dispatch"
    readonly options?: ProcessOptions
    readonly handlers: ReadonlyArray<HandlerEntrySpec>
    readonly fault?: TransactionFault
    readonly reporterFails?: boolean
    /** The platform alarm was delivered again (same virtual time as the previous dispatch). */
    readonly redelivery?: boolean
  }
  /** Advance the virtual clock to the next future wake the model knows (the platform alarm firing). */
  | { readonly op: "advanceToNextWake" }
  | { readonly op: "advanceBy"; readonly ms: number }
  /** The ambient `ScheduleConfiguration` reference changes. */
  | { readonly op: "configure"; readonly configuration: ScheduleConfigurationInput }
  /** A new scheduler instance on the same database (process restart, or Durable Object eviction). */
  | { readonly op: "restart"; readonly reason: "restart" | "eviction" }

/** A legacy row (older schema) with its deadline relative to the virtual epoch. */
export interface LegacyRowSpec {
  readonly tag: string
  readonly id: string
  readonly runInMs: number
  readonly repeatEveryMs?: number
  readonly payloadText: string
}

/** A whole scenario. */
export interface AlarmsScenario {
  /** The configuration reference when the first scheduler is built. */
  readonly configuration?: ScheduleConfigurationInput
  /** Rows written by the older schema before the first scheduler is built (migration property). */
  readonly legacyRows?: ReadonlyArray<LegacyRowSpec>
  /** The process crashes at this hook point of the first migration; a new scheduler then migrates again. */
  readonly migrationCrashAt?: string
  readonly commands: ReadonlyArray<Command>
}

/** The model's schedule input at virtual time `nowMs`. */
export const toModelInput = (input: InputSpec, nowMs: number): ScheduleInput => {
  const { runInMs, copyOfOwnRow: _copy, ...rest } = input
  return { ...rest, runAtMs: nowMs + runInMs }
}

/** The model's mutation at virtual time `nowMs`. */
export const toModelMutation = (mutation: MutationSpec, nowMs: number): Mutation =>
  mutation.kind === "cancelAlarm"
    ? { kind: "cancelAlarm", ref: { tag: mutation.ref.tag, id: mutation.ref.id } }
    : { kind: mutation.kind, input: toModelInput(mutation.input, nowMs) }

/** The model's transaction mutation at virtual time `nowMs`. */
export const toModelTransactionMutation = (mutation: TransactionMutationSpec, nowMs: number): TransactionMutation => {
  const base = toModelMutation(mutation, nowMs)
  return mutation.misuse === undefined ? base : { ...base, misuse: mutation.misuse }
}

/** The model's handler script at virtual time `nowMs`. */
export const toModelScript = (script: HandlerScriptSpec, nowMs: number): HandlerScript => {
  const out: {
    writes?: NonNullable<HandlerScript["writes"]>
    outcome?: "succeed" | "fail"
    onFailure?: OnFailureScript
    forkedWrite?: Mutation
  } = {}
  if (script.writes !== undefined) {
    out.writes = script.writes.map((write) =>
      write.kind === "transaction"
        ? {
          kind: "transaction" as const,
          mutations: write.mutations.map((mutation) => toModelMutation(mutation, nowMs)),
          ...(write.closureFails === true ? { closureFails: true } : {})
        }
        : toModelMutation(write, nowMs)
    )
  }
  if (script.outcome !== undefined) out.outcome = script.outcome
  if (script.onFailure !== undefined) out.onFailure = script.onFailure
  if (script.forkedWrite !== undefined) out.forkedWrite = toModelMutation(script.forkedWrite, nowMs)
  return out
}

/** The model's legacy rows (absolute times from `epochMs`). */
export const toModelLegacyRows = (rows: ReadonlyArray<LegacyRowSpec>, epochMs: number): ReadonlyArray<LegacyRow> =>
  rows.map((row) => ({
    tag: row.tag,
    id: row.id,
    runAtMs: epochMs + row.runInMs,
    repeatEveryMs: row.repeatEveryMs ?? null,
    payloadText: row.payloadText
  }))
