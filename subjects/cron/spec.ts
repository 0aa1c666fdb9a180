/**
 * Parsing an entry's spec with croner (N1): five fields through croner's `CronPattern` (5-part mode),
 * `@every <n>(ms|s|m|h)` of at least 1 s, the zone resolved to its IANA name through Intl. The parsed
 * values give the canonical fields: minute, hour and month are `*` when they hold every value;
 * day-of-month and day-of-week are `*` when written as a star (restricted ones combine with OR, as
 * in Vixie cron and croner's default), and both are `*` when either is restricted to every value (then
 * every day matches); any other field is its sorted values with runs written `a-b`.
 */
import { CronPattern } from "croner"

/** A parsed five-field spec. */
export interface ParsedCron {
  readonly kind: "cron"
  readonly zone: string
  readonly minutes: ReadonlyArray<number>
  readonly hours: ReadonlyArray<number>
  readonly days: ReadonlyArray<number>
  readonly months: ReadonlyArray<number>
  /** Days of the week, 0 = Sunday. */
  readonly weekdays: ReadonlyArray<number>
  /** Day-of-month and day-of-week as written are stars (restricted ones combine with OR). */
  readonly starDays: boolean
  readonly starWeekdays: boolean
  /** Canonical day-of-month, month and day-of-week fields. */
  readonly dayFields: string
  /** All five canonical fields. */
  readonly canonical: string
}

/** A parsed `@every`. */
export interface ParsedEvery {
  readonly kind: "every"
  readonly intervalMs: number
}

/** A parsed spec. */
export type ParsedSpec = ParsedCron | ParsedEvery

/** Smallest `@every` interval (N1). */
export const MIN_EVERY_MS = 1_000

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

const setValues = (flags: ArrayLike<number>, offset: number): ReadonlyArray<number> => {
  const values: Array<number> = []
  for (let index = 0; index < flags.length; index++) if (flags[index] !== 0) values.push(index + offset)
  return values
}

const runsText = (values: ReadonlyArray<number>): string => {
  const parts: Array<string> = []
  let start = 0
  while (start < values.length) {
    let end = start
    while (end + 1 < values.length && values[end + 1] === values[end]! + 1) end++
    parts.push(end > start ? `${values[start]}-${values[end]}` : `${values[start]}`)
    start = end + 1
  }
  return parts.join(",")
}

const fieldText = (values: ReadonlyArray<number>, size: number): string => (values.length === size ? "*" : runsText(values))

const resolvedZones = new Map<string, string>()

/** The IANA name of a zone as Intl resolves it (cached); throws a RangeError for an unknown zone. */
export const resolveZone = (zone: string): string => {
  const cached = resolvedZones.get(zone)
  if (cached !== undefined) return cached
  const resolved = new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone
  if (resolvedZones.size > 1_000) resolvedZones.clear()
  resolvedZones.set(zone, resolved)
  return resolved
}

/**
 * Parses `spec` in `zone`; throws with croner's or Intl's message when it is invalid.
 *
 * @example parseSpec("0,30 1-2 * * *", "America/New_York") // { kind: "cron", canonical: "0,30 1-2 * * *", ... }
 */
export const parseSpec = (spec: string, zone: string | null): ParsedSpec => {
  const trimmed = spec.trim()
  if (trimmed.startsWith("@")) {
    const match = /^@every\s+(\d{1,12})(ms|s|m|h)$/.exec(trimmed)
    if (match === null) throw new Error("expected @every <n>ms|s|m|h")
    const intervalMs = Number(match[1]) * UNIT_MS[match[2]!]!
    if (!Number.isSafeInteger(intervalMs) || intervalMs < MIN_EVERY_MS) throw new Error(`@every must be at least ${MIN_EVERY_MS} ms`)
    return { kind: "every", intervalMs }
  }
  const resolved = resolveZone(zone ?? "UTC")
  const pattern = new CronPattern(trimmed, resolved, { mode: "5-part" })
  const texts = trimmed.split(/\s+/)
  const minutes = setValues(pattern.minute, 0)
  const hours = setValues(pattern.hour, 0)
  const starDays = pattern.starDOM || texts[2] === "*"
  const starWeekdays = pattern.starDOW || texts[4] === "*"
  const days = setValues(pattern.day, 1)
  const months = setValues(pattern.month, 1)
  const weekdays = setValues(pattern.dayOfWeek, 0)
  // A restricted day field holding every value matches every day, alone or OR-ed with the other field,
  // so it is spelled as two stars: one schedule, one key (N1).
  const everyDay = (!starDays && days.length === 31) || (!starWeekdays && weekdays.length === 7)
  const dayFields = everyDay
    ? `* ${fieldText(months, 12)} *`
    : `${starDays ? "*" : runsText(days)} ${fieldText(months, 12)} ${starWeekdays ? "*" : runsText(weekdays)}`
  return {
    kind: "cron", zone: resolved, minutes, hours, days, months, weekdays, starDays, starWeekdays, dayFields,
    canonical: `${fieldText(minutes, 60)} ${fieldText(hours, 24)} ${dayFields}`
  }
}
