/**
 * The content model's state: plain JSON, never mutated in place. Content is keyed by
 * `tenant/hash` (K1: identity is per tenant), references by `tenant/actor/blob/name`.
 */

/** The parameters the model follows (the implementation's settings, less the key). */
export interface ContentModelConfig {
  readonly grantLifetimeMs: number
  readonly graceMs: number
  readonly skewMs: number
  /** T: the longest recorded turn budget. */
  readonly turnMs: number
  readonly chunkBytes: number
  readonly maxContentBytes: number
  readonly sweepBatch: number
  readonly sweepTenants: number
  readonly sweepIntervalMs: number
}

/** One content row. */
export interface ModelContent {
  readonly tenant: string
  readonly hash: string
  readonly size: number
  readonly grantedUntilMs: number
}

/** One reference from an actor to content. */
export interface ModelRef {
  readonly tenant: string
  readonly actor: string
  readonly blob: string
  readonly name: string
  readonly hash: string
  readonly size: number
}

/** The whole model state. */
export interface ContentModelState {
  readonly config: ContentModelConfig
  readonly contents: Readonly<Record<string, ModelContent>>
  readonly refs: Readonly<Record<string, ModelRef>>
  /** Tenants registered for sweeping, with when each was last swept (0: never). */
  readonly sweptAtMs: Readonly<Record<string, number>>
  /** The turn budget the running process registered last; `config.turnMs` (T) is the largest ever recorded. */
  readonly registeredTurnMs: number
}

/** Key of a content. */
export const contentKey = (tenant: string, hash: string): string => `${tenant}/${hash}`

/** Key of a reference. */
export const refKey = (ref: { readonly tenant: string; readonly actor: string; readonly blob: string; readonly name: string }): string =>
  `${ref.tenant}/${ref.actor}/${ref.blob}/${ref.name}`

/** The state before any operation. */
export const initialContentState = (config: ContentModelConfig): ContentModelState => ({ config, contents: {}, refs: {}, sweptAtMs: {}, registeredTurnMs: config.turnMs })

/**
 * The state after a process registers the actor type with `turnMs` (a restart or a deploy): T becomes
 * the larger of the recorded T and `turnMs`, never smaller (content.md "Parameters": T only grows).
 */
export const withTurnRegistered = (state: ContentModelState, turnMs: number): ContentModelState => {
  if (!Number.isSafeInteger(turnMs) || turnMs <= 0) throw new RangeError(`a turn budget is a positive whole number of ms, got ${turnMs}`)
  return { ...state, config: { ...state.config, turnMs: Math.max(state.config.turnMs, turnMs) }, registeredTurnMs: turnMs }
}

/** Whether some reference of `tenant` names `hash`. */
export const isReferenced = (state: ContentModelState, tenant: string, hash: string): boolean =>
  Object.values(state.refs).some((ref) => ref.tenant === tenant && ref.hash === hash)

/** The earliest instant unreferenced content may be deleted: a sweep must start after `granted_until + G + T + S`. */
export const earliestDeletionMs = (config: ContentModelConfig, content: ModelContent): number =>
  content.grantedUntilMs + config.graceMs + config.turnMs + config.skewMs + 1

/** Returns `record` with `key` set to `value` (or removed when undefined). */
export const withEntry = <V>(record: Readonly<Record<string, V>>, key: string, value: V | undefined): Readonly<Record<string, V>> => {
  const next = { ...record }
  if (value === undefined) delete next[key]
  else next[key] = value
  return next
}
