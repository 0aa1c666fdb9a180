/**
 * Tampering with a signed grant's text (`Tamper`), without knowing its encoding: each edit makes a
 * text the store did not sign, so K4 ("a forged MAC ... or a malformed grant is refused") refuses it
 * as `malformed` or `invalid`. A replaced character is never a segment's last one, where an encoding
 * such as base64url may carry unused bits (two texts, one value).
 */
import type { Tamper } from "./scenario.ts"

/** The character after `character` in its class (digits, lower case, upper case; `-` and `_` swap). */
const nextInClass = (character: string): string => {
  const code = character.charCodeAt(0)
  const cycle = (first: string, size: number) => String.fromCharCode(first.charCodeAt(0) + ((code - first.charCodeAt(0) + 1) % size))
  if (character >= "0" && character <= "9") return cycle("0", 10)
  if (character >= "a" && character <= "z") return cycle("a", 26)
  if (character >= "A" && character <= "Z") return cycle("A", 26)
  if (character === "-") return "_"
  if (character === "_") return "-"
  return character === "A" ? "B" : "A"
}

/** Where `flipped` replaces a character: from the middle on, the first one neither a `.` nor before one. */
const flipIndex = (grant: string): number => {
  for (let index = Math.floor(grant.length / 2); index < grant.length - 1; index++) {
    if (grant[index] !== "." && grant[index + 1] !== ".") return index
  }
  return Math.floor(grant.length / 2)
}

/**
 * `grant` changed by `tamper`.
 *
 * @example tamperedGrant("v1.eyJh.bWFj", "appendedPart") // "v1.eyJh.bWFj.x"
 */
export const tamperedGrant = (grant: string, tamper: Tamper): string => {
  switch (tamper) {
    case "appendedPart":
      return `${grant}.x`
    case "appendedChar":
      return `${grant}A`
    case "truncated":
      return grant.length === 0 ? "A" : grant.slice(0, -1)
    case "flipped": {
      if (grant.length === 0) return "A"
      const index = flipIndex(grant)
      const changed = `${grant.slice(0, index)}${nextInClass(grant[index]!)}${grant.slice(index + 1)}`
      if (changed === grant) throw new Error("tamperedGrant: a flipped grant must differ from the signed one")
      return changed
    }
  }
}
