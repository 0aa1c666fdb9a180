/**
 * Declaring cron entries (upstream `policy.cron`): parsing five-field specs with croner's `CronPattern`,
 * canonical timer keys (N1) and `next` (N2) computed here over the pattern's value sets and the zone's
 * wall clock, so DST gaps and folds follow N2 for every kind of spec.
 */
import { CronPattern } from "croner"
import { Effect } from "effect"
import {
  CRON_PREFIX,
  type CronEntry,
  type CronEntryInput,
  type CronSchedule,
  type CronScheduleInput,
  DuplicateCronKeyError,
  InvalidCronEntryError
} from "../../subjects/cron/api.ts"
import { canonicalZone, instantOfWall, wallMsOf } from "./zone.ts"

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
/** Smallest `@every` interval (N1). */
const MIN_EVERY_MS = 1_000
/** Days a search for the next matching wall time may scan: two leap cycles (Feb 29 past 2100). */
const SEARCH_LIMIT_DAYS = 366 * 9
/** croner marks an ordinary day-of-week value with this bit set (other values are `#n` occurrences). */
const ANY_OCCURRENCE = 0x3f
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/** Which days a pattern matches: every day, by day of month, by day of week, or either (Vixie OR). */
type DayRule = "every" | "dom" | "dow" | "either"

/** A parsed five-field pattern: sorted value sets and its day rule. */
export interface WallPattern {
  readonly minutes: ReadonlyArray<number>
  readonly hours: ReadonlyArray<number>
  readonly daysOfMonth: ReadonlyArray<number>
  readonly months: ReadonlyArray<number>
  readonly daysOfWeek: ReadonlyArray<number>
  readonly dayRule: DayRule
}

const indexesSet = (flags: ArrayLike<number>, offset: number): Array<number> => {
  const values: Array<number> = []
  for (let index = 0; index < flags.length; index++) if (flags[index]) values.push(index + offset)
  return values
}

const invalid = (input: CronEntryInput, reason: string) =>
  new InvalidCronEntryError({ spec: input.spec, zone: input.zone ?? null, reason })

const dayRuleOf = (pattern: CronPattern, domFull: boolean, dowFull: boolean): DayRule => {
  const domAll = pattern.starDOM || domFull
  const dowAll = pattern.starDOW || dowFull
  if (pattern.starDOM && pattern.starDOW) return "every"
  if (pattern.starDOM) return dowAll ? "every" : "dow"
  if (pattern.starDOW) return domAll ? "every" : "dom"
  return domAll || dowAll ? "every" : "either"
}

/** Parses five fields with croner; rejects croner's extensions (L, W, #) that a value set cannot hold. */
export const parseWallPattern = (input: CronEntryInput): WallPattern | InvalidCronEntryError => {
  let pattern: CronPattern
  try {
    pattern = new CronPattern(input.spec.trim(), undefined, { mode: "5-part" })
  } catch (error) {
    return invalid(input, error instanceof Error ? error.message : String(error))
  }
  if (pattern.lastDayOfMonth || pattern.lastWeekday || pattern.nearestWeekdays.some((flag) => flag !== 0)) {
    return invalid(input, "L and W are not supported")
  }
  if (pattern.dayOfWeek.some((flag) => flag !== 0 && flag !== ANY_OCCURRENCE)) return invalid(input, "# is not supported")
  if (pattern.useAndLogic) return invalid(input, "AND day logic is not supported")
  const dowFlags = indexesSet(pattern.dayOfWeek, 0).map((day) => day % 7)
  const daysOfWeek = [...new Set(dowFlags)].sort((a, b) => a - b)
  const daysOfMonth = indexesSet(pattern.day, 1)
  const months = indexesSet(pattern.month, 1)
  const minutes = indexesSet(pattern.minute, 0)
  const hours = indexesSet(pattern.hour, 0)
  if (minutes.length === 0 || hours.length === 0 || months.length === 0) return invalid(input, "a field matches nothing")
  const dayRule = dayRuleOf(pattern, daysOfMonth.length === 31, daysOfWeek.length === 7)
  const wall: WallPattern = { minutes, hours, daysOfMonth, months, daysOfWeek, dayRule }
  if (dayRule === "dom" && !months.some((month) => daysOfMonth.some((day) => day <= daysInMonth(2000, month)))) {
    return invalid(input, "no month has the given day of month, so it never fires")
  }
  return wall
}

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate()

const renderField = (values: ReadonlyArray<number>, size: number): string => {
  if (values.length === size) return "*"
  const parts: Array<string> = []
  for (let start = 0; start < values.length;) {
    let end = start
    while (end + 1 < values.length && values[end + 1] === values[end]! + 1) end++
    if (end - start >= 2) parts.push(`${values[start]}-${values[end]}`)
    else for (let index = start; index <= end; index++) parts.push(String(values[index]))
    start = end + 1
  }
  return parts.join(",")
}

/** Canonical fields of a pattern: equal for every spelling of one schedule (N1). */
export const canonicalFields = (wall: WallPattern): string => {
  const dom = wall.dayRule === "dom" || wall.dayRule === "either" ? renderField(wall.daysOfMonth, 31) : "*"
  const dow = wall.dayRule === "dow" || wall.dayRule === "either" ? renderField(wall.daysOfWeek, 7) : "*"
  return [renderField(wall.minutes, 60), renderField(wall.hours, 24), dom, renderField(wall.months, 12), dow].join(" ")
}

const dayMatches = (wall: WallPattern, dayOfMonth: number, dayOfWeek: number): boolean => {
  switch (wall.dayRule) {
    case "every":
      return true
    case "dom":
      return wall.daysOfMonth.includes(dayOfMonth)
    case "dow":
      return wall.daysOfWeek.includes(dayOfWeek)
    case "either":
      return wall.daysOfMonth.includes(dayOfMonth) || wall.daysOfWeek.includes(dayOfWeek)
  }
}

/** Matching wall times (ms of a UTC calendar) at or after `startWallMs`, ascending, within the search limit. */
function* matchingWalls(wall: WallPattern, startWallMs: number): Generator<number> {
  const firstDayMs = Math.floor(startWallMs / DAY_MS) * DAY_MS
  for (let dayIndex = 0; dayIndex <= SEARCH_LIMIT_DAYS; dayIndex++) {
    const dayMs = firstDayMs + dayIndex * DAY_MS
    const date = new Date(dayMs)
    if (!wall.months.includes(date.getUTCMonth() + 1)) continue
    if (!dayMatches(wall, date.getUTCDate(), date.getUTCDay())) continue
    for (const hour of wall.hours) {
      for (const minute of wall.minutes) {
        const wallMs = dayMs + hour * 3_600_000 + minute * MINUTE_MS
        if (wallMs >= startWallMs) yield wallMs
      }
    }
  }
}

/**
 * The first instant strictly after `afterMs` of a five-field pattern in `zone` (N2). Each matching wall time
 * names one instant (`instantOfWall`: first occurrence in a fold, end of a gap), and that map never runs
 * backwards, so the scan starts at the wall time of `afterMs` and takes the first instant past it.
 */
export const nextOfPattern = (wall: WallPattern, zone: string, afterMs: number): number => {
  const startWallMs = Math.floor(wallMsOf(zone, afterMs) / MINUTE_MS) * MINUTE_MS
  for (const wallMs of matchingWalls(wall, startWallMs)) {
    const instantMs = instantOfWall(zone, wallMs)
    if (instantMs > afterMs) return instantMs
  }
  throw new Error(`cron pattern in ${zone} has no instant within ${SEARCH_LIMIT_DAYS} days after ${afterMs}`)
}

/** The first multiple of `everyMs` since the epoch strictly after `afterMs` (N2). */
export const nextOfEvery = (everyMs: number, afterMs: number): number => (Math.floor(afterMs / everyMs) + 1) * everyMs

const EVERY = /^@every\s+(\d+)\s*(ms|s|m|h)$/i

/** Parses one entry into its timer key and `next` (N1, N2). */
export const parseEntry = (input: CronEntryInput): CronEntry | InvalidCronEntryError => {
  const spec = input.spec.trim()
  const payload = Effect.succeed(input.payload)
  if (spec.toLowerCase().startsWith("@every")) {
    const match = EVERY.exec(spec)
    if (match === null) return invalid(input, "expected @every <n>ms|s|m|h")
    const everyMs = Number(match[1]) * UNIT_MS[match[2]!.toLowerCase()]!
    if (!Number.isSafeInteger(everyMs) || everyMs < MIN_EVERY_MS) return invalid(input, "the interval must be at least 1 s")
    return { key: `${CRON_PREFIX}@every ${everyMs}ms`, command: input.command, payload, next: (afterMs) => nextOfEvery(everyMs, afterMs) }
  }
  const zone = canonicalZone(input.zone ?? "UTC")
  if (zone === undefined) return invalid(input, `unknown time zone ${JSON.stringify(input.zone)}`)
  const wall = parseWallPattern(input)
  if (wall instanceof InvalidCronEntryError) return wall
  return {
    key: `${CRON_PREFIX}${zone} ${canonicalFields(wall)}`,
    command: input.command,
    payload,
    next: (afterMs) => nextOfPattern(wall, zone, afterMs)
  }
}

/** Declares a schedule: every entry parsed and keyed; two entries with one key are an error (N1). */
export const defineSchedule = (
  input: CronScheduleInput
): Effect.Effect<CronSchedule, InvalidCronEntryError | DuplicateCronKeyError> =>
  Effect.gen(function*() {
    const entries: Array<CronEntry> = []
    const keys = new Set<string>()
    for (const entryInput of input.entries) {
      const entry = parseEntry(entryInput)
      if (entry instanceof InvalidCronEntryError) return yield* entry
      if (keys.has(entry.key)) return yield* new DuplicateCronKeyError({ key: entry.key })
      keys.add(entry.key)
      entries.push(entry)
    }
    return { skipMs: input.skipMs, entries }
  })
