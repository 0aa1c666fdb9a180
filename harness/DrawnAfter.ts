/**
 * Giving values drawn *after* a scenario's commands to some of those commands. A subject that adds a
 * new kind of draw this way keeps every earlier draw of its properties as it was (fast-check draws a
 * tuple's parts in order), so a counterexample found before keeps its bytes. Each drawn value names a
 * command by `pick`, modulo the count of the commands still free to take one.
 */

/** A value drawn after the commands, for the `pick`-th free command (modulo their count). */
export interface Picked {
  readonly pick: number
}

/**
 * `commands` with each of `drawn` given, by `give`, to the `pick`-th of the commands `free` still
 * accepts; a draw with no free command left is dropped.
 *
 * @example assignPicked(commands, [{ pick: 7, kind: "flipped" }], (c) => c.op === "attach" && c.tamper === undefined, (c, d) => ({ ...c, tamper: d.kind }))
 */
export const assignPicked = <C, D extends Picked>(
  commands: ReadonlyArray<C>,
  drawn: ReadonlyArray<D>,
  free: (command: C) => boolean,
  give: (command: C, draw: D) => C
): ReadonlyArray<C> => {
  const assigned = [...commands]
  for (const draw of drawn) {
    const candidates = assigned.flatMap((command, index) => (free(command) ? [index] : []))
    if (candidates.length === 0) break
    const index = candidates[draw.pick % candidates.length]!
    assigned[index] = give(assigned[index]!, draw)
    if (free(assigned[index]!)) throw new Error("assignPicked: a command that took a draw must no longer be free")
  }
  return assigned
}
