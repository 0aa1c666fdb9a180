/**
 * Progress lines on stderr: the heartbeat shows the property's own elapsed time, certify's adapter
 * lines name the seed running, and counts agree with their nouns.
 */
import { describe, expect, it } from "vitest"
import type { ConformanceEvent } from "../../harness/Conformance.ts"
import type { PropertyRun } from "../../harness/RunResult.ts"
import type { CliIo } from "../../cli/io.ts"
import { progressPrinter } from "../../cli/progress.ts"

const capture = (interactive = false) => {
  let stderr = ""
  const io: CliIo = { stdout: () => {}, stderr: (text) => void (stderr += text), interactive, env: {}, cwd: "/" }
  return { io, read: () => stderr }
}

const progress = (propertyId: string, runsDone: number, runsTotal = 200): ConformanceEvent => ({
  type: "progress",
  progress: { propertyId, adapter: "sqlite", runsDone, runsTotal, phase: "generating" }
})

const done = (propertyId: string, runs: number, durationMs: number): ConformanceEvent => ({
  type: "property-done",
  run: { propertyId, subject: "adapter", adapter: "sqlite", seed: 1, runsRequested: runs, runsExecuted: runs, durationMs, covered: {}, verdict: "pass" } as PropertyRun
})

describe("progress heartbeat", () => {
  it("shows the running property's own elapsed time, not the time since the run started", () => {
    let nowMs = 0
    const { io, read } = capture()
    const onEvent = progressPrinter(io, { quiet: false, now: () => nowMs })
    onEvent({ type: "adapter-start", adapter: "sqlite", index: 0, total: 1 })
    onEvent(progress("adapter/first", 1))
    nowMs = 40_000
    onEvent(done("adapter/first", 200, 40_000))
    onEvent(progress("adapter/second", 1))
    nowMs = 56_100
    onEvent(progress("adapter/second", 71))
    const heartbeat = read().split("\n").find((line) => line.includes("adapter/second x sqlite: 71/200 runs"))
    expect(heartbeat).toBe("  adapter/second x sqlite: 71/200 runs, 16.1 s")
  })

  it("redraws on a terminal with the property's own time", () => {
    let nowMs = 1_000
    const { io, read } = capture(true)
    const onEvent = progressPrinter(io, { quiet: false, now: () => nowMs })
    onEvent({ type: "adapter-start", adapter: "sqlite", index: 0, total: 1 })
    nowMs = 31_000
    onEvent(progress("adapter/first", 1))
    nowMs = 33_500
    onEvent(progress("adapter/first", 2))
    expect(read()).toContain("adapter/first x sqlite: 2/200 runs, 2.5 s")
  })
})

describe("progress of adapters side by side", () => {
  it("keeps each running property's own elapsed time when their events interleave", () => {
    let nowMs = 0
    const { io, read } = capture()
    const onEvent = progressPrinter(io, { quiet: false, now: () => nowMs })
    const on = (adapter: string, runsDone: number): ConformanceEvent => ({
      type: "progress",
      progress: { propertyId: "alarms/model", adapter, runsDone, runsTotal: 60, phase: "generating" }
    })
    onEvent({ type: "adapter-start", adapter: "sqlite", index: 0, total: 2 })
    onEvent({ type: "adapter-start", adapter: "pglite", index: 1, total: 2 })
    onEvent(on("sqlite", 1))
    nowMs = 5_000
    onEvent(on("pglite", 1))
    nowMs = 20_000
    onEvent(on("sqlite", 30))
    nowMs = 40_000
    onEvent(on("pglite", 20))
    const lines = read().split("\n")
    expect(lines).toContain("  alarms/model x sqlite: 30/60 runs, 20.0 s")
    expect(lines).toContain("  alarms/model x pglite: 20/60 runs, 35.0 s")
  })
})

describe("certify progress", () => {
  it("names the seed running on each adapter line", () => {
    const { io, read } = capture()
    const onEvent = progressPrinter(io, { quiet: false, seeds: [1, 2, 3] })
    for (let seed = 0; seed < 3; seed++) {
      onEvent({ type: "adapter-start", adapter: "vendor", index: 0, total: 1 })
      onEvent(done("adapter/transactions", 200, 10))
    }
    const adapterLines = read().split("\n").filter((line) => line.startsWith("adapter "))
    expect(adapterLines).toEqual(["adapter vendor (1/1), seed 1/3", "adapter vendor (1/1), seed 2/3", "adapter vendor (1/1), seed 3/3"])
  })

  it("says nothing about seeds in a plain run", () => {
    const { io, read } = capture()
    progressPrinter(io, { quiet: false })({ type: "adapter-start", adapter: "sqlite", index: 0, total: 2 })
    expect(read()).toBe("adapter sqlite (1/2)\n")
  })
})

describe("progress plurals", () => {
  it("writes 1 run, not 1 runs", () => {
    const { io, read } = capture()
    progressPrinter(io, { quiet: false })(done("adapter/transactions", 1, 12))
    expect(read()).toBe("  adapter/transactions x sqlite: pass (1/1 run, 0.0 s)\n")
  })
})
