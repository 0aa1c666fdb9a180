/**
 * A sweep racing one operation (an upload, a grant, a grant-and-attach or a detach) of content the
 * sweep has as a candidate. On every adapter the race goes through hook points: the sweep pauses after
 * its first reference scan and the racing operation runs there (`between`) or after the sweep
 * (`after`). On an engine with independent connections and row locks the two run as truly concurrent
 * transactions on separate connections, and two more releases show the row lock ordering them
 * (`deleteHoldsLock`, `raiseHoldsLock`), observed with `pg_blocking_pids`. In `scheduled` races a
 * generated step schedule (uniform or PCT, `harness/StepScheduler.ts`) orders the two operations over
 * their scheduling points (`RACE_INTERLEAVING`), and the model is told where the racer's writes landed.
 */
import { Effect, Exit, Fiber } from "effect"
import type { SqlClient } from "effect/sql"
import { type Check, type ExecutedStep } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import { lastPointOf, makeScriptedHooks, type ScriptedHooks } from "../../harness/HookPoints.ts"
import { finish, releaseTo, startPaused, type StartedOperation } from "../../harness/PausedOperations.ts"
import { awaitBlocked, backendPidOf, runIntoHeld } from "../../harness/PostgresLocks.ts"
import { type InterleavingShape, pctSituation } from "../../harness/PctBound.ts"
import type { ExecutionEnvironment, Json } from "../../harness/Property.ts"
import { pctDepth, type StepSchedule } from "../../harness/StepSchedule.ts"
import { runScheduled, type ScheduledStep } from "../../harness/StepScheduler.ts"
import { contentModel, type ContentModelState, type ContentOperation, contentSituations, type RacingOperation, raceClause, sweep, sweepAlternatives } from "../../models/content/index.ts"
import { firstConsistent } from "../../harness/Alternatives.ts"
import { contentAttributor } from "../../spec/content.ts"
import type { ContentImplementation, ContentStore } from "../../subjects/content/api.ts"
import { storageChecks } from "./checks.ts"
import { AFTER_SCAN_POINTS, BEFORE_DELETE_COMMIT_POINTS, makeScanWatch, SCANNED_BEFORE_COMMIT, SCANNED_BEFORE_TRANSACTION, type ScanWatch } from "./scanPoint.ts"
import { withBoundaryPoints } from "../../harness/BoundaryPoints.ts"
import { makeStorageBoundary } from "../../harness/StorageBoundary.ts"
import { makeReadThenWriteWatch, makeRowWriteWatch, READ_CONTENT_THEN_WRITE, WROTE_CONTENT_BEFORE_COMMIT, WROTE_CONTENT_THEN_STATEMENT } from "./writePoint.ts"
import type { MarkedTransactions } from "../../harness/MarkedTransactions.ts"
import { ACTORS, BLOBS, GRANT_KEY, NAMES, PAYLOADS, PROPERTY_SETTINGS, TENANTS } from "./config.ts"
import { exitJson, optionalGrantJson, resultAsRead, uploadJson } from "./driver.ts"
import type { RunState } from "./execute.ts"
import { type ObservedStorage, observeStorage, storageJson } from "./observe.ts"
import type { Command, RacingCommand } from "./scenario.ts"
import { type ContentSession, harnessError } from "./session.ts"

/**
 * The shape of a scheduled race: 2 operations (the sweep, the racer) and at most 4 scheduling points:
 * each starts, the sweep pauses after its first reference scan, the racer at its first hook point
 * (before any write). Later hook hits are not scheduling points, so each racer's writes stay one step
 * the model can place: before the sweep, between its first scan and its delete, or after it.
 */
export const RACE_INTERLEAVING: InterleavingShape = { operations: 2, steps: 4, maxDepth: 3 }


/** The racing operation: the model's, the call, and the hook points it pauses at. */
interface Racer {
  readonly operation: RacingOperation
  readonly call: (store: ContentStore) => Effect.Effect<Json, unknown>
  /** First hook (outside any transaction). */
  readonly startHook: string
  /** Hook inside its transaction after it took the content row's lock, if it takes one. */
  readonly lockHook: string | undefined
}

const racerOf = (command: RacingCommand, hashes: ReadonlyArray<string>, atMs: number): Racer => {
  const tenant = TENANTS[command.tenant]!
  if (command.op === "detach") {
    const place = { tenant, actor: ACTORS[command.actor]!, blob: BLOBS[command.blob]!, name: NAMES[command.name]! }
    return { operation: { kind: "detach", ...place }, call: (store) => store.detach(place), startHook: "content.beforeDetach", lockHook: undefined }
  }
  const bytes = PAYLOADS[command.payload]!
  const hash = hashes[command.payload]!
  const size = bytes.byteLength
  if (command.op === "upload") {
    return { operation: { kind: "uploadBytes", tenant, hash, size, atMs }, call: (store) => Effect.flatMap(store.uploadBytes(tenant, bytes), (ref) => uploadJson(store, tenant, ref)), startHook: "content.beforeUpload", lockHook: "content.afterUpsert" }
  }
  if (command.op === "grant") {
    return { operation: { kind: "grant", tenant, hash, size, atMs }, call: (store) => Effect.flatMap(store.grant(tenant, hash, size), (granted) => optionalGrantJson(store, tenant, granted)), startHook: "content.beforeRaise", lockHook: "content.afterRaise" }
  }
  const place = { tenant, actor: ACTORS[command.actor]!, blob: BLOBS[command.blob]!, name: NAMES[command.name]! }
  const call = (store: ContentStore) =>
    Effect.gen(function*() {
      const granted = yield* store.grant(tenant, hash, size)
      const grant = yield* optionalGrantJson(store, tenant, granted)
      if (granted._tag === "None") return { grant, attach: null } as Json
      const attached = yield* Effect.exit(store.attach({ ...place, ref: granted.value }))
      return { grant, attach: exitJson(Exit.map(attached, () => null)) } as Json
    })
  return { operation: { kind: "grantAndAttach", ...place, hash, size, atMs }, call, startHook: "content.beforeRaise", lockHook: "content.afterRaise" }
}

/** The content key a racer's row lock is on (none for detach). */
const lockedKey = (operation: RacingOperation): string | undefined => operation.kind === "detach" ? undefined : `${operation.tenant}/${operation.hash}`


const fiberDone = <A, E>(operation: StartedOperation<A, E>): (() => boolean) => () => operation.fiber.pollUnsafe() !== undefined

/** What one race produced. */
interface RaceRun {
  readonly sweep: Exit.Exit<number, unknown> | Exit.Exit<number, never>
  readonly racer: Exit.Exit<Json, unknown>
  readonly betweenScanAndDelete: boolean
  /** The racer ran to its end before the sweep started (it has no hook points to pause at). */
  readonly beforeSweep?: boolean
  /** The candidate batch (1-based) whose scan the racer followed, when the boundary's point placed it (`scanPoint.ts`). */
  readonly atBatch?: number
  /** Observed row-lock wait (lock modes only). */
  readonly blocked?: boolean
  /** The steps a scheduled race took (`label@from`), for the trace. */
  readonly steps?: ReadonlyArray<string>
  /**
   * The racer's place follows the predicted lock wait: it ran after the first delete exactly when
   * that delete holds its row (`deleteHoldsLock`), so each tenant order the model weighs places it anew.
   */
  readonly placedByPredictedBlock?: boolean
}

/**
 * The racer starts and pauses at `point`, the sweep runs to its end, then the racer goes on: whatever
 * the racer read before that point is stale (a grant must not sign for content the sweep deleted
 * meanwhile). A racer that never reaches the point has already finished, so it ran before the sweep.
 * `racerStarted` holds it at its first hook point, `readThenWrite` at the storage boundary's point
 * before the first write it begins after reading a content row outside any transaction
 * (`READ_CONTENT_THEN_WRITE`; a grant that is one `UPDATE ... RETURNING` is never held there).
 */
const racerHeldAt = (hooks: ScriptedHooks, sweeper: ContentStore, racing: Effect.Effect<Json, unknown>, point: string | ReadonlyArray<string>, force: boolean) =>
  Effect.gen(function*() {
    const holding = yield* startPaused(hooks, "racer", point, racing)
    const sweepExit = yield* Effect.exit(sweeper.sweep(force))
    return { sweep: sweepExit, racer: yield* finish(hooks, holding), betweenScanAndDelete: false, beforeSweep: !holding.paused } satisfies RaceRun
  })

/**
 * `between` or `after` (every adapter). `between` pauses the sweep at its hook point after the first
 * reference scan or, for a store without one, at the storage boundary's point before the first
 * transaction that follows a scan (`scanPoint.ts`), whichever it reaches first.
 */
const hookRace = (hooks: ScriptedHooks, watch: ScanWatch, sweeper: ContentStore, racerStore: ContentStore, racer: Racer, force: boolean, between: boolean) =>
  Effect.gen(function*() {
    const sweep = between ? watch.watched(sweeper.sweep(force)) : sweeper.sweep(force)
    const swept = yield* startPaused(hooks, "sweep", between ? AFTER_SCAN_POINTS : "content.afterReferenceScan", sweep)
    if (between && swept.paused) {
      const atBatch = lastPointOf(hooks, "sweep") === SCANNED_BEFORE_TRANSACTION ? { atBatch: watch.scans() } : {}
      const racing = yield* startPaused(hooks, "racer", racer.startHook, racer.call(racerStore))
      const racerExit = yield* finish(hooks, racing)
      return { racer: racerExit, sweep: yield* finish(hooks, swept), betweenScanAndDelete: true, ...atBatch } satisfies RaceRun
    }
    const sweepExit = yield* finish(hooks, swept)
    return { sweep: sweepExit, racer: yield* Effect.exit(racer.call(racerStore)), betweenScanAndDelete: false } satisfies RaceRun
  })

/** Where the racer's last step (its writes) ran relative to the sweep's steps. */
const placement = (steps: ReadonlyArray<ScheduledStep>): { readonly beforeSweep: boolean; readonly betweenScanAndDelete: boolean } => {
  const last = steps.reduce((found, step) => (step.label === "racer" ? step.step : found), -1)
  const sweepBefore = steps.some((step) => step.label === "sweep" && step.step < last)
  const sweepAfter = steps.some((step) => step.label === "sweep" && step.step > last)
  return { beforeSweep: !sweepBefore, betweenScanAndDelete: sweepBefore && sweepAfter }
}

/** A race ordered step by step by a generated schedule (every adapter; one connection is enough). */
const scheduledRace = (sweeper: ContentStore, racer: Racer, force: boolean, schedule: StepSchedule) =>
  Effect.gen(function*() {
    const firstHit = new Set<string>()
    // The sweep's first reference scan and the racer's first hook are the only scheduling points.
    const points = (label: string, hook: string): boolean => {
      const exposed = (label === "sweep" && hook === "content.afterReferenceScan") || (label === "racer" && hook === racer.startHook)
      if (!exposed || firstHit.has(label)) return false
      firstHit.add(label)
      return true
    }
    const run = yield* runScheduled<unknown, unknown, never>(
      [{ label: "sweep", effect: sweeper.sweep(force) }, { label: "racer", effect: racer.call(sweeper) }],
      schedule,
      { maxSteps: RACE_INTERLEAVING.steps, points }
    )
    const where = placement(run.steps)
    return {
      sweep: run.exits[0]! as Exit.Exit<number, unknown>,
      racer: run.exits[1]! as Exit.Exit<Json, unknown>,
      betweenScanAndDelete: where.betweenScanAndDelete,
      ...(where.beforeSweep ? { beforeSweep: true } : {}),
      steps: run.steps.map((step) => `${step.label}@${step.from}`)
    } satisfies RaceRun
  })

/**
 * The delete holds its row locks while the racer runs into them (truly concurrent). The sweep is held
 * at its `afterDelete` hook point or, for a store without one, at the boundary's point before it
 * commits the transaction that followed a reference scan (`scanPoint.ts`). The boundary cannot tell
 * that transaction is the delete, so there a wait is evidence and no wait is none, and the racer's
 * place follows what was seen.
 */
const deleteHoldsLock = (hooks: ScriptedHooks, watch: ScanWatch, sweeper: ContentStore, racerStore: ContentStore, racer: Racer, force: boolean, pids: Pids, observer: SqlClient.SqlClient, expectBlock: boolean) =>
  Effect.gen(function*() {
    const scanned = yield* startPaused(hooks, "sweep", AFTER_SCAN_POINTS, watch.watched(sweeper.sweep(force)))
    const deleting = yield* releaseTo(hooks, scanned, BEFORE_DELETE_COMMIT_POINTS)
    // Nothing held the delete open: one after the other, no lock evidence to judge.
    if (!deleting.paused) return { sweep: yield* finish(hooks, deleting), racer: yield* Effect.exit(racer.call(racerStore)), betweenScanAndDelete: false } satisfies RaceRun
    const byBoundary = lastPointOf(hooks, "sweep") === SCANNED_BEFORE_COMMIT
    const ran = yield* runIntoHeld(observer, { waiter: pids.racer, holder: pids.sweeper }, racer.call(racerStore), finish(hooks, deleting))
    const { blocked, waiterExit: racerExit, released: sweepExit } = ran
    if (byBoundary) {
      return { sweep: sweepExit, racer: racerExit, betweenScanAndDelete: !blocked, ...(blocked ? { blocked } : { atBatch: watch.scans() }) } satisfies RaceRun
    }
    return { sweep: sweepExit, racer: racerExit, betweenScanAndDelete: !expectBlock, blocked, placedByPredictedBlock: true } satisfies RaceRun
  })

/**
 * The raise holds its row lock while the delete runs into it (truly concurrent). The sweep is paused
 * after a reference scan as in `deleteHoldsLock`; the racer is held at its lock hook point or, for a
 * store without one, at the boundary's point before it commits the transaction that wrote the content
 * row (`writePoint.ts`), which holds that row's lock.
 */
const raiseHoldsLock = (hooks: ScriptedHooks, watches: { readonly scan: ScanWatch; readonly write: MarkedTransactions }, sweeper: ContentStore, racerStore: ContentStore, racer: Racer & { readonly lockHook: string }, force: boolean, pids: Pids, observer: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const scanned = yield* startPaused(hooks, "sweep", AFTER_SCAN_POINTS, watches.scan.watched(sweeper.sweep(force)))
    if (!scanned.paused) return { sweep: yield* finish(hooks, scanned), racer: yield* Effect.exit(racer.call(racerStore)), betweenScanAndDelete: false } satisfies RaceRun
    const holding = yield* startPaused(hooks, "racer", [racer.lockHook, WROTE_CONTENT_BEFORE_COMMIT], watches.write.watched(racer.call(racerStore)))
    const deleting = yield* releaseTo(hooks, scanned, undefined)
    // Lock evidence only when the raise's transaction was held open (hook or boundary point); otherwise there is none to judge.
    const blocked = holding.paused ? { blocked: yield* awaitBlocked(observer, pids.sweeper, pids.racer, fiberDone(deleting)) } : {}
    const racerExit = yield* finish(hooks, holding)
    return { racer: racerExit, sweep: yield* Fiber.await(deleting.fiber), betweenScanAndDelete: true, ...blocked } satisfies RaceRun
  })

/**
 * The racer's transaction is held right after its first write to the content row, before its next
 * statement (`WROTE_CONTENT_THEN_STATEMENT`, or before COMMIT when none follows), and the whole sweep
 * runs meanwhile (truly concurrent). A racer whose write took the row's lock (an upsert that updates)
 * holds the sweep's delete: its writes land between the scan and the delete. One whose write took no
 * lock (an insert that did nothing because the row exists) lets the sweep delete the row and commit:
 * its writes land after the sweep, and an upload must then write the row and its chunks again (K2).
 * Both are allowed, so the wait is not judged: the racer's place follows what was seen.
 */
const raiseMidTransaction = (hooks: ScriptedHooks, write: MarkedTransactions, sweeper: ContentStore, racerStore: ContentStore, racer: Racer, force: boolean, pids: Pids, observer: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const holding = yield* startPaused(hooks, "racer", [WROTE_CONTENT_THEN_STATEMENT, WROTE_CONTENT_BEFORE_COMMIT], write.watched(racer.call(racerStore)))
    if (!holding.paused) return { racer: yield* finish(hooks, holding), sweep: yield* Effect.exit(sweeper.sweep(force)), betweenScanAndDelete: false, beforeSweep: true } satisfies RaceRun
    const ran = yield* runIntoHeld(observer, { waiter: pids.sweeper, holder: pids.racer }, sweeper.sweep(force), finish(hooks, holding))
    return { racer: ran.released, sweep: ran.waiterExit, betweenScanAndDelete: ran.blocked } satisfies RaceRun
  })

interface Pids {
  readonly sweeper: number
  readonly racer: number
}

/** Whether the model says the racer's row lock meets the sweep's delete in `mode`. */
const predictedBlock = (run: RunState, operation: ContentOperation & { kind: "sweep" }, racer: Racer, mode: string): boolean => {
  const key = lockedKey(racer.operation)
  if (key === undefined) return false
  const alone = sweep(run.model, { kind: "sweep", force: operation.force, atMs: operation.atMs, ...(operation.tenantOrder === undefined ? {} : { tenantOrder: operation.tenantOrder }) }, (state) => ({ state, result: { _tag: "Success", value: null }, rules: [] }))
  if (mode === "deleteHoldsLock") return alone.deletes[0]?.deleted.includes(key) === true
  const exists = run.model.contents[key] !== undefined
  return exists && alone.deletes.some((batch) => batch.targets.includes(key))
}


/** Runs one race command and checks it. */
export const raceStep = (implementation: ContentImplementation, environment: ExecutionEnvironment, session: ContentSession, run: RunState, command: Extract<Command, { op: "race" }>, atMs: number) =>
  Effect.gen(function*() {
    const database = environment.database
    const locks = environment.capabilities.independentConnections && environment.capabilities.rowLocks && database.connections.length >= 3
    const hookOnly = command.mode === "after" || command.mode === "racerStarted" || (command.mode === "scheduled" && command.schedule !== undefined)
    const mode = locks || hookOnly ? command.mode : "between"
    const racer = racerOf(command.competitor, run.hashes, atMs)
    const sweepOp = { kind: "sweep" as const, force: command.force, atMs }
    const expectBlock = (mode === "deleteHoldsLock" || mode === "raiseHoldsLock") && predictedBlock(run, sweepOp, racer, mode)
    const hooks = yield* makeScriptedHooks
    const watch = makeScanWatch(hooks, "sweep", session.boundary.sql.transactionService)
    const sweeper = session.store()
    session.boundary.arm(undefined)
    const raced = yield* Effect.gen(function*(): Effect.fn.Return<RaceRun, unknown> {
      if (mode === "between" || mode === "after") return yield* hookRace(hooks, watch, sweeper, sweeper, racer, command.force, mode === "between")
      if (mode === "racerStarted") return yield* racerHeldAt(hooks, sweeper, racer.call(sweeper), racer.startHook, command.force)
      if (mode === "scheduled" && command.schedule !== undefined) return yield* scheduledRace(sweeper, racer, command.force, command.schedule)
      // A racer that takes no content row lock (detach) has nothing to hold: it runs between.
      const lockHook = racer.lockHook
      if ((mode === "raiseHoldsLock" || mode === "raiseMidTransaction") && lockHook === undefined) return yield* hookRace(hooks, watch, sweeper, sweeper, racer, command.force, true)
      // The racer's own connection, over a boundary of its own for the point where it holds a content row (`writePoint.ts`).
      const racerBoundary = makeStorageBoundary(database.connections[1]!, database.platformAlarm)
      const racerStore = yield* implementation.make({ sql: racerBoundary.sql, dialect: environment.dialect, settings: { ...session.settings(), grantKey: GRANT_KEY, singleConnection: false } })
      const pids = { sweeper: yield* backendPidOf(database.connections[0]!), racer: yield* backendPidOf(database.connections[1]!) }
      if (mode === "deleteHoldsLock") return yield* deleteHoldsLock(hooks, watch, sweeper, racerStore, racer, command.force, pids, database.connections[2]!, expectBlock)
      if (mode === "readThenWrite") {
        const read = makeReadThenWriteWatch(hooks, "racer", racerBoundary.sql.transactionService)
        return yield* withBoundaryPoints(racerBoundary, read.points, racerHeldAt(hooks, sweeper, read.watched(racer.call(racerStore)), READ_CONTENT_THEN_WRITE, command.force))
      }
      if (lockHook === undefined) return yield* Effect.die(new Error(`invariant: a ${mode} race needs a racer that takes a content row lock`))
      const write = makeRowWriteWatch(hooks, "racer", racerBoundary.sql.transactionService)
      if (mode === "raiseMidTransaction") return yield* withBoundaryPoints(racerBoundary, write.points, raiseMidTransaction(hooks, write, sweeper, racerStore, racer, command.force, pids, database.connections[2]!))
      return yield* withBoundaryPoints(racerBoundary, write.points, raiseHoldsLock(hooks, { scan: watch, write }, sweeper, racerStore, { ...racer, lockHook }, command.force, pids, database.connections[2]!))
    }).pipe(
      // The boundary's points are inert for a sweep the watch does not see (`scanPoint.ts`).
      (race) => withBoundaryPoints(session.boundary, watch.points, race),
      Effect.mapError(harnessError("setting up a race"))
    )
    const placed = { ...sweepOp, competitor: { operation: racer.operation, betweenScanAndDelete: raced.betweenScanAndDelete, ...(raced.beforeSweep === true ? { beforeSweep: true } : {}), ...(raced.atBatch === undefined ? {} : { atBatch: raced.atBatch }) } }
    return yield* raceChecks(run, database.sql, placed, raced, mode, (order) => (mode === "deleteHoldsLock" || mode === "raiseHoldsLock") && predictedBlock(run, order, racer, mode), command, atMs)
  })

type SweepOperation = ContentOperation & { kind: "sweep" }

/**
 * The model's sweep and racer for one tenant order (`operation.tenantOrder`) and the checks of what
 * was observed against them: content rows first (a deletion names its clause better than the racing
 * call's result does), the racer's result, the lock wait, the rest of storage, the sweep's result.
 */
const predictRace = (before: ContentModelState, observed: ObservedStorage, raced: RaceRun, expectBlockOf: (operation: SweepOperation) => boolean, atMs: number) =>
(ordered: SweepOperation) => {
  const expectBlock = expectBlockOf(ordered)
  const operation: SweepOperation = raced.placedByPredictedBlock === true ? { ...ordered, competitor: { ...ordered.competitor!, betweenScanAndDelete: !expectBlock } } : ordered
  const outcome = contentModel.step(before, operation)
  const clause = raceClause(operation.competitor!.operation)
  const competitorResult = resultAsRead(operation.competitor!.operation.kind, toJson(outcome.competitor?.result ?? null), atMs, before.config.skewMs)
  const competitorRules = [clause, ...(outcome.competitor?.rules ?? []), "K6"]
  const storage = storageChecks(operation, before, outcome.state, observed, ["K6"])
  const contentRows = storage.filter((check) => check.observable.startsWith("content "))
  const rest = storage.slice(1).filter((check) => !check.observable.startsWith("content "))
  const checks: Array<Check> = [
    storage[0]!,
    ...contentRows,
    { observable: `racing ${operation.competitor!.operation.kind} result`, expected: competitorResult, actual: exitJson(raced.racer), rules: competitorRules, why: "the row lock orders the racing operation with the delete; the re-check refuses a raised horizon" }
  ]
  if (raced.blocked !== undefined) {
    checks.push({ observable: "row lock wait (pg_blocking_pids)", expected: expectBlock, actual: raced.blocked, rules: ["rowlock", "(iii)"], why: "a transaction reaching a content row another holds locked waits for it" })
  }
  checks.push(...rest)
  checks.push({ observable: "sweep result", expected: toJson(outcome.result), actual: exitJson(Exit.map(raced.sweep, (n) => n as Json)), rules: ["K6"], why: outcome.why })
  return { operation, outcome, expectBlock, competitorResult, checks }
}

const raceChecks = (run: RunState, sql: SqlClient.SqlClient, placed: SweepOperation, raced: RaceRun, mode: string, expectBlockOf: (operation: SweepOperation) => boolean, command: Command, atMs: number) =>
  Effect.gen(function*() {
    const before = run.model
    const observed = yield* observeStorage(sql, PROPERTY_SETTINGS.chunkBytes).pipe(Effect.mapError(harnessError("observing storage")))
    // A sweep may take its tenants in any order (K6): judged by the first order that explains it.
    const { operation, outcome, expectBlock, competitorResult, checks } = firstConsistent(sweepAlternatives(before, placed), predictRace(before, observed, raced, expectBlockOf, atMs))
    run.model = outcome.state
    const covered = [...contentAttributor.requirementsWithPrimaryRules(outcome.situations), ...(expectBlock && raced.blocked === true ? ["CNT-012"] : [])]
    const schedule = command.op === "race" && mode === "scheduled" ? command.schedule : undefined
    // A PCT-scheduled race counts toward the stated bound of its depth (`harness/PctBound.ts`).
    const scheduleSituations = schedule?.strategy === "pct" ? [pctSituation(pctDepth(schedule))] : []
    const executed: ExecutedStep = {
      record: {
        operation: "race",
        // A scheduled race also names the steps its schedule took (`label@from`), derived from the schedule.
        args: toJson({ ...command, mode, ...(raced.steps === undefined ? {} : { steps: raced.steps }) }),
        virtualTimeMs: atMs,
        implementation: { sweep: exitJson(Exit.map(raced.sweep, (n) => n as Json)), racer: exitJson(raced.racer), ...(raced.blocked === undefined ? {} : { blocked: raced.blocked }) },
        model: { sweep: toJson(outcome.result), racer: competitorResult, ...(raced.blocked === undefined ? {} : { blocked: expectBlock }) },
        implementationState: storageJson(observed),
        modelState: toJson(contentModel.observableState(run.model))
      },
      checks,
      covered,
      situations: [...contentSituations(before, operation, outcome), ...scheduleSituations],
      described: `${contentModel.describeOperation(operation)} (${mode}${operation.competitor!.betweenScanAndDelete ? ", between the reference scan and the delete" : raced.beforeSweep === true ? ", before the sweep" : ", after the sweep"})`
    }
    return executed
  })
