/**
 * The scenario of the alarms properties: plain JSON commands over a small id space (2 tags x 3 ids,
 * so collisions happen), with times relative to the virtual clock at the command (`runInMs`), so a
 * shrunk scenario stays meaningful. `toModelInput` / `toModelMutation` turn a command into the
 * model's absolute-time operation at execution time.
 */
import type { Json } from "../../harness/Property.ts"
import type {
  HandlerScript,
  LegacyAttempts,
  LegacyRow,
  Mutation,
  OnFailureScript,
  ProcessOptions,
  ScheduleConfigurationInput,
  ScheduleInput,
  TransactionFault,
  TransactionMutation
} from "../../models/alarms/index.ts"
import type { LegacyLayout } from "./legacyLayout.ts"

/** Tags of the id space. */
export const TAGS = ["a", "b"] as const
/** Ids of the id space. */
export const IDS = ["1", "2", "3"] as const

/**
 * A reference; usually inside the id space, sometimes invalid (empty tag or id), and in an appended
 * ill-typed unit (`appended.ts`) a JavaScript caller's value outside this type (a number tag or id,
 * given to scheduling only).
 */
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
  /** `fault`: only `readFails` (the appended `readFault` unit): a read of the call fails. */
  | { readonly op: "status"; readonly ref: RefSpec; readonly fault?: TransactionFault }
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
    /** No `AlarmReporter` is provided: upstream's default reporter logs each report as a warning (R27). */
    readonly defaultReporter?: boolean
    /** The platform alarm was delivered again (same virtual time as the previous dispatch). */
    readonly redelivery?: boolean
  }
  /** Advance the virtual clock to the next future wake the model knows (the platform alarm firing). */
  | { readonly op: "advanceToNextWake" }
  | { readonly op: "advanceBy"; readonly ms: number }
  /** The ambient `ScheduleConfiguration` reference changes. */
  | { readonly op: "configure"; readonly configuration: ScheduleConfigurationInput }
  /**
   * A new scheduler instance on the same database (process restart, or Durable Object eviction).
   * `knownTags`: the new process declares these typed definitions (a deploy, R29), so stored rows of a
   * tag it no longer declares fail on dispatch; absent: the same definitions as before.
   */
  | {
    readonly op: "restart"
    readonly reason: "restart" | "eviction"
    readonly knownTags?: ReadonlyArray<string>
    /** With `knownTags`: those of them whose payload schema takes numbers only (the `narrowedSchema` unit). */
    readonly numberTags?: ReadonlyArray<string>
  }

/**
 * The attempts row of a legacy row in layout (b), times relative to the virtual epoch: backing off
 * (`attempts > 0`, `retryInMs` set), parked (`parked`, `retryInMs` set) or fresh (`attempts 0`, no
 * `retryInMs`; `progress` may hold a cursor).
 */
export interface LegacyAttemptsSpec {
  readonly attempts: number
  readonly parked?: boolean
  readonly retryInMs?: number
  /** Progress cursor; absent: -1 (none). */
  readonly progress?: number
}

/** A legacy row (older layout) with its deadline relative to the virtual epoch. */
export interface LegacyRowSpec {
  readonly tag: string
  readonly id: string
  readonly runInMs: number
  readonly repeatEveryMs?: number
  readonly payloadText: string
  /** Its attempts row in layout (b); absent: none (always absent in layout (a)). */
  readonly attempts?: LegacyAttemptsSpec
}

/** The older layouts (alarms.md R3): (a) before attempt tracking, (b) attempt tracking without `wake_at`. */
export type LegacyLayoutKind = LegacyLayout["kind"]

/** A whole scenario. */
export interface AlarmsScenario {
  /** The configuration reference when the first scheduler is built. */
  readonly configuration?: ScheduleConfigurationInput
  /** Rows written in an older layout before the first scheduler is built (migration property). */
  readonly legacyRows?: ReadonlyArray<LegacyRowSpec>
  /** The older layout of `legacyRows`; absent: `beforeAttempts` (layout (a), rows' `attempts` ignored). */
  readonly legacyLayout?: LegacyLayoutKind
  /**
   * Typed definitions (R29): the scheduler is used through `defineAlarms` declaring these tags (each
   * with a JSON payload schema). Absent: the untyped scheduler.
   */
  readonly knownTags?: ReadonlyArray<string>
  readonly commands: ReadonlyArray<Command>
}

/** A ref's own `tag` and `id` (no other field reaches the implementation or the model). */
export const plainRef = (ref: RefSpec): RefSpec => ({ tag: ref.tag, id: ref.id })

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

/** Revision the harness stores in a legacy attempts row (any non-empty text: only equality matters). */
const legacyRevision = (row: LegacyRowSpec): string => `legacy:${row.tag}/${row.id}`

/**
 * The older layout the harness writes for a scenario (absolute times from `epochMs`), or undefined
 * when the scenario has no legacy rows.
 *
 * @example toLegacyLayout({ legacyRows: [row], commands: [] }, epochMs)?.kind // "beforeAttempts"
 */
export const toLegacyLayout = (scenario: AlarmsScenario, epochMs: number): LegacyLayout | undefined => {
  const specs = scenario.legacyRows ?? []
  if (specs.length === 0) return undefined
  const rows = specs.map((row) => ({
    tag: row.tag,
    id: row.id,
    runAtMs: epochMs + row.runInMs,
    repeatEveryMs: row.repeatEveryMs ?? null,
    payloadText: row.payloadText
  }))
  if (scenario.legacyLayout !== "attemptsWithoutWake") return { kind: "beforeAttempts", rows }
  const attempts = specs.flatMap((row) =>
    row.attempts === undefined ? [] : [{
      tag: row.tag,
      id: row.id,
      revision: legacyRevision(row),
      attempts: row.attempts.attempts,
      parked: row.attempts.parked === true,
      retryAtMs: row.attempts.retryInMs === undefined ? null : epochMs + row.attempts.retryInMs,
      progress: row.attempts.progress ?? -1
    }]
  )
  return { kind: "attemptsWithoutWake", rows, attempts }
}

/**
 * The model's legacy rows for a layout: each scheduled row with its attempts row, if the layout has one.
 *
 * @example toModelLegacyRows(toLegacyLayout(scenario, epochMs)!)
 */
export const toModelLegacyRows = (layout: LegacyLayout): ReadonlyArray<LegacyRow> => {
  const attemptsOf = new Map(
    (layout.kind === "attemptsWithoutWake" ? layout.attempts : []).map((state) => [`${state.tag}/${state.id}`, state])
  )
  return layout.rows.map((row) => {
    const state = attemptsOf.get(`${row.tag}/${row.id}`)
    if (state === undefined) return row
    const attempts: LegacyAttempts = {
      revision: state.revision,
      attempts: state.attempts,
      parked: state.parked,
      retryAtMs: state.retryAtMs,
      progress: state.progress
    }
    return { ...row, attempts }
  })
}
