/**
 * Known-bad: an adapter that truncates 64-bit integers to 32 bits on the way out (as a driver that
 * reads BIGINT into an int32 would). Must fail ADP-004.
 */
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { wrapAdapter } from "./wrapAdapter.ts"

const truncate = (value: unknown): unknown =>
  typeof value === "number" && Number.isInteger(value) ? value | 0 : typeof value === "bigint" ? Number(BigInt.asIntN(32, value)) : value

/** Wraps `base` so every integer read back is truncated to its low 32 bits (two's complement). */
export const truncatesIntegers = (base: StorageAdapter): StorageAdapter =>
  wrapAdapter(base, `${base.name}-truncates-integers`, {
    mapRows: (_sql, rows) =>
      rows.map((row) => {
        const out: Record<string, unknown> = {}
        for (const [key, value] of Object.entries(row as Record<string, unknown>)) out[key] = truncate(value)
        return out
      })
  })
