/**
 * Cron specs as the model reads them, written independently of any cron library: five fields
 * (minute hour day-of-month month day-of-week) with `*`, `*\/n`, `a`, `a-b`, `a-b/n`, comma lists and
 * the names JAN-DEC and SUN-SAT (day-of-week 7 is Sunday), or `@every <n>(ms|s|m|h)` of at least 1 s
 * (N1). The timer key is `$cron:<zone> <canonical fields>` or `$cron:@every <ms>ms`.
 *
 * Canonical fields: minute, hour and month are `*` when they hold every value; day-of-month and
 * day-of-week are `*` when written as a star, and not otherwise, because a restricted day-of-month and
 * day-of-week combine with OR (Vixie cron): `0 0 * * 1` is Mondays, `0 0 1-31 * 1` every day. So when
 * either is restricted to every value every day matches, and both are `*` (`0 0 1-31 * 1`, `0 0 * * 0-6`
 * and `0 0 * * *` are one schedule: one key, N1). Any other field is its sorted values with runs of two
 * or more written `a-b`, joined by commas.
 */

/** The prefix of every cron timer key (N1). */
export const CRON_PREFIX = "$cron:"

/** Smallest `@every` interval (N1). */
export const MIN_EVERY_MS = 1_000

/** A parsed five-field schedule in a zone. */
export interface CronFields {
  readonly kind: "cron"
  readonly zone: string
  readonly minutes: ReadonlyArray<number>
  readonly hours: ReadonlyArray<number>
  readonly days: ReadonlyArray<number>
  readonly months: ReadonlyArray<number>
  readonly weekdays: ReadonlyArray<number>
  /** Day-of-month written as a star. */
  readonly starDays: boolean
  /** Day-of-week written as a star. */
  readonly starWeekdays: boolean
}

/** A parsed `@every` schedule. */
export interface EveryFields {
  readonly kind: "every"
  readonly intervalMs: number
}

/** Any parsed schedule. */
export type ParsedSchedule = CronFields | EveryFields

const MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
const DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]

interface FieldSpec {
  readonly min: number
  readonly max: number
  readonly names?: ReadonlyArray<string>
  readonly nameBase: number
}

const FIELD_SPECS: ReadonlyArray<FieldSpec> = [
  { min: 0, max: 59, nameBase: 0 },
  { min: 0, max: 23, nameBase: 0 },
  { min: 1, max: 31, nameBase: 1 },
  { min: 1, max: 12, names: MONTH_NAMES, nameBase: 1 },
  { min: 0, max: 7, names: DAY_NAMES, nameBase: 0 }
]

const valueOf = (token: string, spec: FieldSpec): number | null => {
  const upper = token.toUpperCase()
  const named = spec.names?.indexOf(upper) ?? -1
  if (named >= 0) return named + spec.nameBase
  if (!/^\d{1,2}$/.test(token)) return null
  const value = Number(token)
  return value >= spec.min && value <= spec.max ? value : null
}

/** The values one comma-separated part denotes, or null when it is invalid. */
const partValues = (part: string, spec: FieldSpec): ReadonlyArray<number> | null => {
  const [range, stepText, extra] = part.split("/")
  if (extra !== undefined || range === undefined) return null
  const step = stepText === undefined ? 1 : /^\d{1,2}$/.test(stepText) ? Number(stepText) : 0
  if (step < 1) return null
  let low: number | null
  let high: number | null
  if (range === "*") [low, high] = [spec.min, spec.max]
  else if (range.includes("-")) {
    const [a, b, more] = range.split("-")
    if (more !== undefined) return null
    ;[low, high] = [valueOf(a ?? "", spec), valueOf(b ?? "", spec)]
  } else {
    low = valueOf(range, spec)
    high = stepText === undefined ? low : null
  }
  if (low === null || high === null || low > high) return null
  const values: Array<number> = []
  for (let value = low; value <= high; value += step) values.push(value)
  return values
}

/** The sorted values of one field, or null when it is invalid. */
const fieldValues = (text: string, spec: FieldSpec, weekday: boolean): ReadonlyArray<number> | null => {
  const values = new Set<number>()
  for (const part of text.split(",")) {
    const denoted = partValues(part, spec)
    if (denoted === null) return null
    for (const value of denoted) values.add(weekday && value === 7 ? 0 : value)
  }
  return [...values].sort((a, b) => a - b)
}

const EVERY_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/** Parses `@every <n><unit>`; null when it is not a valid interval of at least 1 s. */
const parseEvery = (spec: string): EveryFields | null => {
  const match = /^@every\s+(\d{1,12})(ms|s|m|h)$/.exec(spec.trim())
  if (match === null) return null
  const intervalMs = Number(match[1]) * EVERY_UNITS[match[2]!]!
  return Number.isSafeInteger(intervalMs) && intervalMs >= MIN_EVERY_MS ? { kind: "every", intervalMs } : null
}

const zones = new Map<string, string | null>()

/** The IANA name of `zone` as Intl resolves it, or null when Intl does not know it (cached). */
export const canonicalZone = (zone: string): string | null => {
  const cached = zones.get(zone)
  if (cached !== undefined) return cached
  let resolved: string | null
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone
  } catch {
    resolved = null
  }
  if (zones.size > 1_000) zones.clear()
  zones.set(zone, resolved)
  return resolved
}

/**
 * Parses a schedule spec in `zone` (UTC when null); null when the spec or the zone is invalid.
 *
 * @example parseSchedule("*\/30 1 * * *", "America/New_York")?.kind // "cron"
 */
export const parseSchedule = (spec: string, zone: string | null): ParsedSchedule | null => {
  if (spec.trim().startsWith("@")) return parseEvery(spec)
  const resolvedZone = canonicalZone(zone ?? "UTC")
  if (resolvedZone === null) return null
  const texts = spec.trim().split(/\s+/)
  if (texts.length !== 5) return null
  const values = texts.map((text, index) => fieldValues(text, FIELD_SPECS[index]!, index === 4))
  if (values.some((field) => field === null)) return null
  const [minutes, hours, days, months, weekdays] = values as Array<ReadonlyArray<number>>
  return {
    kind: "cron",
    zone: resolvedZone,
    minutes: minutes!,
    hours: hours!,
    days: days!,
    months: months!,
    weekdays: weekdays!,
    starDays: texts[2] === "*",
    starWeekdays: texts[4] === "*"
  }
}

/** Sorted values as canonical text: runs of two or more as `a-b`, joined by commas. */
const listText = (values: ReadonlyArray<number>): string => {
  const parts: Array<string> = []
  for (let start = 0; start < values.length;) {
    let end = start
    while (end + 1 < values.length && values[end + 1] === values[end]! + 1) end++
    parts.push(end > start ? `${values[start]}-${values[end]}` : `${values[start]}`)
    start = end + 1
  }
  return parts.join(",")
}

const fullText = (values: ReadonlyArray<number>, size: number): string => (values.length === size ? "*" : listText(values))

/**
 * The timer key of a parsed schedule (N1).
 *
 * @example timerKeyOf(parseSchedule("0,30 * * * *", null)!) // "$cron:UTC 0,30 * * * *"
 */
export const timerKeyOf = (schedule: ParsedSchedule): string => {
  if (schedule.kind === "every") return `${CRON_PREFIX}@every ${schedule.intervalMs}ms`
  // A restricted day field of every value matches every day, alone or OR-ed with the other: two stars.
  const everyDay = (!schedule.starDays && schedule.days.length === 31) || (!schedule.starWeekdays && schedule.weekdays.length === 7)
  const fields = [
    fullText(schedule.minutes, 60),
    fullText(schedule.hours, 24),
    everyDay || schedule.starDays ? "*" : listText(schedule.days),
    fullText(schedule.months, 12),
    everyDay || schedule.starWeekdays ? "*" : listText(schedule.weekdays)
  ]
  return `${CRON_PREFIX}${schedule.zone} ${fields.join(" ")}`
}
