/**
 * Cron bugs in the persisted layout (the reference page's Rows section, CRN-017): the runtime works on
 * its own tables, but upstream's statements do not run on them, so an upgrade from or to upstream breaks.
 */
import { SCHEMA_STATEMENTS } from "../../../subjects/cron/schema.ts"
import { knownBadCron, type KnownBadCron } from "./kit.ts"

/** The shipped layout with one column declaration replaced (throws when `from` is not in it). */
const layoutWith = (from: string, to: string): ReadonlyArray<string> => {
  const statements = SCHEMA_STATEMENTS.map((statement) => statement.replace(from, to))
  if (statements.every((statement, index) => statement === SCHEMA_STATEMENTS[index])) throw new Error(`the cron layout has no ${from}`)
  return statements
}

/**
 * Ours until suite 0.12.0: `ambiguous` declared INTEGER (and written 0). Postgres refuses upstream's
 * `ambiguous = false` there, so upstream's rewrite fails on a database this runtime created. SQLite
 * takes `false` in any column, so the bug exists only on Postgres dialects (pglite, postgres).
 */
export const integerAmbiguousColumn = knownBadCron({
  name: "integer-ambiguous-column",
  bug: "Rows: the outbox's ambiguous flag declared INTEGER, so upstream's rewrite (ambiguous = false) is refused on Postgres",
  breaks: ["CRN-017"],
  pieces: { schemaStatements: layoutWith("ambiguous BOOLEAN NOT NULL DEFAULT false", "ambiguous INTEGER NOT NULL DEFAULT 0") }
})

/**
 * `ambiguous` without its default: a runtime that names the column in its own insert never notices, but
 * upstream's tick insert leaves it out, so it is refused (NOT NULL) on every dialect.
 */
export const ambiguousWithoutDefault = knownBadCron({
  name: "ambiguous-without-default",
  bug: "Rows: the outbox's ambiguous flag has no default, so upstream's tick insert (which leaves it out) is refused",
  breaks: ["CRN-017"],
  pieces: { schemaStatements: layoutWith("ambiguous BOOLEAN NOT NULL DEFAULT false", "ambiguous BOOLEAN NOT NULL") }
})

/** The layout known-bads caught only on Postgres dialects. */
export const postgresLayoutKnownBadCrons: ReadonlyArray<KnownBadCron> = [integerAmbiguousColumn]
