/**
 * `next(after)` with croner, adapted to N2. Croner follows the DST rules of croner-rust: a fixed-time
 * job (one minute and one hour value) runs at the first instant after a gap that skipped it and once
 * in a fold, which is N2; an interval job (a wildcard, step, list or range in minute or hour) skips
 * wall times in a gap and runs on both passes of a fold, which is not. So croner's answer is used as
 * it is unless a transition lies between `after` (minus 3 h, so a fold that began just before is
 * seen) and that answer; then:
 * - a gap: the first instant after the gap fires when `after` is before it and any skipped wall time
 *   matches the pattern (croner never returns a skipped time, so its answer is at or after the gap);
 * - a fold: an answer on the fold's second pass repeats a wall time the first pass showed, so the
 *   search starts again where the fold ends.
 * Offsets are read through Intl. `@every` fires at multiples of the interval since the epoch.
 */
import { Cron } from "croner"
import type { ParsedCron, ParsedSpec } from "./spec.ts"

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
/** How far back a fold may have begun (folds last at most 1 h). */
const LOOKBACK_MS = 3 * 3_600_000
/** Bound on the adapted search's restarts (one fold at a time). */
const MAX_RESTARTS = 4

const offsetFormatters = new Map<string, Intl.DateTimeFormat>()

/** Offsets read so far, per zone by minute (bounded). */
const offsetCache = new Map<string, Map<number, number>>()

/** The zone's offset from UTC in minutes at `epochMs` (read through Intl once per minute). */
export const zoneOffsetMinutes = (zone: string, epochMs: number): number => {
  const minute = Math.floor(epochMs / MINUTE_MS)
  let cached = offsetCache.get(zone)
  if (cached === undefined) {
    cached = new Map()
    offsetCache.set(zone, cached)
  }
  const known = cached.get(minute)
  if (known !== undefined) return known
  let formatter = offsetFormatters.get(zone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" })
    offsetFormatters.set(zone, formatter)
  }
  const at = minute * MINUTE_MS
  const parts = Object.fromEntries(formatter.formatToParts(new Date(at)).map((part) => [part.type, part.value]))
  const offset = Math.round((Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute)) - at) / MINUTE_MS)
  if (cached.size > 100_000) cached.clear()
  cached.set(minute, offset)
  return offset
}

const crons = new Map<string, Cron>()

const cronOf = (parsed: ParsedCron): Cron => {
  const cacheKey = `${parsed.zone} ${parsed.canonical}`
  let cron = crons.get(cacheKey)
  if (cron === undefined) {
    cron = new Cron(parsed.canonical, { timezone: parsed.zone, mode: "5-part", paused: true })
    if (crons.size > 1_000) crons.clear()
    crons.set(cacheKey, cron)
  }
  return cron
}

const runAfter = (cron: Cron, afterMs: number): number | null => cron.nextRun(new Date(afterMs))?.getTime() ?? null

/** The first minute in (fromMs, toMs] whose offset differs from the offset at `fromMs`, or null. */
const firstOffsetChange = (zone: string, fromMs: number, toMs: number): number | null => {
  const base = zoneOffsetMinutes(zone, fromMs)
  let low = Math.floor(fromMs / MINUTE_MS) * MINUTE_MS
  let high = -1
  // Day steps (bounded by the span), then a binary search inside the day where the offset changed.
  for (let probe = low + DAY_MS; high < 0; probe += DAY_MS) {
    const at = Math.floor(Math.min(probe, toMs) / MINUTE_MS) * MINUTE_MS
    if (zoneOffsetMinutes(zone, at) !== base) high = at
    else if (at >= Math.floor(toMs / MINUTE_MS) * MINUTE_MS) return null
    else low = at
  }
  while (high - low > MINUTE_MS) {
    const middle: number = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS
    if (zoneOffsetMinutes(zone, middle) === base) low = middle
    else high = middle
  }
  return high
}

/** Whether a wall-clock minute (minutes since the epoch, read as if UTC) matches the pattern. */
const wallMatches = (parsed: ParsedCron, wallMinute: number): boolean => {
  const wall = new Date(wallMinute * MINUTE_MS)
  if (!parsed.minutes.includes(wall.getUTCMinutes()) || !parsed.hours.includes(wall.getUTCHours())) return false
  if (!parsed.months.includes(wall.getUTCMonth() + 1)) return false
  const day = parsed.days.includes(wall.getUTCDate())
  const weekday = parsed.weekdays.includes(wall.getUTCDay())
  return parsed.starDays ? weekday : parsed.starWeekdays ? day : day || weekday
}

/** Croner's answer adapted to N2 (see the module comment). */
export const nextCronRun = (parsed: ParsedCron, afterMs: number): number => {
  let from = afterMs
  for (let restart = 0; restart <= MAX_RESTARTS; restart++) {
    const plain = runAfter(cronOf(parsed), from)
    if (plain === null) throw new RangeError(`cron ${parsed.canonical} in ${parsed.zone} never runs after ${from}`)
    const change = firstOffsetChange(parsed.zone, from - LOOKBACK_MS, plain)
    if (change === null) return plain
    const before = zoneOffsetMinutes(parsed.zone, change - MINUTE_MS)
    const after = zoneOffsetMinutes(parsed.zone, change)
    if (after > before) {
      // A gap: wall minutes [wall(change) - (after - before), wall(change)) never showed.
      const wallAtChange = change / MINUTE_MS + after
      let skippedMatch = false
      for (let wall = wallAtChange - (after - before); wall < wallAtChange && !skippedMatch; wall++) skippedMatch = wallMatches(parsed, wall)
      return change > afterMs && skippedMatch ? Math.min(change, plain) : plain
    }
    // A fold: [change, change + (before - after)) repeats wall times the first pass showed.
    const foldEndMs = change + (before - after) * MINUTE_MS
    if (plain < change || plain >= foldEndMs) return plain
    from = foldEndMs - 1
  }
  throw new RangeError(`cron ${parsed.canonical} in ${parsed.zone}: no instant after ${afterMs} within ${MAX_RESTARTS} folds`)
}

/**
 * The first instant strictly after `afterMs` at which the spec fires (N2).
 *
 * @example nextRun({ kind: "every", intervalMs: 60_000 }, 90_000) // 120_000
 */
export const nextRun = (parsed: ParsedSpec, afterMs: number): number =>
  parsed.kind === "every" ? (Math.floor(afterMs / parsed.intervalMs) + 1) * parsed.intervalMs : nextCronRun(parsed, afterMs)

/** Croner's own answer, without the N2 adaptation (what a binding that trusts croner alone computes). */
export const cronerOnlyNextRun = (parsed: ParsedSpec, afterMs: number): number =>
  parsed.kind === "every" ? (Math.floor(afterMs / parsed.intervalMs) + 1) * parsed.intervalMs : runAfter(cronOf(parsed), afterMs) ?? Number.MAX_SAFE_INTEGER
