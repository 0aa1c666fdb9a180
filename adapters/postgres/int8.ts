/**
 * BIGINT (`int8`) as JavaScript numbers.
 *
 * `@effect/sql-pg` decodes `int8` to `bigint` (other drivers return strings). Subjects store epoch
 * milliseconds and counters in BIGINT columns and compare them with numbers, so this adapter decodes
 * an `int8` to an exact `number` when it lies within ±(2^53 - 1) (`Number.isSafeInteger`) and keeps
 * `bigint` only beyond that (never a rounded number). Encoding accepts a safe-integer `number` or a
 * `bigint`. `int8[]` elements follow the same rule. `numeric` (e.g. `SUM(bigint)`) stays a string.
 */
import * as PgTypes from "@effect/sql-pg/PgTypes"
import { Result } from "effect"

const INT8_BYTES = 8
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER)
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER)

/** Decodes 8 big-endian bytes: a `number` when safe, else the exact `bigint`. */
const readInt8 = (bytes: Uint8Array, offset: number, size: number): Result.Result<number | bigint, PgTypes.CodecError> => {
  if (size !== INT8_BYTES) return Result.fail(new PgTypes.CodecError({ message: `int8 needs 8 bytes, got ${size}` }))
  const value = new DataView(bytes.buffer, bytes.byteOffset + offset, INT8_BYTES).getBigInt64(0)
  return Result.succeed(value >= SAFE_MIN && value <= SAFE_MAX ? Number(value) : value)
}

const encodeInt8 = (value: number | bigint): Result.Result<Uint8Array, PgTypes.CodecError> => {
  let big: bigint
  if (typeof value === "bigint") {
    big = value
  } else if (typeof value === "number" && Number.isSafeInteger(value)) {
    big = BigInt(value)
  } else {
    return Result.fail(new PgTypes.CodecError({ message: `int8 needs a safe integer or a bigint, got ${String(value)}` }))
  }
  if (big < INT64_MIN || big > INT64_MAX) {
    return Result.fail(new PgTypes.CodecError({ message: `int8 out of range: ${big}` }))
  }
  const bytes = new Uint8Array(INT8_BYTES)
  new DataView(bytes.buffer).setBigInt64(0, big)
  return Result.succeed(bytes)
}

/** The `int8` codec described above. */
export const int8AsNumberCodec: PgTypes.Codec<number | bigint> = {
  encode: encodeInt8,
  decode: (bytes) => readInt8(bytes, 0, bytes.length),
  read: readInt8
}

/** A client type registry with `int8` (and `int8[]`) decoded as numbers when safe. */
export const makeTypeRegistry = (): PgTypes.Registry => {
  const registry = PgTypes.makeRegistry()
  registry.register(PgTypes.OID.int8, int8AsNumberCodec, { arrayOid: PgTypes.OID.int8Array })
  return registry
}
