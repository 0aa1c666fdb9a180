/**
 * Value conversions between JavaScript and better-sqlite3, shared by every statement of the client.
 *
 * Integers: statements run in better-sqlite3's safe-integers mode, so the driver hands back every
 * INTEGER as a `bigint`; we turn it into a `number` when it lies in [-(2^53-1), 2^53-1] and keep the
 * exact `bigint` otherwise. Nothing is ever rounded (the driver's default mode would silently round
 * 2^53+1 to 2^53). Postgres int8 through PGlite follows the same rule, so both adapters agree.
 *
 * Blobs come back as plain `Uint8Array` views (not Node `Buffer`s), the same type PGlite returns.
 */

/** Converts one parameter to something better-sqlite3 can bind. */
export const toSqliteParameter = (value: unknown): unknown => {
  switch (typeof value) {
    case "boolean":
      return value ? 1 : 0
    case "undefined":
      return null
    default:
      return value
  }
}

/** Converts the parameters of one statement (returns the input when nothing needed converting). */
export const toSqliteParameters = (params: ReadonlyArray<unknown>): Array<unknown> => {
  const out = new Array<unknown>(params.length)
  for (let i = 0; i < params.length; i++) out[i] = toSqliteParameter(params[i])
  return out
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const MIN_SAFE = -MAX_SAFE

/** Converts one value read from SQLite: safe bigints to numbers, Buffers to Uint8Array views. */
export const fromSqliteValue = (value: unknown): unknown => {
  if (typeof value === "bigint") {
    return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value
  }
  if (value instanceof Uint8Array && Buffer.isBuffer(value)) {
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
  }
  return value
}

/** Converts every column of object rows in place and returns them. */
export const fromSqliteRows = (rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> => {
  for (const row of rows) {
    for (const key in row) {
      const value = row[key]
      if (typeof value === "bigint" || typeof value === "object") row[key] = fromSqliteValue(value)
    }
  }
  return rows
}

/** Converts every cell of array rows in place and returns them. */
export const fromSqliteValueRows = (rows: Array<Array<unknown>>): Array<Array<unknown>> => {
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const value = row[i]
      if (typeof value === "bigint" || typeof value === "object") row[i] = fromSqliteValue(value)
    }
  }
  return rows
}
