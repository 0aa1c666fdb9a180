/**
 * Counts in words for everything the CLI prints: `1 run`, `2 runs`, `71/200 runs`, `1/1 run`.
 */

/** A count and its noun, plural unless the count is one: `plural(1, "step")` is `1 step`. */
export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? "" : "s"}`

/** Done of total, the noun agreeing with the total: `ofTotal(71, 200, "run")` is `71/200 runs`. */
export const ofTotal = (done: number, total: number, noun: string): string => `${done}/${plural(total, noun)}`
