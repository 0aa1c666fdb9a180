/**
 * Upstream's alarm errors carry more than a tag (`properties/alarms/errorFields.ts`): each is built with
 * its `cause`, a `StorageOperationError` names its `operation`, a `StoredAlarmDecodeError` its
 * `storageId`. An implementation raising the right tag without them breaks callers that read them, so
 * the harness names the missing fields beside the tag and the error differs from the model's. Until
 * 2026-12-06 errors were compared by tag alone, and a scheduler that dropped them passed.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { catchKnownBad } from "../../harness/knownBad.ts"
import { pluginSuite } from "../../harness/SubjectPlugin.ts"
import { alarmsPlugin } from "../../properties/alarms/plugin.ts"
import { type AlarmsImplementation, type AlarmScheduler, InvalidAlarmRefError, StorageOperationError } from "../../subjects/alarms/api.ts"
import { shippedAlarms } from "../../subjects/alarms/index.ts"

const sqlite = makeSqliteAdapter()

/** The shipped scheduler with `rewrite` applied to every error of its external schedule and cancel calls. */
const rewritingErrors = (name: string, rewrite: (error: unknown) => unknown): AlarmsImplementation => ({
  name,
  make: (deps) =>
    Effect.map(shippedAlarms.make(deps), (scheduler): AlarmScheduler => ({
      ...scheduler,
      scheduleAlarm: (input) => Effect.mapError(scheduler.scheduleAlarm(input), rewrite as never),
      cancelAlarm: (input) => Effect.mapError(scheduler.cancelAlarm(input), rewrite as never)
    }))
})

const actualTexts = (counterexamples: ReadonlyArray<{ readonly divergence: { readonly actual: unknown } }>): string =>
  JSON.stringify(counterexamples.map((counterexample) => counterexample.divergence.actual))

describe("alarm errors keep upstream's fields", () => {
  it("an InvalidAlarmRefError without its cause is caught at the gate's budget, its actual result naming the missing cause", async () => {
    const causeless = rewritingErrors("ref-error-without-cause", (error) =>
      error instanceof InvalidAlarmRefError ? new InvalidAlarmRefError({} as { cause: unknown }) : error)
    const result = await Effect.runPromise(catchKnownBad({ suite: pluginSuite(alarmsPlugin, causeless), adapter: sqlite, propertyOrder: ["alarms/model"] }))
    expect(result.caught, result.run.verdict).toBe(true)
    expect(actualTexts(result.counterexamples)).toContain("cause: missing")
  }, 120_000)

  it("a StorageOperationError naming no operation is caught under storage faults", async () => {
    const nameless = rewritingErrors("storage-error-without-operation", (error) =>
      error instanceof StorageOperationError ? new StorageOperationError({ operation: "", cause: error.cause }) : error)
    const result = await Effect.runPromise(catchKnownBad({ suite: pluginSuite(alarmsPlugin, nameless), adapter: sqlite, propertyOrder: ["alarms/model", "alarms/faults"] }))
    expect(result.caught, result.run.verdict).toBe(true)
    expect(actualTexts(result.counterexamples)).toContain("operation: empty")
  }, 120_000)
})
