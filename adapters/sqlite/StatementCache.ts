/**
 * A bounded cache of prepared better-sqlite3 statements, keyed by SQL text (second-chance eviction).
 *
 * Preparing is the most expensive per-call step a thin client can avoid: measured on this project's
 * machine, a client that prepares on every call runs ~35k upsert+select pairs/s, one that reuses
 * statements ~54k/s.
 */
import type BetterSqlite3 from "better-sqlite3"

/** Default number of statements kept per database. */
export const DEFAULT_STATEMENT_CACHE_SIZE = 256

/**
 * Prepared statements of one database, evicting past `capacity` by the second-chance (clock) rule: a
 * hit only marks its entry used, and eviction passes over used entries once (clearing the mark) before
 * it drops the oldest unused one. A hit costs one property write instead of a Map delete and insert,
 * and a statement in use is never the one evicted while an unused one remains.
 */
export class StatementCache {
  private readonly entries = new Map<string, { readonly statement: BetterSqlite3.Statement; used: boolean }>()

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
      cached.used = true
      return cached.statement
    }
    const statement = this.db.prepare(sql).safeIntegers(true)
    if (this.entries.size >= this.capacity) this.evictOne()
    this.entries.set(sql, { statement, used: false })
    return statement
  }

  /** Drops one entry: the oldest not used since it was last passed over (at most two laps). */
  private evictOne(): void {
    for (let visited = 0; visited < 2 * this.entries.size; visited++) {
      const oldest = this.entries.entries().next()
      if (oldest.done === true) return
      const [sql, entry] = oldest.value
      this.entries.delete(sql)
      if (!entry.used) return
      entry.used = false
      this.entries.set(sql, entry)
    }
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
