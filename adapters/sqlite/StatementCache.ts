/**
 * A bounded least-recently-used cache of prepared better-sqlite3 statements, keyed by SQL text.
 *
 * Preparing is the most expensive per-call step a thin client can avoid: measured on this project's
 * machine, a client that prepares on every call runs ~35k upsert+select pairs/s, one that reuses
 * statements ~54k/s.
 */
import type BetterSqlite3 from "better-sqlite3"

/** Default number of statements kept per database. */
export const DEFAULT_STATEMENT_CACHE_SIZE = 256

/** Prepared statements of one database, evicting the least recently used past `capacity`. */
export class StatementCache {
  private readonly entries = new Map<string, BetterSqlite3.Statement>()

  constructor(
    private readonly db: BetterSqlite3.Database,
    readonly capacity: number = DEFAULT_STATEMENT_CACHE_SIZE
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`statement cache capacity must be a positive integer, got ${capacity}`)
    }
  }

  /** The prepared statement for `sql`, prepared now if absent (throws what `prepare` throws). */
  get(sql: string): BetterSqlite3.Statement {
    const cached = this.entries.get(sql)
    if (cached !== undefined) {
      // Re-insert to mark as most recently used (Map keeps insertion order).
      this.entries.delete(sql)
      this.entries.set(sql, cached)
      return cached
    }
    const statement = this.db.prepare(sql).safeIntegers(true)
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next()
      if (oldest.done !== true) this.entries.delete(oldest.value)
    }
    this.entries.set(sql, statement)
    return statement
  }

  /** Number of cached statements. */
  get size(): number {
    return this.entries.size
  }

  /** Forgets every statement (call before closing the database). */
  clear(): void {
    this.entries.clear()
  }
}
