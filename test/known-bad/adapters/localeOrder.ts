/**
 * Known-bad: an adapter whose text collation follows a locale (as a Postgres column with a default
 * `en_US` collation, or a SQLite collation calling `localeCompare`, would). better-sqlite3 cannot
 * register collations, so the wrapper reorders the rows of `ORDER BY <column>` with
 * `Intl.Collator("en")`, which is what such an engine returns. Must fail ADP-008.
 */
import type { StorageAdapter } from "../../../adapters/contract.ts"
import { wrapAdapter } from "./wrapAdapter.ts"

const collator = new Intl.Collator("en")
const ORDER_BY = /ORDER BY\s+"?(\w+)"?/i

/** Wraps `base` so `ORDER BY` on a text column sorts in English locale order. */
export const localeOrder = (base: StorageAdapter): StorageAdapter =>
  wrapAdapter(base, `${base.name}-locale-order`, {
    mapRows: (sql, rows) => {
      const column = ORDER_BY.exec(sql)?.[1]
      if (column === undefined) return rows
      return [...rows].sort((a, b) => {
        const left = (a as Record<string, unknown>)[column]
        const right = (b as Record<string, unknown>)[column]
        return typeof left === "string" && typeof right === "string" ? collator.compare(left, right) : 0
      })
    }
  })
