/**
 * Opaque ids named by first appearance. An implementation draws ids a model cannot predict (uuids
 * from a seeded `Random`, database sequences); the model draws its own stand-ins. To compare the two
 * sides, each side's observations pass through its own namer, which names every id `#1`, `#2`, ... in
 * the order the side first shows it. When both sides show the same values in the same order, the names
 * agree; an id kept where a fresh one was expected (or the reverse) shows as a different name.
 *
 * Deterministic as long as each side presents ids in an order that does not depend on the ids'
 * random parts (sort observations by stable fields first).
 *
 * @example
 * ```ts
 * const namer = makeOpaqueIdNamer()
 * namer.name("v1.5.7.3f2a...") // "#1"
 * namer.name("v1.9.9.77aa...") // "#2"
 * namer.name("v1.5.7.3f2a...") // "#1"
 * ```
 */

/** Bound on distinct ids one namer remembers (a scenario shows far fewer). */
export const MAX_NAMED_IDS = 100_000

/** Names ids by first appearance. */
export interface OpaqueIdNamer {
  /** The id's name, assigning the next one on first sight. */
  readonly name: (id: string) => string
  /** The id's name when it was seen before, else undefined (assigns nothing). */
  readonly known: (id: string) => string | undefined
}

/** A fresh namer (one per side per run). */
export const makeOpaqueIdNamer = (): OpaqueIdNamer => {
  const names = new Map<string, string>()
  return {
    name: (id) => {
      const existing = names.get(id)
      if (existing !== undefined) return existing
      if (names.size >= MAX_NAMED_IDS) throw new RangeError(`more than ${MAX_NAMED_IDS} opaque ids in one run`)
      const name = `#${names.size + 1}`
      names.set(id, name)
      return name
    },
    known: (id) => names.get(id)
  }
}
