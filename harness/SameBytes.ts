/**
 * Byte-array equality for observations: a plain indexed loop, since the payloads compared at every step
 * reach 1 MiB (an `every` with a callback cost ~1 ms per MiB more).
 */

/** True when `actual` is a Uint8Array holding the same bytes as `expected`. */
export const sameBytes = (expected: Uint8Array, actual: unknown): boolean => {
  if (!(actual instanceof Uint8Array) || actual.length !== expected.length) return false
  for (let i = 0; i < expected.length; i++) if (actual[i] !== expected[i]) return false
  return true
}
