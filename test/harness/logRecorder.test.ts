/**
 * The harness's logger sees every entry an effect writes, at every level, even where the caller
 * silenced logging, and in fibers the effect forks; nothing reaches the loggers it replaced.
 */
import { Effect, Fiber, References } from "effect"
import { describe, expect, it } from "vitest"
import { FAILURE_LOG_LEVELS, handingLogger, type LogEntry, withLogsTo } from "../../harness/LogRecorder.ts"

describe("log recorder", () => {
  it("hands over every entry with its level, parts and cause, forked fibers' too, under a silenced caller", async () => {
    const entries: Array<LogEntry> = []
    const logged = Effect.gen(function*() {
      yield* Effect.logDebug("debug")
      yield* Effect.logWarning("flush failed", { reason: "sink_failed" })
      const forked = yield* Effect.forkChild(Effect.logError("later"))
      yield* Fiber.join(forked)
    })
    await Effect.runPromise(withLogsTo(logged, handingLogger((entry) => entries.push(entry))).pipe(Effect.provideService(References.MinimumLogLevel, "None")))
    expect(entries.map((entry) => [entry.level, entry.parts])).toEqual([["Debug", ["debug"]], ["Warn", ["flush failed", { reason: "sink_failed" }]], ["Error", ["later"]]])
    expect(entries.filter((entry) => FAILURE_LOG_LEVELS.includes(entry.level))).toHaveLength(2)
  })
})
