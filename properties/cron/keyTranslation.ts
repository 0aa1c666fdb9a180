/**
 * The implementation's timer keys in the model's words. N1 fixes a key's shape (`$cron:<zone> <canonical
 * fields>`, or exactly `$cron:@every <ms>ms`) and that equivalent spellings share one key, but not the
 * canonical text of the fields (`1,2` or `1-2`). So the harness learns, from each declaration, which of
 * the implementation's keys stands for which of the model's, and compares everything after translating
 * the implementation's keys. A key learned twice for two model keys (or two keys for one) is not
 * learned again, so equivalent entries with different keys, or different entries with one key, still show
 * as a difference (CRN-001); so does a key without the shape N1 gives it, which is never learned.
 */
import type { Json } from "../../harness/Property.ts"
import { CRON_PREFIX } from "../../models/cron/index.ts"
import type { RawObservation } from "./observe.ts"

/** Bound on the keys one run learns (a scenario declares far fewer). */
export const MAX_LEARNED_KEYS = 10_000

/** Keys in both directions, learned from declarations. */
export interface KeyTranslation {
  /** Learns the pairs of one declaration: the implementation's result and the model's, both as JSON results. */
  readonly learn: (implementationResult: Json, modelResult: Json) => void
  /** The model's key for an implementation key (itself when not learned). */
  readonly toModel: (key: string) => string
  /** The implementation's key for a model key (itself when not learned). */
  readonly toImplementation: (key: string) => string
}

const DUPLICATE = "DuplicateCronKey "

/**
 * The repeated key a `DuplicateCronKey {"key": ...}` refusal names, or undefined for any other value
 * (including a refusal whose details are not that JSON: an implementation's words are never trusted).
 */
const duplicateKeyOf = (value: Json): string | undefined => {
  if (typeof value !== "string" || !value.startsWith(DUPLICATE)) return undefined
  try {
    const key = (JSON.parse(value.slice(DUPLICATE.length)) as { readonly key?: unknown } | null)?.key
    return typeof key === "string" ? key : undefined
  } catch {
    return undefined
  }
}

/** The keys a declaration's result names: its entries' keys, or the repeated key of its refusal. */
const keysOfResult = (result: Json): ReadonlyArray<string> => {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return []
  const record = result as { readonly _tag?: Json; readonly value?: Json; readonly error?: Json }
  if (record._tag === "Success" && Array.isArray(record.value)) return record.value.filter((key): key is string => typeof key === "string")
  const repeated = record._tag === "Failure" ? duplicateKeyOf(record.error ?? null) : undefined
  return repeated === undefined ? [] : [repeated]
}

/** Whether `key` has the shape N1 gives the model's `modelKey`: `@every` keys exactly, others its prefix and zone. */
const hasShapeOf = (key: string, modelKey: string): boolean => {
  if (modelKey.startsWith(`${CRON_PREFIX}@every `)) return key === modelKey
  const zonePrefix = modelKey.slice(0, modelKey.indexOf(" ") + 1)
  return zonePrefix.length > CRON_PREFIX.length && key.startsWith(zonePrefix) && key.length > zonePrefix.length
}

/** A fresh translation (one per run). */
export const makeKeyTranslation = (): KeyTranslation => {
  const toModel = new Map<string, string>()
  const toImplementation = new Map<string, string>()
  return {
    learn: (implementationResult, modelResult) => {
      const implementationKeys = keysOfResult(implementationResult)
      const modelKeys = keysOfResult(modelResult)
      if (implementationKeys.length !== modelKeys.length) return
      implementationKeys.forEach((key, index) => {
        const modelKey = modelKeys[index]!
        if (toModel.has(key) || toImplementation.has(modelKey) || !hasShapeOf(key, modelKey)) return
        if (toModel.size >= MAX_LEARNED_KEYS) throw new RangeError(`more than ${MAX_LEARNED_KEYS} timer keys in one run`)
        toModel.set(key, modelKey)
        toImplementation.set(modelKey, key)
      })
    },
    toModel: (key) => toModel.get(key) ?? key,
    toImplementation: (key) => toImplementation.get(key) ?? key
  }
}

/** `value` with every key it names in the model's words: a declaration's keys, a refusal's key, every `timerKey` field. */
export const resultToModel = (value: Json, translation: KeyTranslation, declaration: boolean): Json => {
  if (Array.isArray(value)) return value.map((item) => (declaration && typeof item === "string" ? translation.toModel(item) : resultToModel(item, translation, declaration)))
  const repeated = duplicateKeyOf(value)
  if (repeated !== undefined) return `${DUPLICATE}${JSON.stringify({ key: translation.toModel(repeated) })}`
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([field, item]) =>
    [field, field === "timerKey" && typeof item === "string" ? translation.toModel(item) : resultToModel(item as Json, translation, declaration)]
  ))
}

/** `raw` with the rows' and deliveries' keys in the model's words. */
export const observationToModel = (raw: RawObservation, translation: KeyTranslation): RawObservation => ({
  ...raw,
  rows: raw.rows.map((row) => (row.timerKey === null ? row : { ...row, timerKey: translation.toModel(row.timerKey) })),
  fired: raw.fired.map((entry) => (entry.timerKey === null ? entry : { ...entry, timerKey: translation.toModel(entry.timerKey) }))
})
