/**
 * Wall clocks of IANA zones, read through `Intl` only: a zone's UTC offset at an instant, the wall time
 * of an instant, and the instant a wall time names (first occurrence in a fold, the end of a gap).
 */

const HOUR_MS = 3_600_000
/** Offsets are sampled this far either side of a wall time: an instant is its wall time minus -12 h..+14 h. */
const OFFSET_SAMPLE_MS = [-14 * HOUR_MS, 0, 12 * HOUR_MS] as const
/** Bounded memo of offsets per zone and second; cleared when it grows past this many entries. */
const OFFSET_MEMO_LIMIT = 200_000

const formatters = new Map<string, Intl.DateTimeFormat>()
const offsetMemo = new Map<string, number>()

/** The zone's canonical name as `Intl` resolves it, or undefined when `Intl` does not know it. */
export const canonicalZone = (zone: string): string | undefined => {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

const formatterOf = (zone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(zone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric"
    })
    formatters.set(zone, formatter)
  }
  return formatter
}

/** The zone's offset from UTC (wall minus instant, in ms) at `instantMs`, to the second. */
export const offsetMsAt = (zone: string, instantMs: number): number => {
  if (zone === "UTC") return 0
  const secondMs = Math.floor(instantMs / 1000) * 1000
  const memoKey = `${zone}|${secondMs}`
  const known = offsetMemo.get(memoKey)
  if (known !== undefined) return known
  const fields: Record<string, number> = {}
  for (const part of formatterOf(zone).formatToParts(secondMs)) {
    if (part.type !== "literal") fields[part.type] = Number(part.value)
  }
  const wallMs = Date.UTC(fields.year!, fields.month! - 1, fields.day!, fields.hour!, fields.minute!, fields.second!)
  const offsetMs = wallMs - secondMs
  if (offsetMemo.size >= OFFSET_MEMO_LIMIT) offsetMemo.clear()
  offsetMemo.set(memoKey, offsetMs)
  return offsetMs
}

/** The wall time of `instantMs` in `zone`, as milliseconds of a UTC calendar. */
export const wallMsOf = (zone: string, instantMs: number): number => instantMs + offsetMsAt(zone, instantMs)

/** The first instant at or after `fromMs` whose offset differs from the offset at `fromMs` (within `toMs`). */
const transitionAfter = (zone: string, fromMs: number, toMs: number): number => {
  const before = offsetMsAt(zone, fromMs)
  let lowSec = Math.floor(fromMs / 1000)
  let highSec = Math.ceil(toMs / 1000)
  for (let step = 0; step < 64 && highSec - lowSec > 1; step++) {
    const midSec = Math.floor((lowSec + highSec) / 2)
    if (offsetMsAt(zone, midSec * 1000) === before) lowSec = midSec
    else highSec = midSec
  }
  return highSec * 1000
}

/**
 * The instant a wall time names in `zone` (N2): its first occurrence when a fold repeats it, or the first
 * instant after the gap when a gap skips it.
 */
export const instantOfWall = (zone: string, wallMs: number): number => {
  if (zone === "UTC") return wallMs
  const offsets = [...new Set(OFFSET_SAMPLE_MS.map((deltaMs) => offsetMsAt(zone, wallMs + deltaMs)))]
  const valid = offsets.map((offsetMs) => wallMs - offsetMs).filter((instantMs) => wallMsOf(zone, instantMs) === wallMs)
  if (valid.length > 0) return Math.min(...valid)
  const smallest = Math.min(...offsets)
  const largest = Math.max(...offsets)
  return transitionAfter(zone, wallMs - largest, wallMs - smallest)
}
