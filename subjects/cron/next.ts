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
 *   search starts again where the fold ends;
 * - otherwise the next transition before croner's answer decides, and so on: an answer a year ahead
 *   can lie beyond the next gap, whose skipped wall times may match.
 * Offsets are read through Intl. `@every` fires at multiples of the interval since the epoch.
 */
import { Cron } from "croner"
import type { ParsedCron, ParsedSpec } from "./spec.ts"

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
/** How far back a fold may have begun (folds last at most 1 h). */
const LOOKBACK_MS = 3 * 3_600_000
/**
 * Bound on the transitions one search crosses: croner's answer lies at most a few years ahead (a
 * 29 February that is also a given weekday), and a zone changes its offset about twice a year.
 */
const MAX_TRANSITIONS = 32

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

/** Croner's answer strictly after `afterMs`; a pattern that never fires is a RangeError. */
const cronerAnswer = (parsed: ParsedCron, afterMs: number): number => {
  const answer = runAfter(cronOf(parsed), afterMs)
  if (answer === null) throw new RangeError(`cron ${parsed.canonical} in ${parsed.zone} never runs after ${afterMs}`)
  return answer
}

/**
 * Croner's answer adapted to N2 (see the module comment), one transition at a time, crossing at most
 * `maxTransitions`; past them `exhausted` decides, given croner's latest answer. Exported for the
 * known-bad that stops after the first transition (`test/known-bad/cron/subtle.ts`).
 */
export const searchAcrossTransitions = (parsed: ParsedCron, afterMs: number, maxTransitions: number, exhausted: (plainMs: number) => number): number => {
  let plain = cronerAnswer(parsed, afterMs)
  // Transitions are looked for after `scanFrom` (at first 3 h back, for a fold that began before), up to croner's answer.
  let scanFrom = afterMs - LOOKBACK_MS
  for (let transition = 0; transition < maxTransitions; transition++) {
    const change = firstOffsetChange(parsed.zone, scanFrom, plain)
    if (change === null) return plain
    const before = zoneOffsetMinutes(parsed.zone, change - MINUTE_MS)
    const after = zoneOffsetMinutes(parsed.zone, change)
    if (after > before) {
      // A gap: wall minutes [wall(change) - (after - before), wall(change)) never showed.
      const wallAtChange = change / MINUTE_MS + after
      let skippedMatch = false
      for (let wall = wallAtChange - (after - before); wall < wallAtChange && !skippedMatch; wall++) skippedMatch = wallMatches(parsed, wall)
      if (change > afterMs && skippedMatch) return Math.min(change, plain)
    } else {
      // A fold: [change, change + (before - after)) repeats wall times the first pass showed; an answer
      // on its second pass is dropped and croner asked again from where the fold ends.
      const foldEndMs = change + (before - after) * MINUTE_MS
      if (plain >= change && plain < foldEndMs) plain = cronerAnswer(parsed, foldEndMs - 1)
    }
    // A later transition may still lie before croner's answer (a search can span a year or more).
    scanFrom = change
  }
  return exhausted(plain)
}

/** Croner's answer adapted to N2 (see the module comment), across every transition before it. */
export const nextCronRun = (parsed: ParsedCron, afterMs: number): number =>
  searchAcrossTransitions(parsed, afterMs, MAX_TRANSITIONS, () => {
    throw new RangeError(`cron ${parsed.canonical} in ${parsed.zone}: no instant after ${afterMs} within ${MAX_TRANSITIONS} transitions`)
  })

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
