/**
 * Own: read returns the chunks whenever they are contiguous from 0, without checking they sum to the
 * size asked for, so a read with a wrong size returns bytes.
 *
 * Breaks the read rule (CNT-008).
 */
import { Option } from "effect"
import { knownBadContent } from "./kit.ts"

/** Size not checked. */
export const readSizeUnchecked = knownBadContent({
  name: "read-size-unchecked",
  bug: "read checks chunks 0..n-1 are contiguous but not that they sum to the size",
  breaks: ["CNT-008"],
  pieces: {
    assemble: (rows) => {
      if (rows.length === 0 || rows.some((row, index) => row.chunk !== index)) return Option.none()
      const size = rows.reduce((sum, row) => sum + row.bytes.byteLength, 0)
      const bytes = new Uint8Array(size)
      let offset = 0
      for (const row of rows) {
        bytes.set(row.bytes, offset)
        offset += row.bytes.byteLength
      }
      return Option.some(bytes)
    }
  }
})
