/**
 * The generic liveness machinery (`harness/Liveness.ts`) and the transaction probe
 * (`harness/TransactionProbe.ts`): quiescence is `quietRounds` inactive rounds in a row within
 * `maxRounds`; a system still active at the bound is reported stalled; predicate violations become
 * checks that the model-based loop turns into a divergence attributed through the subject's rules.
 */
import { Deferred, Effect, Exit, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { livenessStep, runToQuiescence } from "../../harness/Liveness.ts"
import { divergenceOf, firstMismatch } from "../../harness/ModelBased.ts"
import { makeTransactionProbe, settleTransactions } from "../../harness/TransactionProbe.ts"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { clocksAttributor } from "../../spec/clocks.ts"

/** A driver whose rounds are active while `activity` has entries left. */
const scripted = (activity: ReadonlyArray<boolean>) => ({
  round: (index: number) => Effect.succeed({ active: activity[index] ?? false, note: `round ${index}` })
})

describe("runToQuiescence", () => {
  it("stops after quietRounds inactive rounds in a row", async () => {
    const outcome = await Effect.runPromise(runToQuiescence(scripted([true, false, true, false, false]), { maxRounds: 10, quietRounds: 2 }))
    expect(outcome).toMatchObject({ quiescent: true, rounds: 5 })
  })

  it("reports a system still active at the bound as not quiescent", async () => {
    const outcome = await Effect.runPromise(runToQuiescence(scripted(Array.from({ length: 20 }, (_, index) => index % 2 === 0)), { maxRounds: 8, quietRounds: 2 }))
    expect(outcome).toMatchObject({ quiescent: false, rounds: 8 })
    expect(outcome.notes).toHaveLength(8)
  })
})

describe("livenessStep", () => {
  const predicates = [{ observable: "due items never done", rules: ["L1"], why: "every due item is done", violations: (state: ReadonlyArray<string>) => state }]

  it("holds when quiescent and no predicate is violated", async () => {
    const step = await Effect.runPromise(livenessStep({
      driver: scripted([true]),
      options: { maxRounds: 5, quietRounds: 2 },
      observe: Effect.succeed([] as ReadonlyArray<string>),
      predicates,
      stalledRules: ["L3"],
      atMs: 0,
      covered: ["CLK-020"]
    }))
    expect(firstMismatch(step.checks)).toBeUndefined()
    expect(step.covered).toEqual(["CLK-020"])
  })

  it("turns a violated predicate into a divergence attributed to the requirement citing its rule", async () => {
    const step = await Effect.runPromise(livenessStep({
      driver: scripted([]),
      options: { maxRounds: 5, quietRounds: 2 },
      observe: Effect.succeed(["e1/t1"] as ReadonlyArray<string>),
      predicates,
      stalledRules: ["L3"],
      atMs: 0,
      covered: []
    }))
    const mismatch = firstMismatch(step.checks)!
    expect(mismatch.observable).toBe("due items never done")
    expect(divergenceOf(mismatch, clocksAttributor, 3, step.described).requirementId).toBe("CLK-020")
  })

  it("names a system that never goes quiet under the stalled rules", async () => {
    const step = await Effect.runPromise(livenessStep({
      driver: scripted(Array.from({ length: 10 }, () => true)),
      options: { maxRounds: 4, quietRounds: 2 },
      observe: Effect.succeed([] as ReadonlyArray<string>),
      predicates,
      stalledRules: ["L3"],
      atMs: 0,
      covered: []
    }))
    const mismatch = firstMismatch(step.checks)!
    expect(mismatch.observable).toBe("quiescence")
    expect(divergenceOf(mismatch, clocksAttributor, 0, step.described).requirementId).toBe("CLK-022")
  })
})

describe("TransactionProbe", () => {
  it("counts outermost transactions only and settles once they finished", async () => {
    const counts = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const database = yield* makeSqliteAdapter().open()
      const tap = makeTransactionProbe(database.sql)
      yield* tap.sql.withTransaction(tap.sql.withTransaction(tap.sql`SELECT 1`))
      yield* tap.sql.withTransaction(tap.sql`SELECT 1`)
      const settled = yield* settleTransactions([tap])
      return { started: tap.started(), inFlight: tap.inFlight(), settled }
    })))
    expect(counts).toMatchObject({ started: 2, inFlight: 0, settled: { quiet: true } })
  })

  it("settles around a transaction the harness holds inside, and counts it again once released", async () => {
    const seen = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const database = yield* makeSqliteAdapter().open()
      const tap = makeTransactionProbe(database.sql)
      const inside = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(tap.sql.withTransaction(Effect.andThen(Deferred.succeed(inside, undefined), Deferred.await(gate))))
      yield* Deferred.await(inside)
      const busyInside = tap.probe.busy()
      tap.hold()
      const held = yield* settleTransactions([tap])
      tap.release()
      const busyAgain = tap.probe.busy()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(fiber)
      const done = yield* settleTransactions([tap])
      return { busyInside, held, busyAgain, done, tooMany: Exit.isFailure(Effect.runSyncExit(Effect.sync(() => tap.hold()))) }
    })))
    expect(seen).toEqual({ busyInside: true, held: { quiet: true, turns: 1 }, busyAgain: true, done: { quiet: true, turns: 1 }, tooMany: true })
  })
})
