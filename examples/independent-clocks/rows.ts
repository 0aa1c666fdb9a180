/**
 * In-memory shapes of stored rows, and their decoding from whatever a driver returns (Postgres
 * drivers may hand 64-bit integers back as strings; a client may camel-case result names).
 */
import type { EncodedExit, JsonValue } from "../../subjects/clocks/api.ts"

/** A stored deferred completion (`engine_deferreds`). */
export interface DeferredRow {
  readonly flowName: string
  readonly executionId: string
  readonly deferredName: string
  /** The exit exactly as stored (JSON text); digests and replays use these bytes. */
  readonly exitJson: string
  /** The metadata exactly as stored, or null when the completion carried none. */
  readonly metadataJson: string | null
  readonly completedAtMs: number
  readonly consumedAtMs: number | null
}

/** A stored clock (`engine_clocks`). */
export interface ClockRow {
  readonly flowName: string
  readonly executionId: string
  readonly clockName: string
  readonly deferredName: string
  readonly dueAtMs: number
  readonly completedAtMs: number | null
  readonly owner: string
}

type RawRow = Readonly<Record<string, unknown>>

const camel = (snake: string): string => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

const field = (row: RawRow, snake: string): unknown => snake in row ? row[snake] : row[camel(snake)]

const text = (row: RawRow, snake: string): string => String(field(row, snake))

const nullableText = (row: RawRow, snake: string): string | null => {
  const value = field(row, snake)
  return value === null || value === undefined ? null : String(value)
}

const integer = (row: RawRow, snake: string): number => Number(field(row, snake))

const nullableInteger = (row: RawRow, snake: string): number | null => {
  const value = field(row, snake)
  return value === null || value === undefined ? null : Number(value)
}

/** Decodes one `engine_deferreds` row. */
export const decodeDeferred = (row: RawRow): DeferredRow => ({
  flowName: text(row, "flow_name"),
  executionId: text(row, "execution_id"),
  deferredName: text(row, "deferred_name"),
  exitJson: text(row, "exit"),
  metadataJson: nullableText(row, "metadata"),
  completedAtMs: integer(row, "completed_at_ms"),
  consumedAtMs: nullableInteger(row, "consumed_at_ms")
})

/** Decodes one `engine_clocks` row. */
export const decodeClock = (row: RawRow): ClockRow => ({
  flowName: text(row, "flow_name"),
  executionId: text(row, "execution_id"),
  clockName: text(row, "clock_name"),
  deferredName: text(row, "deferred_name"),
  dueAtMs: integer(row, "due_at_ms"),
  completedAtMs: nullableInteger(row, "completed_at_ms"),
  owner: text(row, "owner")
})

/** The stored exit of a deferred, decoded back into its encoded form (C7: returned unchanged). */
export const storedExit = (row: DeferredRow): EncodedExit => JSON.parse(row.exitJson) as EncodedExit

/** Encodes a JSON value for a TEXT column. */
export const jsonText = (value: JsonValue): string => JSON.stringify(value)
