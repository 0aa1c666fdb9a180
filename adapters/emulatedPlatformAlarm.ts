/**
 * The single Durable Object platform alarm slot, emulated in a one-row table for adapters that are
 * not Durable Objects. Writes go through the same `SqlClient`, so inside a transaction they commit or
 * roll back with it, exactly like `setAlarm` inside a Durable Object's implicit transaction.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { PlatformAlarm } from "./contract.ts"

/** Table that holds the emulated slot; the harness owns this name, subjects never touch it. */
export const PLATFORM_ALARM_TABLE = "dc_platform_alarm"

/** Creates the slot table (idempotent). Run once when an isolated database is opened. */
export const createPlatformAlarmTable = (sql: SqlClient.SqlClient) =>
  sql.unsafe(
    `CREATE TABLE IF NOT EXISTS ${PLATFORM_ALARM_TABLE} (slot INTEGER PRIMARY KEY CHECK (slot = 1), at_ms BIGINT NOT NULL)`
  ).pipe(Effect.asVoid)

/** A `PlatformAlarm` backed by the slot table, written through `sql` (and so through its transactions). */
export const emulatedPlatformAlarm = (sql: SqlClient.SqlClient): PlatformAlarm => ({
  get: sql.unsafe<{ readonly at_ms: number | string | bigint }>(
    `SELECT at_ms FROM ${PLATFORM_ALARM_TABLE} WHERE slot = 1`
  ).pipe(
    Effect.map((rows) => (rows.length === 0 ? null : Number(rows[0]!.at_ms)))
  ),
  set: (epochMs: number) =>
    Number.isSafeInteger(epochMs)
      ? sql`INSERT INTO ${sql(PLATFORM_ALARM_TABLE)} (slot, at_ms) VALUES (1, ${epochMs}) ON CONFLICT (slot) DO UPDATE SET at_ms = excluded.at_ms`
        .pipe(Effect.asVoid)
      : Effect.die(new RangeError(`platform alarm time must be a safe integer of epoch ms, got ${epochMs}`)),
  delete: sql.unsafe(`DELETE FROM ${PLATFORM_ALARM_TABLE} WHERE slot = 1`).pipe(Effect.asVoid)
})
