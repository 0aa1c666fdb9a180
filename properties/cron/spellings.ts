/**
 * The N1 spellings the cron generators draw from, by field, grouped by meaning: every spelling in a
 * group means the same, so every one of them has the same canonical timer key. `respelled` gives a
 * spec another spelling of its meaning, for the appended duplicate-key declarations
 * (`CronScenario.respelledDeclarations`); `neighbour` gives it another meaning in one field, for the
 * appended declarations of two entries one field apart (`CronScenario.neighbourDeclarations`).
 */

/**
 * Five-field specs (N1, N2): minute and hour fields around the local transitions, day-of-month,
 * month and day-of-week mostly every day but often restricted (alone or both: OR), in several
 * spellings and field separators. Meaning and spellings (all spellings of one meaning share a key).
 */
export const MINUTES: ReadonlyArray<ReadonlyArray<string>> = [
  ["0", "00"], ["30"], ["15"], ["45"], ["*/15", "0,15,30,45", "0-59/15"], ["*/30", "0,30", "00,30"], ["5,35"], ["*/20", "0,20,40"]
]
/** Hour fields around the local transitions (01:00-03:00). */
export const HOURS: ReadonlyArray<ReadonlyArray<string>> = [["*", "0-23", "*/1"], ["1"], ["2", "02"], ["1-2", "1,2"], ["0-3", "0,1,2,3"], ["*/2", "0-23/2"]]
/** Every month, spelled three ways (the common case). */
export const ALL_MONTHS: ReadonlyArray<string> = ["*", "1-12", "JAN-DEC"]
/**
 * Restricted months (N1 names, N2): sets holding the transitions' months (March, April, October,
 * November, January) or not, so that a skipped wall time's month decides whether it fires after a gap,
 * and some searches run weeks or months ahead.
 */
export const MONTHS: ReadonlyArray<ReadonlyArray<string>> = [["3,10", "MAR,OCT", "10,3"], ["1-4", "JAN-APR"], ["10-12", "OCT-DEC"], ["3-4,10-11", "MAR-APR,OCT-NOV"]]
/**
 * Day-of-month (N1, N2): a star, every day written out (not a star: it combines with a restricted
 * day-of-week by OR), or restricted.
 */
export const DAYS: ReadonlyArray<ReadonlyArray<string>> = [["*"], ["1-31"], ["1-7", "1,2,3,4,5,6,7"], ["*/2", "1-31/2"], ["15-31"], ["1,15", "15,1"]]
/**
 * Day-of-week (N1, N2): a star, or restricted; Sunday (the day of the transitions) spelled 0, 7 and SUN,
 * weekends, working days, and every day written out (restricted, yet every day matches: the key of a
 * star, N1).
 */
export const WEEKDAYS: ReadonlyArray<ReadonlyArray<string>> = [["*"], ["0", "7", "SUN"], ["0,6", "SAT,SUN", "6,0"], ["1-5", "MON-FRI"], ["1", "MON"], ["0-6", "SUN-SAT", "1-7"]]
/** Field separators: any run of blanks separates fields (N1: equivalent spellings share a key). */
export const SEPARATORS: ReadonlyArray<string> = [" ", "  ", "\t"]
export const EVERY: ReadonlyArray<ReadonlyArray<string>> = [
  ["@every 60s", "@every 1m", "@every 60000ms"], ["@every 90s", "@every 90000ms"], ["@every 15m", "@every 900s"], ["@every 2s", "@every 2000ms"],
  ["@every 1s", "@every 1000ms"]
]
/** The meaning groups of each of the five fields, in field order. */
const FIELD_GROUPS: ReadonlyArray<ReadonlyArray<ReadonlyArray<string>>> = [MINUTES, HOURS, DAYS, [ALL_MONTHS, ...MONTHS], WEEKDAYS]

/** The spelling after `spelling` in its group of `groups` (itself when it has no other). */
const nextSpelling = (groups: ReadonlyArray<ReadonlyArray<string>>, spelling: string): string => {
  const group = groups.find((candidates) => candidates.includes(spelling))
  return group === undefined ? spelling : group[(group.indexOf(spelling) + 1) % group.length]!
}

/**
 * `spec` in another spelling of the same meaning (N1): each field's next spelling in its group and
 * the fields separated by a tab instead of a space (or a space instead of other blanks); an `@every`
 * interval in its next unit. A spec outside the tables (an invalid one) only changes its blanks.
 *
 * @example respelled("0 2 * * SUN") // "00\t02\t*\t1-12\t0"
 */
export const respelled = (spec: string): string => {
  if (spec.startsWith("@every")) return nextSpelling(EVERY, spec)
  const fields = spec.trim().split(/\s+/)
  const separator = spec.includes(" ") && !spec.includes("  ") ? "\t" : " "
  if (fields.length !== FIELD_GROUPS.length) return fields.join(separator)
  return fields.map((field, index) => nextSpelling(FIELD_GROUPS[index]!, field)).join(separator)
}

/** How a neighbour differs from its spec: the field (0-4, minute to day-of-week), and its new meaning. */
export interface NeighbourChange {
  readonly field: number
  /** The field becomes a star (N1: a star day field does not join the other by OR); else the meaning `step` groups on. */
  readonly toStar: boolean
  readonly step: number
}

/**
 * `spec` with one field's meaning changed (N1, the other way round from `respelled`): field `field`
 * spelled as a star, or as a meaning `1 + step` groups after its own (never its own), the other fields
 * as written. Whether the two share a key is the model's to say (`1-31` beside a star day-of-week is
 * every day, as a star is). An `@every` moves to another interval; a field outside the tables (of an
 * invalid spec) and a spec without five fields are kept as written.
 *
 * @example neighbour("0 0 1 * 1", { field: 2, toStar: true, step: 0 }) // "0 0 * * 1"
 */
export const neighbour = (spec: string, change: NeighbourChange): string => {
  if (spec.startsWith("@every")) return otherMeaning(EVERY, spec, change.step)
  const fields = spec.trim().split(/\s+/)
  if (fields.length !== FIELD_GROUPS.length || change.field < 0 || change.field >= fields.length) return spec
  const groups = FIELD_GROUPS[change.field]!
  const star = groups[0]![0]!
  const current = fields[change.field]!
  fields[change.field] = change.toStar && current !== star ? star : otherMeaning(groups, current, change.step)
  return fields.join(" ")
}

/** The first spelling of the meaning `1 + step` groups after the one holding `spelling` (itself when unknown). */
const otherMeaning = (groups: ReadonlyArray<ReadonlyArray<string>>, spelling: string, step: number): string => {
  const index = groups.findIndex((candidates) => candidates.includes(spelling))
  if (index === -1 || groups.length < 2) return spelling
  return groups[(index + 1 + (step % (groups.length - 1))) % groups.length]![0]!
}
