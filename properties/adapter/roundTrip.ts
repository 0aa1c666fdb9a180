/**
 * Property `adapter/round-trip`: integers through a BIGINT column, Unicode text, byte arrays (empty,
 * small, and occasionally 1 MiB) and JSON texts, each written as a parameter and read back.
 *
 * Witnesses ADP-004 (integers), ADP-005 (Unicode text), ADP-006 (bytes) and ADP-007 (JSON text).
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { Json, PropertyDefinition } from "../../harness/Property.ts"
import { ADP } from "../../spec/adapter.ts"
import { columnTypes, createTables, MAX_CONTRACT_INTEGER, orHarness, traceJson, TraceRecorder } from "./support.ts"
import { sameBytes } from "../../harness/SameBytes.ts"

/** A generated round-trip scenario (plain JSON; bytes as arrays of 0..255). */
export type RoundTripScenario = {
  readonly integers: ReadonlyArray<number>
  readonly texts: ReadonlyArray<string>
  readonly bytes: ReadonlyArray<ReadonlyArray<number>>
  readonly jsonTexts: ReadonlyArray<string>
  /** A 1 MiB byte array filled by `mebibyteBytes(fill)`, or null (most scenarios). */
  readonly mebibyte: { readonly fill: number } | null
}

/** Size of the large byte array case: 1 MiB. */
export const MEBIBYTE = 1_048_576

/** The deterministic content of the 1 MiB case. */
export const mebibyteBytes = (fill: number): Uint8Array => {
  const bytes = new Uint8Array(MEBIBYTE)
  for (let i = 0; i < MEBIBYTE; i++) bytes[i] = (i * 31 + fill) & 0xff
  return bytes
}

const EDGE_INTEGERS = [
  0, 1, -1, MAX_CONTRACT_INTEGER, -MAX_CONTRACT_INTEGER, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 32 + 1, -(2 ** 32) - 1, 2 ** 53 - 2
]
const EDGE_TEXTS = ["", "😀", "𝄞 clef", "e\u0301", "\uFFFD", "ÅÄÖ", "a\u200Db", "\u{10FFFF}", "tab\tnewline\n"]
const WELL_FORMED = /^(?:[^\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/

const textArb = fc.oneof(
  fc.constantFrom(...EDGE_TEXTS),
  fc.string({ unit: "binary", maxLength: 24 }).filter((s) => !s.includes("\u0000") && WELL_FORMED.test(s))
)

const scenarioArb: fc.Arbitrary<RoundTripScenario> = fc.record({
  integers: fc.array(fc.oneof(fc.constantFrom(...EDGE_INTEGERS), fc.maxSafeInteger()), { minLength: 1, maxLength: 10 }),
  texts: fc.array(textArb, { minLength: 1, maxLength: 6 }),
  bytes: fc.array(fc.oneof(fc.constant([]), fc.array(fc.nat(255), { maxLength: 48 })), { minLength: 1, maxLength: 4 }),
  jsonTexts: fc.array(fc.json({ maxDepth: 3 }), { minLength: 1, maxLength: 4 }),
  mebibyte: fc.oneof(
    { weight: 24, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ fill: fc.nat(255) }) }
  )
})

const TABLE = "adp_values"

/** The round-trip property. */
export const roundTripProperty: PropertyDefinition<RoundTripScenario & Json> = {
  id: "adapter/round-trip",
  subject: "adapter",
  title: "integers, Unicode text, byte arrays and JSON text round-trip exactly",
  requirements: [ADP.integers, ADP.unicodeText, ADP.bytes, ADP.jsonText, ADP.freshDatabase],
  needs: [],
  scenario: () => scenarioArb as fc.Arbitrary<RoundTripScenario & Json>,
  execute: (scenario, environment) =>
    Effect.gen(function*() {
      const sql = environment.database.sql
      const types = columnTypes(sql)
      const recorder = new TraceRecorder()
      const created = yield* createTables(environment.database, recorder, [
        `CREATE TABLE ${TABLE} (id BIGINT PRIMARY KEY, i BIGINT, t TEXT, b ${types.bytes}, j TEXT)`
      ])
      if (!created) return recorder.trace()
      let nextId = 0

      /** Writes each value into `column` of its own row, reads them back by id, in order. */
      const roundTrip = (column: "i" | "t" | "b" | "j", values: ReadonlyArray<unknown>) =>
        Effect.gen(function*() {
          const ids: Array<number> = []
          for (const value of values) {
            const id = nextId++
            ids.push(id)
            yield* orHarness(
              `write column ${column}`,
              sql`INSERT INTO ${sql(TABLE)} (id, ${sql(column)}) VALUES (${id}, ${value as string})`
            )
          }
          const read: Array<unknown> = []
          for (const id of ids) {
            const rows = yield* orHarness(
              `read column ${column}`,
              sql<Record<string, unknown>>`SELECT ${sql(column)} AS value FROM ${sql(TABLE)} WHERE id = ${id}`
            )
            read.push(rows[0]?.["value"])
          }
          return read
        })

      /** Compares element-wise and records a divergence at the first mismatch. */
      const check = (
        requirementId: string,
        operation: string,
        args: Json,
        expected: ReadonlyArray<unknown>,
        actual: ReadonlyArray<unknown>,
        same: (expected: unknown, actual: unknown) => boolean,
        what: string
      ) =>
        Effect.gen(function*() {
          recorder.cover(requirementId)
          const index = yield* recorder.step(operation, args, traceJson(actual), traceJson(expected))
          const at = expected.findIndex((value, i) => !same(value, actual[i]))
          if (at !== -1) {
            recorder.diverge(
              requirementId,
              index,
              `${what} #${at} was written as ${JSON.stringify(traceJson(expected[at]))} (${typeof expected[at]}) and read back as ${JSON.stringify(traceJson(actual[at]))} (${typeof actual[at]}).`,
              traceJson(expected[at]),
              traceJson(actual[at])
            )
          }
        })

      const integers = yield* roundTrip("i", scenario.integers)
      yield* check(ADP.integers, "roundTripIntegers", scenario.integers as Json, scenario.integers, integers, (a, b) => a === b, "Integer")

      const texts = yield* roundTrip("t", scenario.texts)
      yield* check(ADP.unicodeText, "roundTripTexts", scenario.texts as Json, scenario.texts, texts, (a, b) => a === b, "Text")

      const arrays = scenario.bytes.map((bytes) => Uint8Array.from(bytes))
      const bytesRead = yield* roundTrip("b", arrays)
      yield* check(ADP.bytes, "roundTripBytes", traceJson(arrays), arrays, bytesRead, (a, b) => sameBytes(a as Uint8Array, b), "Byte array")

      if (scenario.mebibyte !== null) {
        const large = mebibyteBytes(scenario.mebibyte.fill)
        const largeRead = yield* roundTrip("b", [large])
        yield* check(ADP.bytes, "roundTripMebibyte", { byteLength: MEBIBYTE, fill: scenario.mebibyte.fill }, [large], largeRead, (a, b) => sameBytes(a as Uint8Array, b), "1 MiB byte array")
      }

      const jsonTexts = yield* roundTrip("j", scenario.jsonTexts)
      yield* check(ADP.jsonText, "roundTripJsonTexts", scenario.jsonTexts as Json, scenario.jsonTexts, jsonTexts, (a, b) => a === b, "JSON text")
      return recorder.trace()
    })
}
