/**
 * Storage identity of a logical alarm `{tag, id}` (reference: alarms.md, "Storage").
 */

/** A logical alarm reference: a non-empty tag and a non-empty id. */
export interface AlarmRef {
  readonly tag: string
  readonly id: string
}

/** Prefix every stored alarm key starts with. */
export const ALARM_STORAGE_ID_PREFIX = "effect-cf-alarm:"

/**
 * The primary key of an alarm's rows: prefix, URI-encoded tag, `:`, URI-encoded id.
 * Refs must be well-formed UTF-16 (a lone surrogate makes `encodeURIComponent` throw, as it does upstream).
 *
 * @example storageIdOf({ tag: "mail", id: "a b" }) === "effect-cf-alarm:mail:a%20b"
 */
export const storageIdOf = (ref: AlarmRef): string =>
  `${ALARM_STORAGE_ID_PREFIX}${encodeURIComponent(ref.tag)}:${encodeURIComponent(ref.id)}`
