/**
 * The storage adapter contract, as requirements. These are the first thing `certify` runs on a
 * vendor's adapter: every subject requirement leans on them (a rollback that keeps writes makes every
 * crash scenario meaningless).
 *
 * Rules cite the contract bullets of the adapter issue in words (`contract:rollback`), since the
 * contract has no numbered reference page.
 */
import type { Requirement } from "./Requirement.ts"

const SINCE = "0.1.0"

const requirement = (
  id: string,
  title: string,
  text: string,
  rules: ReadonlyArray<string>,
  needs: Requirement["needs"] = []
): Requirement => ({ id, subject: "adapter", title, text, rules, since: SINCE, needs })

/** Adapter contract requirement IDs, by meaning (stable forever). */
export const ADP = {
  rollback: "ADP-001",
  readYourWrites: "ADP-002",
  noDirtyReads: "ADP-003",
  integers: "ADP-004",
  unicodeText: "ADP-005",
  bytes: "ADP-006",
  jsonText: "ADP-007",
  byteOrder: "ADP-008",
  upsert: "ADP-009",
  uniqueViolation: "ADP-010",
  nested: "ADP-011",
  failedCommit: "ADP-012",
  platformAlarm: "ADP-013",
  freshDatabase: "ADP-014"
} as const

/** The adapter contract requirements `ADP-001`... */
export const adapterRequirements: ReadonlyArray<Requirement> = [
  requirement(
    ADP.rollback,
    "a failed transaction keeps none of its writes",
    "When the effect given to `withTransaction` fails, dies (defect) or fails on a SQL statement, at any " +
      "position among its statements, the adapter MUST roll back every write made inside it: afterwards the " +
      "database MUST hold exactly what it held before the transaction began.",
    ["contract:rollback"]
  ),
  requirement(
    ADP.readYourWrites,
    "a transaction reads its own writes",
    "Inside a transaction, a read MUST return the values written earlier in the same transaction " +
      "(inserts, updates and deletes), before it commits.",
    ["contract:read-your-writes"]
  ),
  requirement(
    ADP.noDirtyReads,
    "uncommitted writes are invisible to other connections",
    "While a transaction on one connection is open, another connection to the same database MUST NOT see " +
      "any of its writes; after it commits, the other connection MUST see all of them, and after it rolls " +
      "back, none of them.",
    ["contract:no-visibility-before-commit"],
    ["independentConnections"]
  ),
  requirement(
    ADP.integers,
    "integers round-trip exactly through 64-bit columns",
    "Every integer in [-(2^53-1), 2^53-1], written as a parameter into a BIGINT column, MUST read back as " +
      "the same JavaScript number (never rounded, truncated to 32 bits, or turned into a string). Values " +
      "outside that range are not part of the contract; the built-in adapters return them as exact bigints.",
    ["contract:integers", "contract:64-bit-columns"]
  ),
  requirement(
    ADP.unicodeText,
    "Unicode text round-trips exactly",
    "Every string of Unicode scalar values except U+0000 (including astral characters such as U+1F600, " +
      "combining marks and the empty string), written into a TEXT column, MUST read back as an identical " +
      "string (same code points, no normalization, no trimming).",
    ["contract:unicode-text"]
  ),
  requirement(
    ADP.bytes,
    "byte arrays round-trip exactly",
    "Every byte array, including the empty one and one of 1 MiB (1,048,576 bytes), written as a " +
      "`Uint8Array` parameter into a BLOB (SQLite) or BYTEA (Postgres) column, MUST read back as a " +
      "`Uint8Array` with the same length and bytes.",
    ["contract:byte-arrays"]
  ),
  requirement(
    ADP.jsonText,
    "JSON text round-trips exactly",
    "Every JSON text (as produced by `JSON.stringify`), written into a TEXT column, MUST read back as the " +
      "identical string, not re-serialized and not parsed into a value.",
    ["contract:json-text"]
  ),
  requirement(
    ADP.byteOrder,
    "text keys order by their UTF-8 bytes",
    "`ORDER BY` on a text key column MUST order keys by comparing their UTF-8 encodings byte by byte " +
      "(shorter prefix first), independent of locale. SQLite's default BINARY collation does this; on " +
      "Postgres the column is declared `COLLATE \"C\"`. So 'B' < 'a', 'z' < 'é', and U+FFFD < U+1F600 " +
      "(unlike JavaScript's UTF-16 order).",
    ["contract:byte-order"]
  ),
  requirement(
    ADP.upsert,
    "INSERT ... ON CONFLICT upserts",
    "`INSERT ... ON CONFLICT (key) DO UPDATE SET ... = excluded....` MUST insert a missing key and update " +
      "an existing one in place, and `ON CONFLICT (key) DO NOTHING` MUST leave an existing row unchanged; " +
      "neither may fail on a duplicate key.",
    ["contract:upsert"]
  ),
  requirement(
    ADP.uniqueViolation,
    "unique violations are recognisable",
    "A plain INSERT of a duplicate PRIMARY KEY or UNIQUE value MUST fail with an `effect/sql` `SqlError` " +
      "whose `reason` is a `UniqueViolation`, and MUST leave the table unchanged.",
    ["contract:unique-violation"]
  ),
  requirement(
    ADP.nested,
    "nested transactions behave as declared",
    "With the `savepoints` capability, a `withTransaction` nested in another MUST act as a savepoint: when " +
      "it fails, exactly its own writes are rolled back and the outer transaction continues and can commit. " +
      "Without it, a nested `withTransaction` MUST fail with an error before running its body, and MUST " +
      "NOT run it as part of (or independently of) the outer transaction.",
    ["contract:nested-transactions"]
  ),
  requirement(
    ADP.failedCommit,
    "a failed commit is surfaced, never hidden",
    "When a COMMIT does not make a transaction's writes durable (a deferred constraint fails at commit, or " +
      "the engine turns the commit of an aborted transaction into a rollback), `withTransaction` MUST fail. " +
      "When it succeeds, every write of the statements that succeeded inside it MUST be visible afterwards.",
    ["contract:failed-commit"]
  ),
  requirement(
    ADP.platformAlarm,
    "the platform alarm slot holds one value and follows transactions",
    "The platform alarm slot MUST return the last time set (or null after delete or when never set), and a " +
      "set or delete made inside a transaction that rolls back MUST be undone with it.",
    ["contract:platform-alarm"]
  ),
  requirement(
    ADP.freshDatabase,
    "each run gets a fresh, empty database",
    "Every `open()` MUST return a database that holds no tables or rows of earlier runs (other than the " +
      "platform alarm slot, which MUST be empty), so a run can create its tables and start from nothing.",
    ["contract:fresh-database"]
  )
]
