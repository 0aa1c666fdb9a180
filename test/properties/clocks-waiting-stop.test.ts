/**
 * C6's "checked in the same transaction", seen from outside: the harness stops the run waiting as the
 * if-waiting call's first storage transaction begins (the storage boundary's point after BEGIN), so a
 * check made inside that transaction finds it not waiting (`properties/clocks/session.ts`,
 * `stopWaitingAtBegin`). Until 2026-12-06 no property could tell a check inside the transaction from one
 * made before it (a blind bug, `clocks-2/waiting-guard-read-before-transaction`, was missed):
 * - the shipped engine answers NotWaiting on every adapter, and the step counts
 *   `completeIfWaitingStoppedAtBegin`;
 * - an engine that reads the waiting state before its transaction (the shipped one, handed the state it
 *   read first) completes instead and is caught under CLK-008 (C6).
 */
import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { executeScenario } from "../../harness/Runner.ts"
import type { Json } from "../../harness/Property.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import type { ClocksImplementation, Waiting } from "../../subjects/clocks/api.ts"
import { shippedClocks } from "../../subjects/clocks/index.ts"
import { NODE_ADAPTER_NAMES, useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()

/** A waiting run asked to complete as it stops waiting at the call's transaction's begin. */
const SCENARIO: Json = {
  commands: [
    { op: "setWaiting", exec: "e1", reason: "approval", token: "k1" },
    { op: "deferredDoneIfWaiting", exec: "e1", deferred: "sig", value: 1, reason: "approval", token: "k1", stopsWaiting: "atBegin" },
    { op: "deferredResult", exec: "e1", deferred: "sig" }
  ]
}

/**
 * The shipped engine with its waiting check moved before the transaction: each if-waiting call reads the
 * run's waiting state first, and the engine's check inside the transaction is handed what was read then.
 */
const checkedBeforeTransaction: ClocksImplementation = {
  name: "waiting-read-before-transaction",
  make: (environment) =>
    Effect.gen(function*() {
      const readFirst = new Map<string, Option.Option<Waiting>>()
      const inner = yield* shippedClocks.make({
        ...environment,
        runs: {
          waiting: (executionId) =>
            Effect.suspend(() => {
              const read = readFirst.get(executionId)
              return read === undefined ? environment.runs.waiting(executionId) : Effect.succeed(read)
            })
        }
      })
      return {
        ...inner,
        deferredDoneIfWaiting: (options) =>
          Effect.gen(function*() {
            readFirst.set(options.executionId, yield* environment.runs.waiting(options.executionId))
            return yield* inner.deferredDoneIfWaiting(options)
          }).pipe(Effect.ensuring(Effect.sync(() => readFirst.delete(options.executionId))))
      }
    })
}

const model = (implementation: ClocksImplementation) => propertyById(clocksSuite(implementation), "clocks/model")

describe("a run that stops waiting as the if-waiting call's transaction begins", () => {
  for (const adapterName of NODE_ADAPTER_NAMES) {
    it(`the shipped engine answers NotWaiting on ${adapterName}, and the step counts the situation`, async () => {
      const trace = await Effect.runPromise(executeScenario(model(shippedClocks), adapters[adapterName]!, SCENARIO))
      expect(trace.divergence).toBeNull()
      expect(trace.steps[1]!.implementation).toEqual({ _tag: "Success", value: "NotWaiting" })
      expect(trace.situations ?? []).toContain("completeIfWaitingStoppedAtBegin")
    }, 60_000)
  }

  it("an engine that checks before its transaction is caught under CLK-008 at that step", async () => {
    const trace = await Effect.runPromise(executeScenario(model(checkedBeforeTransaction), adapters.sqlite!, SCENARIO))
    expect(trace.divergence?.requirementId).toBe("CLK-008")
    expect(trace.divergence?.stepIndex).toBe(1)
    expect(trace.steps[1]!.implementation).toEqual({ _tag: "Success", value: "Created" })
  }, 60_000)
})
