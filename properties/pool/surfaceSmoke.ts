/**
 * The client smoke probe: one entry point of the bounded client (value rows, prepared and unprepared;
 * unprepared rows; a stream; a JSON fragment; a nested transaction rolled back to or released from its
 * savepoint; a transaction whose COMMIT is answered with ROLLBACK), alone or inside a transaction.
 * Checked from the caller's side (the result, with the row-name transform the pool was built with) and
 * on the wire: inside a transaction every statement ran on the transaction's session, in the
 * transaction (P4: a statement inside a transaction reuses its connection and takes no slot, so on a
 * 1-connection pool one that takes a slot waits forever and shows as still waiting). An aborted commit
 * fails with a `SqlError` (P5).
 */
import { Effect, Exit, Stream } from "effect"
import type { Json } from "../../harness/Property.ts"
import type { HarnessError } from "../../harness/errors.ts"
import type { Check } from "../../harness/ModelBased.ts"
import type { WireStatement } from "../../harness/PostgresWireTap.ts"
import type { BoundedPoolClient } from "../../subjects/pool/api.ts"
import { SEED_CLIENT_RULE } from "./surfaceConfig.ts"
import { ForeignDomainError } from "./surfaceRefusal.ts"
import type { SmokeEntry } from "./surfaceScenario.ts"
import { outcomeOf, type ProbeResult, runBounded, type SurfaceContext } from "./surfaceRuntime.ts"
import { toJson } from "../../harness/ToJson.ts"

/** snake_case to camelCase: the row-name transform a surface pool may be built with. */
export const snakeToCamel = (name: string): string => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())

const rowsJson = (rows: ReadonlyArray<unknown>): Json => toJson(Array.from(rows))

/** The entry points `PgClient.make` sends through the unnamed statement (the rest it prepares by name, transaction controls included). */
const UNNAMED_ENTRIES: ReadonlySet<SmokeEntry> = new Set(["valuesUnprepared", "unprepared", "stream"])

/** Transaction control statements, which `PgClient.make` prepares like any other (`prepareTransactionControls`). */
const isTransactionControl = (text: string): boolean => /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE\s+SAVEPOINT)\b/i.test(text)

/**
 * How each statement of the probe reached the server (its tagged statements and the transaction
 * controls on their sessions), against how `PgClient.make` sends it for the same config: the entry
 * point's own statement through the unnamed statement for `UNNAMED_ENTRIES`, every other one as a
 * named prepared statement, or all through the unnamed one when the config turns `prepare` off.
 */
const protocolCheck = (context: SurfaceContext, sent: ReadonlyArray<WireStatement>, entry: SmokeEntry, entryText: string, label: string): Check => {
  const prepares = context.config.prepare !== false
  const shown = (statement: WireStatement, protocol: string) => `${protocol}: ${statement.text.slice(0, 60)}`
  const expectedOf = (statement: WireStatement) => !prepares || (UNNAMED_ENTRIES.has(entry) && statement.text === entryText) ? "unnamed" : "named"
  return {
    observable: `client ${label}: how its statements were sent on the wire`,
    expected: sent.map((statement) => shown(statement, expectedOf(statement))),
    actual: sent.map((statement) => shown(statement, statement.protocol)),
    rules: [SEED_CLIENT_RULE],
    why: "apart from its gates the bounded pool is PgClient.make, which prepares each statement as a named statement on its session (transaction controls too) and sends the unprepared entry points and streams through the unnamed one"
  }
}

/** The statement text of smoke entry `tag`. */
const entryText = (tag: string) => `SELECT '${tag}' AS op_tag, 2 AS n_value`

/** What the entry point returns for `tag`, and what the caller must see. */
const entryOf = (pool: BoundedPoolClient, entry: SmokeEntry, tag: string, failing: boolean, name: (column: string) => string): { readonly run: Effect.Effect<Json, unknown>; readonly expected: Json } => {
  const text = entryText(tag)
  const row = { [name("op_tag")]: tag, [name("n_value")]: 2 }
  switch (entry) {
    case "values":
      return { run: Effect.map(pool.unsafe(text).values, rowsJson), expected: [[tag, 2]] }
    case "valuesUnprepared":
      return { run: Effect.map(pool.unsafe(text).valuesUnprepared, rowsJson), expected: [[tag, 2]] }
    case "unprepared":
      return { run: Effect.map(pool.unsafe(text).unprepared, rowsJson), expected: [row] }
    case "stream":
      return { run: Effect.map(Stream.runCollect(pool.unsafe(text).stream), rowsJson), expected: [row] }
    case "json":
      return { run: Effect.map(pool`SELECT ${pool.json({ tag, list: [1, 2] })}::jsonb AS json_value`, rowsJson), expected: [{ [name("json_value")]: { tag, list: [1, 2] } }] }
    case "savepoint":
      return {
        run: pool.withTransaction(Effect.gen(function*() {
          yield* pool.unsafe(`SELECT set_config('pool.smoke', '${tag}-outer', true) AS op_tag`)
          const inner = yield* Effect.exit(pool.withTransaction(Effect.andThen(
            pool.unsafe(`SELECT set_config('pool.smoke', '${tag}-inner', true) AS op_tag`),
            failing ? Effect.fail(new ForeignDomainError({ detail: "the nested transaction fails" })) : Effect.void
          )))
          const rows = rowsJson(yield* pool.unsafe(`SELECT current_setting('pool.smoke') AS op_tag /* ${tag} */`))
          return { nested: Exit.isSuccess(inner) ? "committed" : "failed", rows }
        })),
        expected: { nested: failing ? "failed" : "committed", rows: [{ [name("op_tag")]: `${tag}-${failing ? "outer" : "inner"}` }] }
      }
    case "abortedCommit":
      return {
        run: pool.withTransaction(Effect.andThen(pool.unsafe(text), Effect.as(Effect.ignore(pool.unsafe(`SELECT 1/0 AS aborts /* ${tag} */`)), null))),
        expected: null
      }
  }
}

/** The `smoke` probe number `index`. */
export const smokeProbe = (context: SurfaceContext, index: number, entry: SmokeEntry, inTransaction: boolean, failing: boolean): Effect.Effect<ProbeResult, HarnessError> =>
  Effect.gen(function*() {
    const { pool } = context
    const tag = `pool-smoke-${index}`
    const chosen = entryOf(pool, entry, tag, failing, context.transformNames ? snakeToCamel : (column) => column)
    // An aborted commit is its own transaction: nested, its end is a RELEASE SAVEPOINT, not a COMMIT (P5).
    const nested = inTransaction && entry !== "abortedCommit"
    const run = nested ? pool.withTransaction(Effect.andThen(pool.unsafe(`SELECT '${tag}' AS op_open`), chosen.run)) : chosen.run
    const before = context.tap.statements().length
    let result: Json = null
    const exit = yield* runBounded(context, Effect.tap(run, (value) => Effect.sync(() => { result = value })))
    const tagged = context.tap.statements().slice(before).filter((statement) => statement.text.includes(tag) || statement.params.some((param) => param?.includes(tag) === true))
    const transactional = nested || entry === "savepoint" || entry === "abortedCommit"
    const expectedOutcome = entry === "abortedCommit" ? "failed: SqlError" : "succeeded"
    const expected = { outcome: expectedOutcome, result: entry === "abortedCommit" ? null : chosen.expected }
    const actual = { outcome: outcomeOf(exit), result: outcomeOf(exit) === "succeeded" ? result : null }
    const wire = {
      sessions: new Set(tagged.map((statement) => statement.session)).size,
      outsideTheTransaction: tagged.filter((statement) => statement.transactionStatus === "I").length,
      savepointsReleased: context.tap.statements().slice(before).filter((statement) => tagged.some((mine) => mine.session === statement.session) && /^\s*RELEASE\s+SAVEPOINT\b/i.test(statement.text)).length
    }
    // A nested transaction's savepoint is released once it committed or was rolled back to
    // (PgClient's savepoint release): the entry's own nested one, and the entry's transaction when it is
    // itself nested.
    const releases = entry === "savepoint" ? 1 + (nested ? 1 : 0) : 0
    const sessionsOfProbe = new Set(tagged.map((statement) => statement.session))
    const sent = context.tap.statements().slice(before).filter((statement) => tagged.includes(statement) || (sessionsOfProbe.has(statement.session) && isTransactionControl(statement.text)))
    const label = `${entry}${nested ? " inside a transaction" : ""}${entry === "savepoint" ? (failing ? " (nested one fails)" : " (nested one commits)") : ""}`
    return {
      checks: [
        {
          observable: `client ${label}: outcome and result`,
          expected,
          actual,
          rules: entry === "abortedCommit" ? ["P5"] : ["P4"],
          why: entry === "abortedCommit"
            ? "COMMIT answered with ROLLBACK fails the transaction with a SqlError (the client's error type)"
            : "every entry point of the client borrows a checkout (or the transaction's connection) and returns the statement's result"
        },
        ...(transactional
          ? [{
            observable: `client ${label}: sessions of its statements on the wire`,
            expected: { sessions: 1, outsideTheTransaction: 0, savepointsReleased: releases },
            actual: wire,
            rules: ["P4"],
            why: "a statement inside a transaction reuses the transaction's connection and takes no slot; a nested transaction is a savepoint on it, released once it committed or was rolled back to"
          }]
          : []),
        protocolCheck(context, sent, entry, entryText(tag), label)
      ],
      covered: entry === "abortedCommit" ? ["POL-004", "POL-005", "POL-013"] : ["POL-004", "POL-013"],
      implementation: { ...actual, ...wire },
      model: expected
    }
  })
