/**
 * The cron model's named situations (`models/cron/situations.ts`), decided from hand-built model steps:
 * the skip window's boundary (N7), receipts and retargeting (I2, I4), faults only as they struck (a
 * failed statement in a tick write too: N4, N5), DST edges of written ticks (N2, B4), claims against
 * another runner's lease and the fence (B5), races in commit order, refused declarations (N1); and the
 * harness-realised ones (`properties/cron/realised.ts`).
 */
import { describe, expect, it } from "vitest"
import { type CronModelState, type CronOperation, cronSituations, type EntryInput, initCron, step } from "../../models/cron/index.ts"
import { realisedSituations } from "../../properties/cron/realised.ts"

const TIMING = { retryWindowMs: 3_600_000, leaseMs: 30_000, backoffMs: 10_000 }
const SKIP_MS = 60_000
/** Ten seconds into 2026 (UTC), and the first minute after it: where an `@every 60s` tick falls due. */
const T0 = Date.UTC(2026, 0, 1, 0, 0, 10)
const DUE = Date.UTC(2026, 0, 1, 0, 1)

const entry = (spec: string, zone: string | null, command = "ping"): EntryInput => ({ spec, zone, command, payload: "{}" })
const declare = (runner: number, entries: ReadonlyArray<EntryInput>, atMs = T0): CronOperation => ({ kind: "declare", atMs, runner, schedule: { skipMs: SKIP_MS, entries } })
const bootstrap = (atMs = T0): CronOperation => ({ kind: "bootstrap", atMs, runner: 0 })
const claim = (runner: number, atMs: number): CronOperation => ({ kind: "claim", atMs, runner })
const settle = (runner: number, atMs: number, fault?: "inside" | "afterCommit" | "lostReply"): CronOperation =>
  fault === undefined ? { kind: "settle", atMs, runner } : { kind: "settle", atMs, runner, fault: { transaction: 1, phase: fault } }

/** Runs `operations` from the initial state of two runners; the situations of each step, and the last state. */
const walk = (operations: ReadonlyArray<CronOperation>): { readonly reached: ReadonlyArray<ReadonlyArray<string>>; readonly state: CronModelState } => {
  let state = initCron({ runners: 2, timing: TIMING })
  const reached: Array<ReadonlyArray<string>> = []
  for (const operation of operations) {
    const outcome = step(state, operation)
    reached.push(cronSituations(state, operation, outcome))
    state = outcome.state
  }
  return { reached, state }
}

/** The situations of the last of `operations`. */
const lastSituations = (operations: ReadonlyArray<CronOperation>): ReadonlyArray<string> => walk(operations).reached.at(-1)!

const every = [entry("@every 60s", null)]

describe("cron situations: N7 and the skip window", () => {
  it("a tick exactly skipMs old is delivered at the window; 1 ms older it is skipped", () => {
    const atWindow = lastSituations([declare(0, every), bootstrap(), claim(0, DUE + SKIP_MS), settle(0, DUE + SKIP_MS)])
    expect([...atWindow].sort()).toEqual(["deliveredAtSkipWindow", "entryCommandDelivered"])
    const past = lastSituations([declare(0, every), bootstrap(), claim(0, DUE + SKIP_MS + 1), settle(0, DUE + SKIP_MS + 1)])
    expect(past).toEqual(["staleSkipped"])
    const within = lastSituations([declare(0, every), bootstrap(), claim(0, DUE + SKIP_MS - 1), settle(0, DUE + SKIP_MS - 1)])
    expect(within).toEqual(["entryCommandDelivered"])
  })

  it("a claim at the due instant itself is at the boundary; one a second later is not", () => {
    expect(lastSituations([declare(0, every), bootstrap(), claim(0, DUE)])).toEqual(["claimAtExactDueInstant"])
    expect(lastSituations([declare(0, every), bootstrap(), claim(0, DUE + 1_000)])).toEqual([])
  })
})

describe("cron situations: receipts and retargeting (I2, I4, B1)", () => {
  const retargeted = [declare(0, [entry("@every 60s", null, "pong")], DUE), claim(0, DUE + 31_000), settle(0, DUE + 31_000)]

  it("a crash after the receipt's commit is between receipt and rewrite; the retargeted tick is then not delivered", () => {
    const { reached } = walk([declare(0, every), bootstrap(), claim(0, DUE), settle(0, DUE), settle(0, DUE, "afterCommit"), ...retargeted])
    expect([...reached[4]!].sort()).toEqual(["crashBetweenReceiptAndRewrite", "faultAfterCommit"])
    expect(reached.at(-1)).toEqual(["retargetedWithReceiptNotDelivered"])
  })

  it("a crash before delivery leaves no receipt: the retargeted tick is delivered with the entry's command", () => {
    const { reached } = walk([declare(0, every), bootstrap(), claim(0, DUE), settle(0, DUE, "afterCommit"), ...retargeted])
    // The decision to deliver committed; the crash came before the delivery, so no receipt exists.
    expect([...reached[3]!].sort()).toEqual(["entryCommandDelivered", "faultAfterCommit"])
    expect(reached.at(-1)).toEqual(["retargetedDelivered"])
  })
})

describe("cron situations: faults count only as they struck", () => {
  it("a fault aimed at an idle settle or at a rejected turn's commit never struck", () => {
    expect(lastSituations([declare(0, every), settle(0, T0, "inside")])).toEqual([])
    const rejected = (fault: "inside" | "lostReply"): CronOperation => ({ kind: "turn", atMs: T0, runner: 0, actorId: "b", turnMs: 0, rejected: true, fault: { transaction: 1, phase: fault } })
    expect(lastSituations([declare(0, every), rejected("lostReply")])).toEqual(["turnRejectedWroteNothing"])
    expect(lastSituations([declare(0, every), rejected("inside")])).toEqual(["faultInsideTransaction"])
  })

  it("a turn whose transaction rolled back reached nothing but its fault; a second committed turn kept the tick", () => {
    const turn = (fault?: "inside"): CronOperation => ({ kind: "turn", atMs: T0, runner: 0, actorId: "b", turnMs: 0, rejected: false, ...(fault === undefined ? {} : { fault: { transaction: 1, phase: fault } }) })
    const { reached } = walk([declare(0, every), turn(), turn("inside"), turn()])
    expect(reached.slice(1)).toEqual([[], ["faultInsideTransaction"], ["turnKeptExistingTick"]])
  })

  it("a failed statement struck a tick write only in a turn or bootstrap of a runner with entries, not in a rejected turn", () => {
    const fault = { transaction: 1, phase: "statementFails", statement: 1 } as const
    const turn = (rejected: boolean): CronOperation => ({ kind: "turn", atMs: T0, runner: 0, actorId: "b", turnMs: 0, rejected, fault })
    const struck = ["faultStatementFailed", "tickWriteStatementFailed"]
    expect([...lastSituations([declare(0, every), turn(false)])].sort()).toEqual(struck)
    expect([...lastSituations([declare(0, every), { kind: "bootstrap", atMs: T0, runner: 0, fault }])].sort()).toEqual(struck)
    // Struck before the rejection: the call failed, but the turn would have written no tick.
    expect(lastSituations([declare(0, every), turn(true)])).toEqual(["faultStatementFailed"])
    // A runner without entries writes no tick (its bootstrap opens no transaction at all).
    expect(lastSituations([turn(false)])).toEqual(["faultStatementFailed"])
    expect(lastSituations([{ kind: "bootstrap", atMs: T0, runner: 0, fault }])).toEqual([])
    // Told as a refused COMMIT (the transaction ran fewer statements): no statement failed.
    expect(lastSituations([declare(0, every), { kind: "bootstrap", atMs: T0, runner: 0, fault: { transaction: 1, phase: "commitRefused" } }])).toEqual(["faultCommitRefused"])
  })
})

describe("cron situations: DST edges of written ticks (N2, B4)", () => {
  const NEW_YORK = "America/New_York"

  it("a wall time skipped by the gap falls due at the gap's end; one before the gap does not", () => {
    const gapAnchor = Date.UTC(2026, 2, 8, 5, 30)
    const skipped = walk([declare(0, [entry("30 2 * * *", NEW_YORK)], gapAnchor), bootstrap(gapAnchor)])
    expect(skipped.state.rows[0]!.scheduledAtMs).toBe(Date.UTC(2026, 2, 8, 7, 0))
    expect(skipped.reached.at(-1)).toEqual(["tickDueAtGapEnd"])
    expect(lastSituations([declare(0, [entry("30 1 * * *", NEW_YORK)], gapAnchor), bootstrap(gapAnchor)])).toEqual([])
  })

  it("a tick due in a fold's first pass, rewritten there, falls due after the fold", () => {
    const foldAnchor = Date.UTC(2026, 10, 1, 4, 30)
    const firstPass = Date.UTC(2026, 10, 1, 5, 30)
    const { reached, state } = walk([
      declare(0, [entry("30 1 * * *", NEW_YORK)], foldAnchor), bootstrap(foldAnchor),
      claim(0, firstPass), settle(0, firstPass), settle(0, firstPass), settle(0, firstPass)
    ])
    expect(reached[1]).toEqual(["tickDueInFoldFirstPass"])
    expect(state.rows[0]!.scheduledAtMs).toBe(Date.UTC(2026, 10, 2, 6, 30))
    expect(reached.at(-1)).toEqual(["tickDueAcrossFold"])
  })
})

describe("cron situations: leases and the fence (I2, B5)", () => {
  const both = [declare(0, every), declare(1, every), bootstrap(), claim(0, DUE)]

  it("a claim while another runner holds its lease, then one taking over the lapsed lease", () => {
    expect(lastSituations([...both, claim(1, DUE + 1_000)])).toEqual(["claimWhileOtherHoldsLease"])
    expect(lastSituations([...both, claim(1, DUE + 31_000)])).toEqual(["claimTookOverLapsedLease"])
  })

  it("the old holder's rewrite after the takeover is fenced out", () => {
    const { reached } = walk([...both, settle(0, DUE), settle(0, DUE), claim(1, DUE + 31_000), settle(0, DUE + 31_000)])
    expect(reached.at(-1)).toEqual(["settlingWriteFenced"])
  })

  it("a race of two claims: the one committing second meets the first's lease, in either commit order", () => {
    for (const order of [[0, 1], [1, 0]]) {
      const race: CronOperation = { kind: "race", atMs: DUE, ops: [{ kind: "claim", runner: 0 }, { kind: "claim", runner: 1 }], order }
      const situations = lastSituations([declare(0, every), declare(1, every), bootstrap(), race])
      expect([...situations].sort(), `order ${order.join(", ")}`).toEqual(["claimAtExactDueInstant", "claimWhileOtherHoldsLease", "raceTwoClaims"])
    }
  })
})

describe("cron situations: refused declarations (N1)", () => {
  it("names an invalid entry and one key declared twice in two spellings", () => {
    expect(lastSituations([declare(0, [entry("61 * * * *", "UTC")])])).toEqual(["declarationRefusedInvalid"])
    expect(lastSituations([declare(0, [entry("0 2 * * *", "UTC"), entry("00 02 * * *", "UTC")])])).toEqual(["declarationRefusedDuplicateKey"])
    expect(lastSituations([declare(0, [entry("0 2 * * *", "UTC")])])).toEqual([])
  })
})

describe("cron situations realised by the harness", () => {
  const race = { op: "race", ops: [{ op: "claim", runner: 0 }, { op: "claim", runner: 1 }], order: [1, 0] } as const
  const bootstrapAll = { op: "bootstrapAll", order: [0, 1] } as const

  it("a race counts only as the server reported it; bootstraps only when two declaring runners' transactions were held open at once", () => {
    const one = walk([declare(0, every)]).state
    const two = walk([declare(0, every), declare(1, every)]).state
    expect(realisedSituations(race, two, { race: "lockWait", bootstrapOpenTogether: 0 })).toEqual(["raceLockWait"])
    expect(realisedSituations(race, two, { race: "overlapped", bootstrapOpenTogether: 0 })).toEqual(["raceOverlapped"])
    expect(realisedSituations(race, two, { race: "sequential", bootstrapOpenTogether: 0 })).toEqual([])
    expect(realisedSituations(bootstrapAll, two, { race: null, bootstrapOpenTogether: 2 })).toEqual(["bootstrapAllConcurrent"])
    expect(realisedSituations(bootstrapAll, one, { race: null, bootstrapOpenTogether: 2 })).toEqual([])
    expect(realisedSituations(bootstrapAll, two, { race: null, bootstrapOpenTogether: 1 })).toEqual([])
    expect(realisedSituations(bootstrapAll, two, { race: null, bootstrapOpenTogether: 0 })).toEqual([])
  })
})
