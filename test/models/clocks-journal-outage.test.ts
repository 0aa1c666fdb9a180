/**
 * C11 under a journal outage (`FaultedCommand.journalOutageEmits`): the model retries a failed fire
 * with the backoff, exponential from 100 ms and capped at 30 s, for as long as the outage lasts, and
 * the fire commits at the first attempt after it, inside the same advance.
 */
import { describe, expect, it } from "vitest"
import { clocksModel, clocksSituations, FAILURES_TO_RETRY_CAP, type FaultedCommand, type ModelState, retryDelayMs, type StepOutcome } from "../../models/clocks/index.ts"

const T0 = 1_000_000

/** Steps `commands` in order from the initial state; the last outcome and the situations of each step. */
const stepAll = (commands: ReadonlyArray<FaultedCommand>): { readonly last: StepOutcome; readonly situations: ReadonlyArray<ReadonlyArray<string>> } => {
  let state: ModelState = clocksModel.init(T0)
  let last: StepOutcome | undefined
  const situations = commands.map((command) => {
    const operation = { command, atMs: state.nowMs }
    last = clocksModel.step(state, operation)
    const found = clocksSituations(state, operation, last)
    state = last.state
    return found
  })
  return { last: last!, situations }
}

/** The scheduled clock due in 1 s, then one advance of `advanceMs` whose first `outageEmits` durable emits fail. */
const outage = (outageEmits: number, advanceMs: number): ReadonlyArray<FaultedCommand> => [
  { op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 },
  { op: "advance", ms: advanceMs, journalFault: 1, journalOutageEmits: outageEmits }
]

/** The instants of the fire's attempts: the due time, then each backoff after a failure. */
const attemptInstantsMs = (failures: number): ReadonlyArray<number> => {
  const instants = [T0 + 1_000]
  for (let failure = 1; failure <= failures; failure++) instants.push(instants[failure - 1]! + retryDelayMs(failure))
  return instants
}

describe("a journal outage through a clock's fire (C11)", () => {
  it("the backoff first waits its whole 30 s cap after the tenth failure", () => {
    expect(FAILURES_TO_RETRY_CAP).toBe(10)
    expect(retryDelayMs(FAILURES_TO_RETRY_CAP - 1)).toBe(25_600)
    expect(retryDelayMs(FAILURES_TO_RETRY_CAP)).toBe(30_000)
    expect(retryDelayMs(FAILURES_TO_RETRY_CAP + 5)).toBe(30_000)
  })

  it("every attempt during the outage fails, and the first after it completes the clock", () => {
    for (const failures of [1, 9, 10, 11]) {
      const instants = attemptInstantsMs(failures)
      const { last, situations } = stepAll(outage(failures, instants.at(-1)! - T0 + 1_000))
      expect(last.fireInstantsMs).toEqual(instants)
      expect(last.state.clocks["e1/t1"]?.completedAtMs).toBe(instants.at(-1))
      expect(last.resumes.map((resume) => resume.reason)).toEqual(["clock"])
      expect(situations[1]).toContain("fireRetrySucceeded")
      expect(situations[1]!.includes("fireRetryAtBackoffCap")).toBe(failures >= FAILURES_TO_RETRY_CAP)
    }
  })

  it("an advance that ends inside the outage leaves the clock pending, its timer in the capped backoff", () => {
    const instants = attemptInstantsMs(12)
    const { last } = stepAll(outage(20, instants.at(-1)! - T0))
    expect(last.fireInstantsMs).toEqual(instants)
    expect(last.state.clocks["e1/t1"]?.completedAtMs).toBeNull()
    expect(last.state.timers).toEqual([expect.objectContaining({ key: "e1/t1", failures: 13, atMs: instants.at(-1)! + 30_000 })])
    expect(last.resumes).toEqual([])
  })

  it("an outage of one emit is the single failing emit of `journalFault`", () => {
    const single = stepAll([{ op: "scheduleClock", exec: "e1", clock: "t1", durationMs: 1_000 }, { op: "advance", ms: 2_000, journalFault: 1 }]).last
    const outageOfOne = stepAll(outage(1, 2_000)).last
    expect(outageOfOne.fireInstantsMs).toEqual(single.fireInstantsMs)
    expect(outageOfOne.state).toEqual(single.state)
  })
})
