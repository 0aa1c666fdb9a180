/**
 * Pure helpers of the alarms properties: a scenario command as the model's operation, handler scripts
 * resolved against the model's state, the alarms a command writes, the next wake, and a command's
 * faults in words.
 */
import { describeStorageFault, VOIDED_FAULT_WORDS } from "../../harness/Faults.ts"
import type { Json } from "../../harness/Property.ts"
import { toJson } from "../../harness/ToJson.ts"
import {
  type ModelState,
  type Operation,
  readRow,
  type StepOutcome,
  storageIdOf,
  type TransactionFault
} from "../../models/alarms/index.ts"
import type { Command, HandlerEntrySpec, HandlerWriteSpec, InputSpec, MutationSpec } from "./scenario.ts"
import { plainRef, toModelInput, toModelScript, toModelTransactionMutation } from "./scenario.ts"
import { RECOVERED_STATEMENT_WORDS } from "../../harness/StruckFault.ts"

/** Key of a ref in state JSON. */
export const refKey = (ref: { readonly tag: string; readonly id: string }): string => `${ref.tag}/${ref.id}`

/** Removes the words-only `reason` from typed errors, so results compare by tag. */
export const withoutReasons = (value: Json): Json => {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map(withoutReasons)
  const record = value as { readonly [key: string]: Json }
  return Object.fromEntries(
    Object.entries(record).filter(([key]) => !(key === "reason" && "_tag" in record)).map(([key, inner]) => [key, withoutReasons(inner)])
  )
}

/** A model value (a result, a write list) as the implementation's is compared with it: JSON, without the words-only reasons. */
export const expectedJson = (value: unknown): Json => withoutReasons(toJson(value))

/** The model's operation for a command at virtual time `atMs` (null for clock commands). */
export const modelOperation = (command: Command, atMs: number): Operation | null => {
  const faults = (source: { readonly fault?: TransactionFault; readonly reporterFails?: boolean }) => ({
    ...(source.fault === undefined ? {} : { fault: source.fault }),
    ...(source.reporterFails === true ? { reporterFails: true } : {})
  })
  switch (command.op) {
    case "schedule":
      return { kind: command.earlier === true ? "scheduleAlarmEarlier" : "scheduleAlarm", nowMs: atMs, input: toModelInput(command.input, atMs), ...faults(command) }
    case "cancel":
      return { kind: "cancelAlarm", nowMs: atMs, ref: plainRef(command.ref), ...(command.fault === undefined ? {} : { fault: command.fault }) }
    case "status":
      return { kind: "getAlarmStatus", ref: plainRef(command.ref), ...(command.fault === undefined ? {} : { fault: command.fault }) }
    case "transaction":
      return {
        kind: "transaction",
        nowMs: atMs,
        mutations: command.mutations.map((mutation) => toModelTransactionMutation(mutation, atMs)),
        ...(command.closureFails === true ? { closureFails: true } : {}),
        ...faults(command)
      }
    case "dispatch":
      return {
        kind: "processDueAlarms",
        nowMs: atMs,
        ...(command.options === undefined ? {} : { options: command.options }),
        handlers: command.handlers.map((entry) => ({ tag: entry.tag, id: entry.id, script: toModelScript(entry.script, atMs) })),
        ...faults(command)
      }
    case "configure":
      return { kind: "configure", configuration: command.configuration }
    case "restart":
      return command.knownTags === undefined
        ? { kind: "rebuildService" }
        : { kind: "rebuildService", knownTags: command.knownTags, ...(command.numberTags === undefined ? {} : { numberTags: command.numberTags }) }
    case "advanceToNextWake":
    case "advanceBy":
      return null
  }
}

const parsedPayload = (text: string): Json => {
  try {
    return JSON.parse(text) as Json
  } catch {
    return null
  }
}

const resolveInput = (input: InputSpec, model: ModelState, atMs: number): InputSpec => {
  if (input.copyOfOwnRow !== true) return input
  const { copyOfOwnRow: _copy, ...rest } = input
  const row = readRow(model.rows, storageIdOf(input))
  if (row === undefined) return rest
  const { repeatEveryMs: _repeat, ...withoutRepeat } = rest
  return {
    ...withoutRepeat,
    payload: parsedPayload(row.payloadText),
    runInMs: row.runAtMs - atMs,
    ...(row.repeatEveryMs === null ? {} : { repeatEveryMs: row.repeatEveryMs })
  }
}

const resolveMutation = (mutation: MutationSpec, model: ModelState, atMs: number): MutationSpec =>
  mutation.kind === "cancelAlarm" ? mutation : { kind: mutation.kind, input: resolveInput(mutation.input, model, atMs) }

/**
 * Resolves identical re-arms (`copyOfOwnRow`) in handler scripts from the model's state before the
 * step, so the implementation and the model see the same concrete values.
 */
export const resolveCommand = (command: Command, model: ModelState, atMs: number): Command => {
  if (command.op !== "dispatch") return command
  return {
    ...command,
    handlers: command.handlers.map((entry): HandlerEntrySpec => ({
      ...entry,
      script: {
        ...entry.script,
        ...(entry.script.writes === undefined ? {} : {
          writes: entry.script.writes.map((write): HandlerWriteSpec =>
            write.kind === "transaction"
              ? { ...write, mutations: write.mutations.map((mutation) => resolveMutation(mutation, model, atMs)) }
              : resolveMutation(write, model, atMs)
          )
        }),
        ...(entry.script.forkedWrite === undefined ? {} : { forkedWrite: resolveMutation(entry.script.forkedWrite, model, atMs) })
      }
    }))
  }
}

/** Alarms an external command writes (schedule, cancel, transaction mutations). */
export const touchedRefs = (command: Command): ReadonlyArray<{ readonly tag: string; readonly id: string }> => {
  switch (command.op) {
    case "schedule":
      return [command.input]
    case "cancel":
      return [command.ref]
    case "transaction":
      return command.mutations.map((mutation) => (mutation.kind === "cancelAlarm" ? mutation.ref : mutation.input))
    default:
      return []
  }
}

/** The next wake strictly after `atMs` the model knows (platform alarm or any row's wake), or null. */
export const nextWakeAfter = (model: ModelState, atMs: number): number | null => {
  let next: number | null = null
  const consider = (wakeMs: number | null) => {
    if (wakeMs !== null && wakeMs > atMs && (next === null || wakeMs < next)) next = wakeMs
  }
  consider(model.platformAlarmMs)
  for (const row of Object.values(model.rows)) consider(row.wakeAtMs)
  return next
}

/** The fault of a command in words, using the model's transaction labels. */
export const faultWords = (command: Command, outcome: StepOutcome | null, readStruck = false, recovered = false): string | undefined => {
  const words: Array<string> = []
  if ("fault" in command && command.fault !== undefined) {
    // A read strikes no transaction: it was reached when the harness saw it fail.
    const label = command.fault.phase === "readFails" ? undefined : outcome?.transactions[command.fault.transaction - 1]?.label
    words.push(describeStorageFault(command.fault, label, command.fault.phase === "readFails" ? readStruck : label !== undefined))
    if (outcome?.faultVoided === true) words.push(outcome.faultVoidedWhy ?? VOIDED_FAULT_WORDS)
    if (recovered) words.push(RECOVERED_STATEMENT_WORDS)
  }
  if ("reporterFails" in command && command.reporterFails === true) words.push("the reporter fails")
  if (command.op === "dispatch" && command.defaultReporter === true) words.push("no reporter provided (the default logs a warning)")
  if (command.op === "dispatch" && command.redelivery === true) words.push("platform alarm redelivered")
  if (command.op === "restart") words.push(command.reason === "eviction" ? "Durable Object eviction" : "process restart")
  if (command.op === "restart" && command.knownTags !== undefined) {
    const narrowed = command.numberTags ?? []
    words.push(`redeployed with typed definitions [${command.knownTags.join(", ")}]${narrowed.length === 0 ? "" : `, payloads of [${narrowed.join(", ")}] numbers only`}`)
  }
  return words.length === 0 ? undefined : words.join("; ")
}
