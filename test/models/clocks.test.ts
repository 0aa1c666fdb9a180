/**
 * The clocks reference model on its own: first writer wins, absolute deadlines, the fire's one
 * transaction and its retry backoff, storage faults at the transaction they name, sweeps and wakes,
 * rewinds and conflicts, effect boundaries. Pure: no database, no Effect.
 */
import { describe, expect, it } from "vitest"
import {
  clocksModel,
  clockIdentity,
  completedIdentity,
  effectIdentity,
  type FaultedCommand,
  keyOf,
  type ModelState,
  OTHER_FLOW,
  retryDelayMs
} from "../../models/clocks/index.ts"
import { runClocksModel } from "../support/clocksModelRun.ts"

const T0 = 1_000_000

/** Steps `commands` in order from the initial state at `T0`, each at the model's current time. */
const run = (commands: ReadonlyArray<FaultedCommand>, from: ModelState = clocksModel.init(T0)) => runClocksModel(commands, from)

describe("clocks model", () => {
  it("first writer wins: a repeat answers Existing, keeps the first value and still resumes", () => {
    const { state, outcomes } = run([
      { op: "deferredDone", exec: "e1", deferred: "sig", value: 1 },
      { op: "deferredDoneIfWaiting", exec: "e1", deferred: "sig", value: 2, reason: "r", token: "k" },
      { op: "setWaiting", exec: "e1", reason: "r", token: "k" },
      { op: "deferredDoneIfWaiting", exec: "e1", deferred: "sig", value: 2, reason: "r", token: "k" }
    ])
    expect(outcomes[1]!.result).toEqual({ _tag: "Success", value: "NotWaiting" })
    expect(outcomes[1]!.resumes).toEqual([])
    expect(outcomes[3]!.result).toEqual({ _tag: "Success", value: "Existing" })
    expect(outcomes[3]!.resumes).toHaveLength(1)
    expect(state.deferreds[keyOf("e1", "sig")]!.exit).toEqual({ _tag: "Success", value: 1 })
  })

  it("a clock's deadline is absolute: a replay keeps it; the fire completes the deferred and the clock once", () => {
    const { state, outcomes } = run([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 500 },
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 600 }
    ])
    expect(state.clocks[keyOf("e1", "t1")]).toMatchObject({ dueAtMs: T0 + 1_000, completedAtMs: T0 + 1_000 })
    expect(outcomes[3]!.fireInstantsMs).toEqual([T0 + 1_000])
    expect(outcomes[3]!.resumes).toEqual([{ process: "A", executionId: "e1", reason: "clock", sourceId: null }])
    expect(state.journal[clockIdentity("e1", "t1", 1)]).toBeDefined()
    expect(state.journal[completedIdentity("e1", "t1:fired")]).toBeDefined()
  })

  it("a failed fire is retried after 100 ms, then 200 ms, and keeps the first success", () => {
    const { state, outcomes } = run([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 1_000, journalFault: 1 },
      { op: "advance", ms: 1_000 }
    ])
    expect(outcomes[1]!.resumes).toEqual([])
    expect(outcomes[2]!.fireInstantsMs).toEqual([T0 + 1_100])
    expect(state.clocks[keyOf("e1", "t1")]!.completedAtMs).toBe(T0 + 1_100)
    expect([1, 2, 3, 9, 30].map(retryDelayMs)).toEqual([100, 200, 400, 25_600, 30_000])
  })

  it("a crash after the fire's commit keeps it, loses the resume, and the registration sweep wakes the run", () => {
    const { state, outcomes } = run([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 2_000, fault: { transaction: 1, phase: "afterCommit" } }
    ])
    expect(outcomes[1]!.result).toEqual({ _tag: "Crashed", transaction: 1, phase: "afterCommit" })
    expect(outcomes[1]!.resumes).toEqual([{ process: "A", executionId: "e1", reason: "deferred", sourceId: 'engine:wake:["flow","e1","t1:fired"]' }])
    expect(state.clocks[keyOf("e1", "t1")]!.completedAtMs).toBe(T0 + 1_000)
  })

  it("a crash inside the fire's transaction rolls it back and the restart fires the due clock at once", () => {
    const { state, outcomes } = run([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 2_000, fault: { transaction: 1, phase: "inside" } }
    ])
    expect(outcomes[1]!.result).toEqual({ _tag: "Crashed", transaction: 1, phase: "inside" })
    expect(state.clocks[keyOf("e1", "t1")]!.completedAtMs).toBe(T0 + 1_000)
    expect(outcomes[1]!.resumes.map((resume) => resume.reason)).toEqual(["clock"])
  })

  it("a rewind that keeps the records makes a different re-completion an idempotency conflict", () => {
    const { outcomes } = run([
      { op: "deferredDone", exec: "e1", deferred: "sig", value: 1 },
      { op: "rewind", exec: "e1", deferred: "sig", keepRecords: true },
      { op: "deferredDone", exec: "e1", deferred: "sig", value: 2 }
    ])
    expect(outcomes[2]!.result).toEqual({ _tag: "Failure", error: "JournalError:idempotency_conflict" })
  })

  it("a re-completion after a rewind that kept the records is a Duplicate when the value is equal in another key order", () => {
    const { state, outcomes } = run([
      { op: "deferredDone", exec: "e1", deferred: "sig", value: { a: 1, b: [1, 2] }, metadata: { corr: "c1", tags: ["a"] } },
      { op: "rewind", exec: "e1", deferred: "sig", keepRecords: true },
      { op: "deferredDone", exec: "e1", deferred: "sig", value: { b: [1, 2], a: 1 }, metadata: { tags: ["a"], corr: "c1" } },
      { op: "rewind", exec: "e1", deferred: "sig", keepRecords: true },
      { op: "deferredDone", exec: "e1", deferred: "sig", value: { b: [1, 2], a: 1 } }
    ])
    expect(outcomes[2]!.result).toEqual({ _tag: "Success", value: null })
    expect(outcomes[4]!.result).toEqual({ _tag: "Failure", error: "JournalError:idempotency_conflict" })
    expect(state.deferreds[keyOf("e1", "sig")]).toBeUndefined()
    expect(state.journal[completedIdentity("e1", "sig")]!.named).toEqual({ exit: { _tag: "Success", value: { a: 1, b: [1, 2] } }, metadata: { corr: "c1", tags: ["a"] } })
  })

  it("a pending clock whose deferred is already complete is armed and fires: CAS won, the completion stands", () => {
    for (const viaRestart of [false, true]) {
      const commands: ReadonlyArray<FaultedCommand> = viaRestart
        ? [{ op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 2_000 }, { op: "deferredDone", exec: "e1", deferred: "t1:fired", value: 7 }, { op: "restart" }, { op: "advance", ms: 2_500 }]
        : [{ op: "deferredDone", exec: "e1", deferred: "t1:fired", value: 7 }, { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 }, { op: "advance", ms: 1_000 }]
      const { state, outcomes } = run(commands)
      expect(outcomes.at(-1)!.fireInstantsMs, String(viaRestart)).toHaveLength(1)
      expect(state.clocks[keyOf("e1", "t1")]!.completedAtMs).not.toBeNull()
      expect(state.journal[clockIdentity("e1", "t1", 1)]).toBeDefined()
      expect(state.deferreds[keyOf("e1", "t1:fired")]!.exit).toEqual({ _tag: "Success", value: 7 })
    }
  })

  it("if-waiting checks the reason as well as the token; a repeat while still waiting answers Existing", () => {
    const { outcomes } = run([
      { op: "setWaiting", exec: "e1", reason: "approval", token: "k1" },
      { op: "deferredDoneIfWaiting", exec: "e1", deferred: "sig", value: 1, reason: "review", token: "k1" },
      { op: "deferredDoneIfWaiting", exec: "e1", deferred: "sig", value: 1, reason: "approval", token: "k1" },
      { op: "deferredDoneIfWaiting", exec: "e1", deferred: "sig", value: 2, reason: "approval", token: "k1" }
    ])
    expect(outcomes.slice(1).map((outcome) => outcome.result)).toEqual(["NotWaiting", "Created", "Existing"].map((value) => ({ _tag: "Success", value })))
  })

  it("a run that stops waiting as the if-waiting call's transaction begins is NotWaiting; stopped after the call, the completion stands", () => {
    const waiting: FaultedCommand = { op: "setWaiting", exec: "e1", reason: "r", token: "k" }
    const ask = (stopsWaiting: "atBegin" | "after"): FaultedCommand => ({ op: "deferredDoneIfWaiting", exec: "e1", deferred: "sig", value: 1, reason: "r", token: "k", stopsWaiting })
    const atBegin = run([waiting, ask("atBegin")])
    expect(atBegin.outcomes[1]!.result).toEqual({ _tag: "Success", value: "NotWaiting" })
    expect(atBegin.outcomes[1]!.resumes).toEqual([])
    expect(atBegin.state.deferreds[keyOf("e1", "sig")]).toBeUndefined()
    expect(atBegin.state.waiting["e1"]).toBeUndefined()
    const after = run([waiting, ask("after")])
    expect(after.outcomes[1]!.result).toEqual({ _tag: "Success", value: "Created" })
    expect(after.outcomes[1]!.resumes).toHaveLength(1)
    expect(after.state.waiting["e1"]).toBeUndefined()
  })

  it("a sweep inside a failed fire's backoff keeps the live timer: the retry comes after the backoff, not at once", () => {
    const { outcomes } = run([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 1_000, journalFault: 1 },
      { op: "sweep", process: "A", withFlow: false },
      { op: "advance", ms: 1_000 }
    ])
    expect(outcomes[2]!.fireInstantsMs).toEqual([])
    expect(outcomes[2]!.state.timers.map((timer) => timer.atMs)).toEqual([T0 + 1_100])
    expect(outcomes[3]!.fireInstantsMs).toEqual([T0 + 1_100])
  })

  it("a sweep of another flow finds nothing of this flow: no timer, no record, no wake", () => {
    const { outcomes } = run([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "deferredDone", exec: "e1", deferred: "sig", value: 1 },
      { op: "sweep", process: "B", withFlow: true, flow: OTHER_FLOW }
    ])
    expect(outcomes[2]!.resumes).toEqual([])
    expect(outcomes[2]!.state.timers.filter((timer) => timer.process === "B")).toEqual([])
    expect(outcomes[2]!.transactions).toBe(0)
  })

  it("a sweep's failing journal emit opens no storage transaction: a fault on that ordinal never strikes", () => {
    const { outcomes } = run([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 5_000 },
      { op: "restart", fault: { transaction: 1, phase: "inside" }, journalFault: 1 }
    ])
    expect(outcomes[1]!.result).toEqual({ _tag: "Failure", error: "JournalError:unavailable" })
    expect(outcomes[1]!.transactions).toBe(0)
  })

  it("effect-boundary records carry the seed's whole payload and meta", () => {
    const { state } = run([{ op: "effect", exec: "e1", attempt: 2, fails: false }])
    const succeeded = state.journal[effectIdentity("e1", 2, "succeeded")]!
    expect(succeeded.payload).toMatchObject({ version: 1, effect: { status: "succeeded", durableBoundary: true, providerStream: false, lineageId: "root:e1", output: { sent: 2, to: ["ops", "audit"] } } })
    expect(succeeded.meta).toEqual({ lineageId: "root:e1", timeTravel: { effectId: "e1:k1:2", kind: "email", tier: "irreversible", status: "succeeded" } })
  })

  it("a fired clock whose completion was rewound is armed again by a replayed schedule; completedAt stays", () => {
    const { state, outcomes } = run([
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 1_000 },
      { op: "rewind", exec: "e1", deferred: "t1:fired", keepRecords: false },
      { op: "advance", ms: 100 },
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 }
    ])
    expect(outcomes[4]!.resumes.map((resume) => resume.reason)).toEqual(["clock"])
    expect(state.clocks[keyOf("e1", "t1")]!.completedAtMs).toBe(T0 + 1_000)
    expect(state.deferreds[keyOf("e1", "t1:fired")]!.completedAtMs).toBe(T0 + 1_100)
  })

  it("an effect runs only after its intended record commits", () => {
    const { state, outcomes } = run([{ op: "effect", exec: "e1", attempt: 1, fails: false, fault: { transaction: 1, phase: "inside" } }])
    expect(outcomes[0]!.result).toEqual({ _tag: "Crashed", transaction: 1, phase: "inside" })
    expect(state.effectRuns).toBe(0)
  })

  it("is pure: stepping never changes the state it was given", () => {
    const initial = clocksModel.init(T0)
    const frozen = JSON.stringify(initial)
    run([{ op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 }, { op: "advance", ms: 5_000 }], initial)
    expect(JSON.stringify(initial)).toBe(frozen)
  })

  it("a fire race: the first-released fire wins at its instant, the held second sees Existing, loses the CAS and still resumes", () => {
    const armedByBoth: ReadonlyArray<FaultedCommand> = [
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "sweep", process: "B", withFlow: false }
    ]
    for (const order of [[0, 1], [1, 0]]) {
      const { state, outcomes } = run([...armedByBoth, { op: "advance", ms: 2_500, race: { order, lagMs: 100, overlap: false } }])
      const [first, second] = order[0] === 0 ? ["A", "B"] as const : ["B", "A"] as const
      expect(outcomes[2]!.race).toEqual({ atMs: T0 + 1_000, key: keyOf("e1", "t1"), first, second, lagMs: 100, overlap: false })
      expect(outcomes[2]!.fireInstantsMs).toEqual([T0 + 1_000, T0 + 1_100])
      expect(outcomes[2]!.resumes.map((resume) => resume.process)).toEqual([first, second])
      expect(state.clocks[keyOf("e1", "t1")]!.completedAtMs).toBe(T0 + 1_000)
      expect(state.deferreds[keyOf("e1", "t1:fired")]!.completedAtMs).toBe(T0 + 1_000)
      expect(Object.keys(state.journal).filter((id) => id === clockIdentity("e1", "t1", 1))).toHaveLength(1)
    }
    // The lag is clamped to the advance; a batch that is not exactly one fire of each process ignores the race.
    expect(run([...armedByBoth, { op: "advance", ms: 1_000, race: { order: [1, 0], lagMs: 100, overlap: true } }]).outcomes[2]!.race)
      .toMatchObject({ lagMs: 0, overlap: true })
    expect(run([armedByBoth[0]!, { op: "advance", ms: 2_500, race: { order: [1, 0], lagMs: 100, overlap: false } }]).outcomes[1]!.race).toBeNull()
  })

  it("a scheduling race: the first to commit sets the deadline, the second is handed the stored row, and both arm it", () => {
    for (const first of ["A", "B"] as const) {
      const { state, outcomes } = run([
        { op: "scheduleRace", exec: "e1", clock: "t1", durationsMs: { A: 1_000, B: 2_000 }, first, overlap: true },
        { op: "advance", ms: 2_500 }
      ])
      const dueAtMs = T0 + (first === "A" ? 1_000 : 2_000)
      expect(outcomes[0]!.result).toEqual({ _tag: "Success", value: null })
      expect(outcomes[0]!.rules.result).toEqual(["C8"])
      expect(outcomes[0]!.state.timers.map((timer) => [timer.process, timer.atMs])).toEqual([[first, dueAtMs], [first === "A" ? "B" : "A", dueAtMs]])
      // One clock-scheduled record (the second's is a byte-equal duplicate), then one fire at the stored deadline.
      expect(Object.keys(outcomes[0]!.state.journal)).toEqual([clockIdentity("e1", "t1", 0)])
      expect(outcomes[0]!.noted).toContain("journalDuplicate")
      expect(outcomes[1]!.fireInstantsMs).toEqual([dueAtMs])
      expect(state.clocks[keyOf("e1", "t1")]).toMatchObject({ dueAtMs, completedAtMs: dueAtMs })
    }
  })

  it("faults strike a restart's recovery and the second process's sweep, each on its own process", () => {
    const due: ReadonlyArray<FaultedCommand> = [
      { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
      { op: "advance", ms: 1_000, journalFault: 1 }
    ]
    const restarted = run([...due, { op: "restart", fault: { transaction: 2, phase: "afterCommit" } }])
    expect(restarted.outcomes[2]!.result).toEqual({ _tag: "Crashed", transaction: 2, phase: "afterCommit" })
    expect(restarted.state.clocks[keyOf("e1", "t1")]!.completedAtMs).toBe(T0 + 1_000)
    // The fire committed and its process died before resuming: only the next recovery's wake resumes the run.
    expect(restarted.outcomes[2]!.resumes).toEqual([{ process: "A", executionId: "e1", reason: "deferred", sourceId: `engine:wake:${JSON.stringify(["flow", "e1", "t1:fired"])}` }])
    const swept = run([...due, { op: "sweep", process: "B", withFlow: false, fault: { transaction: 2, phase: "inside" } }])
    expect(swept.outcomes[2]!.result).toEqual({ _tag: "Crashed", transaction: 2, phase: "inside" })
    // B's fire rolled back with B; B's recovery fires the clock again and resumes the run.
    expect(swept.outcomes[2]!.resumes).toEqual([{ process: "B", executionId: "e1", reason: "clock", sourceId: null }])
    expect(swept.state.timers.filter((timer) => timer.process === "A")).toHaveLength(1)
  })
})
