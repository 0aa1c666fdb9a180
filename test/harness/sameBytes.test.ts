/**
 * `sameBytes`, the byte equality of every observation: equal bytes in any view (a copy, a subarray at
 * an odd offset, a Buffer) are the same; one byte changed, one byte more or less, or a value that is
 * not a Uint8Array are not.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Buffer } from "node:buffer"
import { sameBytes } from "../../harness/SameBytes.ts"

/** `bytes` copied into a larger buffer at `offset`, returned as a subarray view of it. */
const viewAt = (bytes: Uint8Array, offset: number): Uint8Array => {
  const backing = new Uint8Array(bytes.length + offset + 3).fill(0xa5)
  backing.set(bytes, offset)
  return backing.subarray(offset, offset + bytes.length)
}

describe("sameBytes", () => {
  it("holds for the same bytes in any view", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(7), (bytes, offset) => {
      expect(sameBytes(bytes, Uint8Array.from(bytes))).toBe(true)
      expect(sameBytes(bytes, viewAt(bytes, offset))).toBe(true)
      expect(sameBytes(viewAt(bytes, offset), Buffer.from(bytes))).toBe(true)
    }), { seed: 11, numRuns: 300 })
  })

  it("fails for one byte changed, one byte more or less", () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.nat(), fc.nat(7), (bytes, at, offset) => {
      const changed = Uint8Array.from(bytes)
      changed[at % bytes.length] = changed[at % bytes.length]! ^ (1 << (at % 8))
      expect(sameBytes(bytes, viewAt(changed, offset))).toBe(false)
      expect(sameBytes(bytes, bytes.subarray(0, bytes.length - 1))).toBe(false)
      expect(sameBytes(bytes, Uint8Array.of(...bytes, 0))).toBe(false)
    }), { seed: 12, numRuns: 300 })
  })

  it("fails for a value that is not a Uint8Array, bytes-like or not", () => {
    const bytes = Uint8Array.of(1, 2, 3)
    for (const other of [null, undefined, "\u0001\u0002\u0003", [1, 2, 3], bytes.buffer, Uint16Array.of(1, 2, 3)]) {
      expect(sameBytes(bytes, other)).toBe(false)
    }
    expect(sameBytes(new Uint8Array(0), new Uint8Array(0))).toBe(true)
  })
})
