/**
 * Byte-array equality for observations. The payloads compared at every step reach 1 MiB, so the
 * comparison is the host's native one (`node:buffer`'s `equals`, a memcmp; also in workerd under
 * `nodejs_compat`) over views of the same memory, not a loop in JavaScript (about 1 ms per MiB).
 */
import { Buffer } from "node:buffer"

const view = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/** True when `actual` is a Uint8Array holding the same bytes as `expected`. */
export const sameBytes = (expected: Uint8Array, actual: unknown): boolean =>
  actual instanceof Uint8Array && actual.byteLength === expected.byteLength && view(actual).equals(view(expected))
