/**
 * Property `adapter/byte-order`: text keys inserted in a generated order come back from `ORDER BY`
 * sorted by their UTF-8 bytes. Keys mix cases, accents, U+FFFD and astral characters, where locale
 * order, UTF-16 order and byte order disagree.
 *
 * Witnesses ADP-008. Tables use SQLite's default BINARY collation and `COLLATE "C"` on Postgres.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { Json, PropertyDefinition } from "../../harness/Property.ts"
import { ADP } from "../../spec/adapter.ts"
import { columnTypes, compareUtf8, createTables, orHarness, TraceRecorder } from "./support.ts"

/** A generated ordering scenario: distinct keys in insertion order. */
export type ByteOrderScenario = { readonly keys: ReadonlyArray<string> }

const ALPHABET = ["a", "b", "A", "B", "z", "Z", "é", "e", "f", "ß", "Å", "ä", "_", "0", " ", "-", "\uFFFD", "😀", "𝄞", "中"]
const keyArb = fc.array(fc.constantFrom(...ALPHABET), { minLength: 0, maxLength: 3 }).map((chars) => chars.join(""))

const TABLE = "adp_order"

/** The byte-order property. */
export const byteOrderProperty: PropertyDefinition<ByteOrderScenario & Json> = {
  id: "adapter/byte-order",
  subject: "adapter",
  title: "text keys order by UTF-8 bytes",
  requirements: [ADP.byteOrder, ADP.freshDatabase],
  needs: [],
  scenario: () =>
    fc.record({ keys: fc.uniqueArray(keyArb, { minLength: 2, maxLength: 12 }) }) as fc.Arbitrary<ByteOrderScenario & Json>,
  execute: (scenario, environment) =>
    Effect.gen(function*() {
      const sql = environment.database.sql
      const recorder = new TraceRecorder()
      const created = yield* createTables(environment.database, recorder, [
        `CREATE TABLE ${TABLE} (k ${columnTypes(sql).byteOrderedText} PRIMARY KEY)`
      ])
      if (!created) return recorder.trace()
      for (const k of scenario.keys) {
        yield* orHarness("insert a key", sql`INSERT INTO ${sql(TABLE)} (k) VALUES (${k})`)
      }
      yield* recorder.step("insertKeys", scenario.keys as Json, null, null)
      const rows = yield* orHarness("read ordered keys", sql.unsafe<{ readonly k: string }>(`SELECT k FROM ${TABLE} ORDER BY k`))
      const actual = rows.map((row) => row.k)
      const expected = [...scenario.keys].sort(compareUtf8)
      recorder.cover(ADP.byteOrder)
      const index = yield* recorder.step("selectOrderByKey", null, actual, expected)
      const at = expected.findIndex((key, i) => key !== actual[i])
      if (at !== -1) {
        recorder.diverge(
          ADP.byteOrder,
          index,
          `ORDER BY k must sort by UTF-8 bytes, so position ${at} holds ${JSON.stringify(expected[at])}; the adapter put ${JSON.stringify(actual[at] ?? null)} there (a locale or UTF-16 collation orders these keys differently).`,
          expected,
          actual
        )
      }
      return recorder.trace()
    })
}
