/**
 * Small shared pieces of the adapter-contract properties: a trace recorder, JSON normalization of
 * database values, per-dialect column types, and the byte-wise UTF-8 comparator.
 */
import { Cause, Clock, Data, Effect, Exit } from "effect"
import type { SqlClient } from "effect/sql"
import type { IsolatedDatabase } from "../../adapters/contract.ts"
import { isSqlError } from "effect/sql/SqlError"
import { HarnessError } from "../../harness/errors.ts"
import type { Divergence, ExecutionTrace, Json, StepRecord } from "../../harness/Property.ts"
import { ADP } from "../../spec/adapter.ts"
import { compareCodeUnits, compareEntryKeys } from "../../harness/CodeUnitOrder.ts"

/** A rollback a property asks for on purpose (fails the transaction so the adapter must undo it). */
export class Rollback extends Data.TaggedError("Rollback")<{ readonly message: string }> {}

/** Largest magnitude of the integers the contract promises: 2^53-1. */
export const MAX_CONTRACT_INTEGER = Number.MAX_SAFE_INTEGER

/** Bytes shown in a trace for a byte array before it is summarized. */
const BYTES_SHOWN = 32

const hex = (bytes: Uint8Array, count: number): string => {
  let out = ""
  for (let i = 0; i < Math.min(count, bytes.length); i++) out += bytes[i]!.toString(16).padStart(2, "0")
  return out
}

/** Turns a value read from a database (bigint, Uint8Array, Date, nested rows) into plain JSON for a trace. */
export const traceJson = (value: unknown, depth = 0): Json => {
  if (depth > 8) return "…"
  if (value === null || value === undefined) return null
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? value : String(value)
    case "string":
    case "boolean":
      return value
    case "bigint":
      return { bigint: value.toString() }
    case "object": {
      if (value instanceof Uint8Array) {
        return value.length <= BYTES_SHOWN
          ? { bytesHex: hex(value, BYTES_SHOWN) }
          : { byteLength: value.length, firstBytesHex: hex(value, BYTES_SHOWN) }
      }
      if (value instanceof Date) return { date: value.toISOString() }
      if (Array.isArray(value)) return value.map((item) => traceJson(item, depth + 1))
      const out: Record<string, Json> = {}
      for (const [key, item] of Object.entries(value)) out[key] = traceJson(item, depth + 1)
      return out
    }
    default:
      return String(value)
  }
}

/** The JSON shape of an error outcome: the `effect/sql` reason tag when there is one. */
export const describeError = (error: unknown): Json => {
  if (isSqlError(error)) return { error: error.reason._tag, message: error.message }
  if (error instanceof Error) return { error: error.name, message: error.message }
  return { error: String(error) }
}

/** The JSON shape of an `Exit`: `{ ok: value }`, `{ error, message }`, or `{ defect }`. */
export const describeExit = (exit: Exit.Exit<unknown, unknown>): Json => {
  if (Exit.isSuccess(exit)) return { ok: traceJson(exit.value) }
  const failure = Cause.squash(exit.cause)
  if (Cause.hasDies(exit.cause) && !Cause.hasFails(exit.cause)) {
    return { defect: failure instanceof Error ? failure.message : String(failure) }
  }
  return describeError(failure)
}

/** True when the exit is a failure whose error is a `SqlError` with a `UniqueViolation` reason. */
export const isUniqueViolationExit = (exit: Exit.Exit<unknown, unknown>): boolean => {
  if (Exit.isSuccess(exit)) return false
  const failure = Cause.squash(exit.cause)
  return isSqlError(failure) && failure.reason._tag === "UniqueViolation"
}

/** Collects steps, the first divergence and coverage while a property executes. */
export class TraceRecorder {
  private readonly steps: Array<StepRecord> = []
  private divergence: Divergence | null = null
  private readonly covered = new Set<string>()

  /** True once a divergence was recorded; properties stop executing then. */
  get diverged(): boolean {
    return this.divergence !== null
  }

  /** Records one step (virtual time from Effect's `Clock`) and returns its index. */
  step(
    operation: string,
    args: Json,
    implementation: Json,
    model: Json,
    extra: Pick<StepRecord, "fault" | "implementationState" | "modelState"> = {}
  ): Effect.Effect<number> {
    return Effect.map(Clock.currentTimeMillis, (virtualTimeMs) => {
      const index = this.steps.length
      this.steps.push({ index, operation, args, virtualTimeMs, implementation, model, ...extra })
      return index
    })
  }

  /** Marks requirement IDs as exercised by this execution. */
  cover(...requirementIds: ReadonlyArray<string>): void {
    for (const id of requirementIds) this.covered.add(id)
  }

  /** Records the first divergence (later ones are ignored: the first is the witness). */
  diverge(requirementId: string, stepIndex: number, explanation: string, expected: Json, actual: Json): void {
    this.covered.add(requirementId)
    if (this.divergence === null) this.divergence = { requirementId, stepIndex, explanation, expected, actual }
  }

  /** The finished trace. */
  trace(): ExecutionTrace {
    return { steps: [...this.steps], divergence: this.divergence, covered: [...this.covered].sort() }
  }
}

/** Fails an infrastructure step (a read the contract does not judge) as a `HarnessError`. */
export const orHarness = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, HarnessError, R> =>
  Effect.mapError(effect, (error) =>
    new HarnessError({
      message: `adapter-contract property could not ${what}: ${error instanceof Error ? error.message : String(error)}`,
      hint: "the adapter failed on plain SQL the contract relies on; run its own tests, then rerun",
      cause: error
    }))

/** Column types per dialect: BLOB/BYTEA for bytes, and a byte-ordered text key (COLLATE "C" on Postgres). */
export interface ColumnTypes {
  readonly bytes: string
  readonly byteOrderedText: string
}

/** The column types for `sql`'s dialect. */
export const columnTypes = (sql: SqlClient.SqlClient): ColumnTypes =>
  sql.onDialectOrElse({
    pg: (): ColumnTypes => ({ bytes: "BYTEA", byteOrderedText: "TEXT COLLATE \"C\"" }),
    orElse: (): ColumnTypes => ({ bytes: "BLOB", byteOrderedText: "TEXT" })
  })

/** Tables that belong to the engine or the harness, not to a run. */
const isInfrastructureTable = (name: string): boolean =>
  name === "dc_platform_alarm" || name.startsWith("sqlite_") || name.startsWith("_cf_")

/**
 * Names of the tables a run could see in a fresh database (sorted), or undefined when the engine's
 * catalog cannot be read (then freshness is judged by table creation alone).
 */
const userTables = (sql: SqlClient.SqlClient): Effect.Effect<ReadonlyArray<string> | undefined> =>
  Effect.exit(
    sql.onDialectOrElse({
      pg: () =>
        sql.unsafe<{ readonly name: string }>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()"
        ),
      orElse: () => sql.unsafe<{ readonly name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
    })
  ).pipe(
    Effect.map((exit) =>
      Exit.isSuccess(exit)
        ? exit.value.map((row) => String(row.name)).filter((name) => !isInfrastructureTable(name)).sort()
        : undefined
    )
  )

/**
 * Creates a property's tables on the fresh database and checks the platform alarm slot is empty. A
 * failure means the database was not fresh (or cannot hold ordinary tables): recorded as an ADP-014
 * divergence, and the caller stops. The slot is read through `platformAlarm.get`, so it works the same
 * for emulated and native (Durable Object) slots.
 */
export const createTables = (
  database: IsolatedDatabase,
  recorder: TraceRecorder,
  statements: ReadonlyArray<string>
): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    recorder.cover(ADP.freshDatabase)
    const alarmExit = yield* Effect.exit(database.platformAlarm.get)
    const leftovers = yield* userTables(database.sql)
    if (leftovers !== undefined && leftovers.length > 0) {
      const index = yield* recorder.step("listTables", null, leftovers, [])
      recorder.diverge(
        ADP.freshDatabase,
        index,
        `A database open() had just returned already holds tables ${leftovers.join(", ")}; every run must start from an empty database.`,
        [],
        leftovers
      )
      return false
    }
    for (const statement of statements) {
      const exit = yield* Effect.exit(database.sql.unsafe(statement))
      const index = yield* recorder.step("createTable", statement, describeExit(exit), { ok: [] })
      if (Exit.isFailure(exit)) {
        recorder.diverge(
          ADP.freshDatabase,
          index,
          "Creating this property's table failed on a database open() had just returned; a fresh, empty database accepts it, so open() did not give a fresh database (or cannot create tables).",
          { ok: [] },
          describeExit(exit)
        )
        return false
      }
    }
    if (!Exit.isSuccess(alarmExit) || alarmExit.value !== null) {
      const actual = describeExit(alarmExit)
      const index = yield* recorder.step("readPlatformAlarm", null, actual, { ok: null })
      recorder.diverge(
        ADP.freshDatabase,
        index,
        "The platform alarm slot of a freshly opened database must be readable and empty (null).",
        { ok: null },
        actual
      )
      return false
    }
    return true
  })

const encoder = new TextEncoder()

/** Compares two strings by their UTF-8 bytes (the order the contract requires for text keys). */
export const compareUtf8 = (left: string, right: string): number => {
  const a = encoder.encode(left)
  const b = encoder.encode(right)
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!
  }
  return a.length - b.length
}

/** Rows of `(k, v)` sorted by key in JavaScript (never trusting the engine's ORDER BY). */
export const sortedEntries = (rows: ReadonlyArray<{ readonly k: unknown; readonly v: unknown }>): Json =>
  [...rows]
    .map((row) => [traceJson(row.k), traceJson(row.v)] as const)
    .sort(([a], [b]) => compareCodeUnits(String(a), String(b)))
    .map(([k, v]) => [k, v])

/** The model's `(k, v)` map in the same shape as `sortedEntries`. */
export const modelEntries = (model: ReadonlyMap<string, number>): Json =>
  [...model.entries()].sort(compareEntryKeys).map(([k, v]) => [k, v])

/** Deep equality of two JSON values (key order of objects ignored). */
export const jsonEqual = (a: Json, b: Json): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const bs = b as ReadonlyArray<Json>
    return a.length === bs.length && a.every((item: Json, i: number) => jsonEqual(item, bs[i]!))
  }
  const ao = a as { readonly [key: string]: Json }
  const bo = b as { readonly [key: string]: Json }
  const keys = Object.keys(ao)
  return keys.length === Object.keys(bo).length && keys.every((key) => key in bo && jsonEqual(ao[key]!, bo[key]!))
}
