/**
 * A stream held open across other commands (K7): `streamOpen` starts a stream and waits for its first
 * part; the commands after it run while the stream waits (a sweep that deletes its content, say); then
 * `streamRest` reads the rest. K7 checks a stream "inside one read-only snapshot before emitting
 * anything": a stream that passed its check and emitted a part must emit the content whole, whatever
 * the storage did meanwhile, never partial or altered bytes. A store that reads each chunk outside the
 * snapshot its check ran in would emit what a sweep left.
 *
 * The stream is consumed by a fiber of the scenario's scope that, after the first part, waits on a
 * barrier the `streamRest` step opens; no sleep orders anything. A scenario that ends with the stream
 * still held (shrinking dropped its `streamRest`) interrupts it when its scope closes, which ends the
 * stream's snapshot.
 */
import { Deferred, Effect, Exit, Fiber, type Scope, Stream } from "effect"
import { type Check, type ExecutedStep } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import type { HarnessError } from "../../harness/errors.ts"
import type { ExecutionEnvironment, Json } from "../../harness/Property.ts"
import { contentKey, contentModel } from "../../models/content/index.ts"
import { contentAttributor } from "../../spec/content.ts"
import type { ContentImplementation, ContentStore } from "../../subjects/content/api.ts"
import { GRANT_KEY, PAYLOADS, STREAM_TIMEOUT_MS, TENANTS } from "./config.ts"
import { bytesJson, concatenated, exitJson } from "./driver.ts"
import type { RunState } from "./execute.ts"
import type { Command } from "./scenario.ts"
import { type ContentSession, harnessError } from "./session.ts"

/**
 * The store a held stream reads through. Where the adapter has independent connections, a store of its
 * own on the database's second connection, as a reader in another process would have: a stream that
 * holds a snapshot holds its connection, and the commands after it need theirs (the racer's store of
 * `race.ts` is built the same way). Elsewhere the session's store: upstream's `singleConnection` flag
 * makes its stream read every chunk before emitting any, and holds no connection.
 */
export const heldStreamStore = (implementation: ContentImplementation, environment: ExecutionEnvironment, session: ContentSession): Effect.Effect<ContentStore, HarnessError> => {
  const connection = environment.database.connections[1]
  if (!environment.capabilities.independentConnections || connection === undefined) return Effect.succeed(session.store())
  return implementation.make({ sql: connection, dialect: environment.dialect, settings: { ...session.settings(), grantKey: GRANT_KEY, singleConnection: false } })
    .pipe(Effect.mapError(harnessError("building the held stream's store on a second connection")))
}

/** A stream whose first part arrived, waiting for `streamRest`. */
export interface HeldStream {
  readonly tenant: string
  readonly hash: string
  /** The bytes it must emit in all. */
  readonly bytes: Uint8Array
  /** What the model predicted for the stream when it opened. */
  readonly expected: Json
  readonly resume: Deferred.Deferred<void>
  readonly fiber: Fiber.Fiber<ReadonlyArray<Uint8Array>, unknown>
  /** Virtual time the stream started, from which its timeout (`STREAM_TIMEOUT_MS`) runs. */
  readonly openedAtMs: number
  readonly after: PullsAfterResume
}

/**
 * What a stream read on after its timeout must show: at most the one pull that follows (Effect's
 * `Stream.interruptWhen`, which upstream's stream uses, still delivers it), then its end by whatever
 * failure, interruption or end.
 */
const AT_MOST_ONE_PULL_AFTER_TIMEOUT: Json = "at most one pull after its timeout"

/** The step's result when the first part arrived: the stream is open and held. */
const OPENED: Json = "opened and held after its first part"

/** Pulls after `streamRest` let a held stream go on (counted as they arrive, so a stream that then fails keeps its count). */
interface PullsAfterResume {
  pulls: number
}

/**
 * Consumes `stream` pull by pull, signalling `first` after the first pull (however many parts it
 * brought) and then waiting on `resume`; counts every later pull in `after`.
 */
const consumeHeld = (stream: Stream.Stream<Uint8Array, unknown>, first: Deferred.Deferred<void>, resume: Deferred.Deferred<void>, after: PullsAfterResume) =>
  Effect.suspend(() => {
    const parts: Array<Uint8Array> = []
    let pulls = 0
    return Stream.runForEachArray(stream, (pulled) =>
      Effect.suspend(() => {
        parts.push(...pulled)
        pulls += 1
        if (pulls > 1) after.pulls += 1
        return pulls === 1 ? Effect.andThen(Deferred.succeed(first, undefined), Deferred.await(resume)) : Effect.void
      })).pipe(Effect.as(parts as ReadonlyArray<Uint8Array>))
  })

/** The trace record of a held-stream step. */
const heldRecord = (command: Command, atMs: number, implementation: Json, model: Json) => ({ operation: command.op, args: toJson(command), virtualTimeMs: atMs, implementation, model })

/**
 * `streamOpen`: the model's stream prediction, and the store's stream started on a fiber of `scope`.
 * Judged now when the stream ends before its first part (a refusal must be the model's); otherwise the
 * stream is held (`run.held`) and judged whole by `streamRest`.
 */
export const openHeldStream = (store: ContentStore, run: RunState, command: Extract<Command, { op: "streamOpen" }>, atMs: number, scope: Scope.Scope) =>
  Effect.gen(function*() {
    const tenant = TENANTS[command.tenant]!
    const hash = run.hashes[command.payload]!
    const bytes = PAYLOADS[command.payload]!
    const outcome = contentModel.step(run.model, { kind: "stream", tenant, hash, size: bytes.byteLength, interrupt: false })
    const expected: Json = outcome.result._tag === "Success" ? bytesJson(bytes, { hash, bytes }) : toJson(outcome.result)
    // One stream is held at a time (each unit opens one); a replayed scenario that opens a second ends the first.
    if (run.held !== undefined) yield* Fiber.interrupt(run.held.fiber)
    run.held = undefined
    const first = yield* Deferred.make<void>()
    const resume = yield* Deferred.make<void>()
    const stream = store.stream(tenant, hash, bytes.byteLength, STREAM_TIMEOUT_MS)
    const after: PullsAfterResume = { pulls: 0 }
    const fiber = yield* Effect.forkIn(consumeHeld(stream, first, resume, after), scope)
    // Whichever comes first: the first part, or the stream's end (a refusal, or no part at all).
    yield* Effect.raceFirst(Deferred.await(first), Effect.asVoid(Fiber.await(fiber)))
    const ended = fiber.pollUnsafe()
    const actual: Json = ended === undefined ? OPENED : exitJson(Exit.map(ended, (parts): Json => ({ endedBeforeHeld: parts.length })))
    run.held = ended === undefined ? { tenant, hash, bytes, expected, resume, fiber, openedAtMs: atMs, after } : undefined
    const predicted: Json = outcome.result._tag === "Success" ? OPENED : expected
    const executed: ExecutedStep = {
      record: heldRecord(command, atMs, actual, predicted),
      checks: [{ observable: "stream opened", expected: predicted, actual, rules: outcome.rules, why: outcome.why }],
      covered: contentAttributor.requirementsWithPrimaryRules(outcome.rules),
      described: `stream ${tenant}/${hash.slice(0, 8)} opened and held after its first part`
    }
    return executed
  })

/**
 * The checks of a held stream read on after `heldMs` of virtual time since it started: its bytes, and,
 * when it was held past its timeout (`timedOut`), that it made at most one more pull.
 */
const heldStreamChecks = (held: HeldStream, exit: Exit.Exit<ReadonlyArray<Uint8Array>, unknown>, heldMs: number, timedOut: boolean): ReadonlyArray<Check> => {
  const bytes: Check = {
    observable: "held stream's bytes",
    expected: held.expected,
    actual: Exit.isSuccess(exit) ? bytesJson(concatenated(exit.value), { hash: held.hash, bytes: held.bytes }) : exitJson(Exit.map(exit, () => null)),
    rules: ["K7"],
    why: "a stream checks its content in one read-only snapshot before emitting anything, so once it emitted a part it emits the content whole, whatever storage did since"
  }
  if (!timedOut) return [bytes]
  const quiet: Check = {
    observable: "held stream past its timeout",
    expected: AT_MOST_ONE_PULL_AFTER_TIMEOUT,
    actual: held.after.pulls <= 1 ? AT_MOST_ONE_PULL_AFTER_TIMEOUT : `${held.after.pulls} pulls after its timeout`,
    rules: ["K7"],
    why: `a stream is interrupted after the command timeout (${STREAM_TIMEOUT_MS} ms): one held ${heldMs} ms since it started may have emitted its content before, and one pull after, but no more`
  }
  // Ended by the timeout: a failure or an interruption is the rule's; bytes it emitted whole before are checked too.
  return Exit.isSuccess(exit) ? [quiet, bytes] : [quiet]
}

/**
 * `streamRest`: lets the held stream go on and reads it to its end. Within its timeout it must emit the
 * bytes the model predicted when it opened (K7). Once `STREAM_TIMEOUT_MS` of virtual time has passed
 * since it started, at most one more pull may bring parts (K7: "interrupted after the command timeout";
 * `AT_MOST_ONE_PULL_AFTER_TIMEOUT`): it ends by any failure or interruption, or by its end when the
 * content was out by then. Reaches
 * `streamHeldAcrossSweep` when the content is gone by now, `streamHeldPastTimeout` when its timeout
 * passed while it was held.
 */
export const finishHeldStream = (run: RunState, command: Extract<Command, { op: "streamRest" }>, atMs: number) =>
  Effect.gen(function*() {
    const held = run.held
    run.held = undefined
    if (held === undefined) {
      const idle: ExecutedStep = { record: heldRecord(command, atMs, null, null), checks: [], covered: [], described: "no stream is held" }
      return idle
    }
    yield* Deferred.succeed(held.resume, undefined)
    const exit = yield* Fiber.await(held.fiber)
    const heldMs = atMs - held.openedAtMs
    const timedOut = heldMs >= STREAM_TIMEOUT_MS
    const checks = heldStreamChecks(held, exit, heldMs, timedOut)
    const gone = !(contentKey(held.tenant, held.hash) in run.model.contents)
    const situations = [...(gone ? ["streamHeldAcrossSweep"] : []), ...(timedOut ? ["streamHeldPastTimeout"] : [])]
    const executed: ExecutedStep = {
      record: checks.length === 1
        ? heldRecord(command, atMs, checks[0]!.actual, checks[0]!.expected)
        : heldRecord(command, atMs, checks.map((check) => check.actual), checks.map((check) => check.expected)),
      checks,
      covered: contentAttributor.requirementsWithPrimaryRules(["K7"]),
      ...(situations.length > 0 ? { situations } : {}),
      described: `the held stream of ${held.tenant}/${held.hash.slice(0, 8)} read to its end${gone ? ", its content swept meanwhile" : ""}${timedOut ? ", its timeout passed meanwhile" : ""}`
    }
    return executed
  })
