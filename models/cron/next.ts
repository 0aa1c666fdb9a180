/**
 * `next(after)` computed by brute force, independently of any cron library (N2): a scan of real
 * instants minute by minute, reading each instant's wall-clock time in the schedule's zone through
 * `Intl.DateTimeFormat`, and deciding gaps and folds from the wall clock itself:
 *
 * - a wall minute that matches fires at the first instant showing it, unless that wall minute was
 *   already shown earlier (a fold repeats it: only the first occurrence fires);
 * - when the wall clock jumps forward (a gap), the instant after the jump fires once if any skipped
 *   wall minute matches.
 *
 * Offsets are read once per 15-minute block of UTC (no zone changes its offset inside one), and runs
 * of days whose date cannot match are skipped whole. The scan is bounded (`MAX_SCAN_MS`).
 */
import type { CronFields, ParsedSchedule } from "./fields.ts"

const MINUTE_MS = 60_000
const BLOCK_MS = 15 * MINUTE_MS
/** How far back the scan starts, so a fold that began before `after` is known (folds last at most 1 h). */
const LOOKBACK_MS = 3 * 3_600_000
/** Minutes before a wall midnight where a day skip stops (larger than any DST shift). */
const DAY_SKIP_MARGIN_MINUTES = 180
/** Bound on the wall days one skip passes over (a year and a little more). */
const MAX_SKIPPED_DAYS = 400
/** The longest the scan looks ahead: 400 days; no schedule the suite generates is rarer. */
export const MAX_SCAN_MS = 400 * 24 * 3_600_000

const formatters = new Map<string, Intl.DateTimeFormat>()
/** Offsets per zone, by 15-minute block of UTC. */
const offsets = new Map<string, Map<number, number>>()

const formatterOf = (zone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(zone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric"
    })
    formatters.set(zone, formatter)
  }
  return formatter
}

/**
 * The zone's offset from UTC in minutes at `epochMs`, read through Intl.
 *
 * @example offsetMinutes("Asia/Kathmandu", Date.UTC(2026, 0, 1)) // 345
 */
export const offsetMinutes = (zone: string, epochMs: number): number => {
  const block = Math.floor(epochMs / BLOCK_MS)
  let zoneOffsets = offsets.get(zone)
  if (zoneOffsets === undefined) {
    zoneOffsets = new Map()
    offsets.set(zone, zoneOffsets)
  }
  const cached = zoneOffsets.get(block)
  if (cached !== undefined) return cached
  const at = block * BLOCK_MS
  const parts = Object.fromEntries(formatterOf(zone).formatToParts(new Date(at)).map((part) => [part.type, part.value]))
  const wallMs = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute))
  const offset = Math.round((wallMs - at) / MINUTE_MS)
  if (zoneOffsets.size > 100_000) zoneOffsets.clear()
  zoneOffsets.set(block, offset)
  return offset
}

const MINUTES_PER_DAY = 24 * 60

/** A schedule's fields as lookup tables, and its day matches by wall day number. */
interface Matcher {
  readonly minutes: ReadonlyArray<boolean>
  readonly hours: ReadonlyArray<boolean>
  readonly dayMatches: (wallDay: number) => boolean
}

const matchers = new WeakMap<CronFields, Matcher>()

const table = (values: ReadonlyArray<number>, size: number): ReadonlyArray<boolean> => {
  const flags = new Array<boolean>(size).fill(false)
  for (const value of values) flags[value] = true
  return flags
}

const matcherOf = (fields: CronFields): Matcher => {
  let matcher = matchers.get(fields)
  if (matcher !== undefined) return matcher
  const days = new Map<number, boolean>()
  matcher = {
    minutes: table(fields.minutes, 60),
    hours: table(fields.hours, 24),
    dayMatches: (wallDay) => {
      let matches = days.get(wallDay)
      if (matches === undefined) {
        const wall = new Date(wallDay * 86_400_000)
        const day = fields.days.includes(wall.getUTCDate())
        const weekday = fields.weekdays.includes(wall.getUTCDay())
        matches = fields.months.includes(wall.getUTCMonth() + 1) && (fields.starDays ? weekday : fields.starWeekdays ? day : day || weekday)
        if (days.size > 10_000) days.clear()
        days.set(wallDay, matches)
      }
      return matches
    }
  }
  matchers.set(fields, matcher)
  return matcher
}

/** The wall-clock minute (minutes since the epoch, read as if UTC) an instant shows in `zone`. */
const wallMinuteOf = (zone: string, epochMs: number): number => Math.floor(epochMs / MINUTE_MS) + offsetMinutes(zone, epochMs)

/** Whether a wall minute (minutes since the epoch, as if UTC) matches every field. */
const wallMatches = (matcher: Matcher, wallMinute: number): boolean => {
  const minuteOfDay = wallMinute - Math.floor(wallMinute / MINUTES_PER_DAY) * MINUTES_PER_DAY
  return matcher.minutes[minuteOfDay % 60]! && matcher.hours[Math.floor(minuteOfDay / 60)]! && matcher.dayMatches(Math.floor(wallMinute / MINUTES_PER_DAY))
}

/** Bound on skipped wall minutes examined per gap (gaps last at most a few hours). */
const MAX_GAP_MINUTES = 24 * 60

const gapMatches = (matcher: Matcher, fromWall: number, toWall: number): boolean => {
  for (let wall = fromWall + 1; wall < toWall && wall - fromWall <= MAX_GAP_MINUTES; wall++) if (wallMatches(matcher, wall)) return true
  return false
}

/** The first instant strictly after `afterMs` at which a five-field schedule fires, or null within the bound. */
const nextCron = (fields: CronFields, afterMs: number): number | null => {
  const matcher = matcherOf(fields)
  let highWater = Number.NEGATIVE_INFINITY
  let previousWall: number | null = null
  const endMs = afterMs + MAX_SCAN_MS
  for (let at = Math.floor((afterMs - LOOKBACK_MS) / MINUTE_MS) * MINUTE_MS; at <= endMs; at += MINUTE_MS) {
    const wall = wallMinuteOf(fields.zone, at)
    if (!matcher.dayMatches(Math.floor(wall / MINUTES_PER_DAY)) && (previousWall === null || wall <= previousWall + 1)) {
      // Nothing on this wall day (nor on the following days whose date cannot match) can fire: jump
      // ahead, stopping `DAY_SKIP_MARGIN_MINUTES` before the next wall day that can match, so that a DST
      // shift on the way cannot carry the jump past its midnight.
      let matchingDay = Math.floor(wall / MINUTES_PER_DAY) + 1
      for (let skipped = 0; skipped < MAX_SKIPPED_DAYS && !matcher.dayMatches(matchingDay); skipped++) matchingDay++
      const skipMinutes = matchingDay * MINUTES_PER_DAY - wall - DAY_SKIP_MARGIN_MINUTES
      if (skipMinutes > 1 && at + skipMinutes * MINUTE_MS <= endMs) {
        at += (skipMinutes - 1) * MINUTE_MS
        highWater = Math.max(highWater, wall + skipMinutes - 1)
        previousWall = null
        continue
      }
    }
    const jumped = previousWall !== null && wall > previousWall + 1 && gapMatches(matcher, previousWall, wall)
    const fires = jumped || (wall > highWater && wallMatches(matcher, wall))
    highWater = Math.max(highWater, wall)
    previousWall = wall
    if (fires && at > afterMs) return at
  }
  return null
}

/**
 * The first instant strictly after `afterMs` at which `schedule` fires (N2), or null when none lies
 * within `MAX_SCAN_MS`.
 *
 * @example nextInstant({ kind: "every", intervalMs: 60_000 }, 90_000) // 120_000
 */
export const nextInstant = (schedule: ParsedSchedule, afterMs: number): number | null =>
  schedule.kind === "every"
    ? (Math.floor(afterMs / schedule.intervalMs) + 1) * schedule.intervalMs
    : nextCron(schedule, afterMs)
