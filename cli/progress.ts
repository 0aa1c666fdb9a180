/**
 * Progress output for long runs, on stderr: subject x adapter, runs done / total, elapsed time.
 * On a terminal the line is redrawn in place; in CI logs a line is printed when a property finishes
 * and at most every `HEARTBEAT_MS` while one runs. `--quiet` prints nothing here.
 */
import type { ConformanceEvent } from "../harness/Conformance.ts"
import type { CliIo } from "./io.ts"

/** How often a non-interactive log gets a "still running" line. */
export const HEARTBEAT_MS = 15_000

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

/** Builds the event handler that prints progress; returns a no-op when quiet. */
export const progressPrinter = (io: CliIo, options: { readonly quiet: boolean; readonly now?: () => number }): ((event: ConformanceEvent) => void) => {
  if (options.quiet) return () => {}
  const now = options.now ?? Date.now
  const startedMs = now()
  let lastHeartbeatMs = startedMs
  let redrawn = false
  const clear = () => {
    if (redrawn) io.stderr("\r\x1b[2K")
    redrawn = false
  }
  return (event) => {
    switch (event.type) {
      case "adapter-start":
        clear()
        io.stderr(`adapter ${event.adapter} (${event.index + 1}/${event.total})\n`)
        return
      case "progress": {
        const { progress } = event
        const line = `  ${progress.propertyId} x ${progress.adapter}: ${progress.phase === "shrinking" ? `shrinking a failure${progress.requirementId === undefined ? "" : ` of ${progress.requirementId}`}` : `${progress.runsDone}/${progress.runsTotal} runs`}, ${seconds(now() - startedMs)}`
        if (io.interactive) {
          io.stderr(`\r\x1b[2K${line}`)
          redrawn = true
        } else if (now() - lastHeartbeatMs >= HEARTBEAT_MS) {
          lastHeartbeatMs = now()
          io.stderr(`${line}\n`)
        }
        return
      }
      case "property-done": {
        clear()
        const { run } = event
        const detail = run.verdict === "fail"
          ? ` -> ${run.counterexamples.map((cx) => `${cx.divergence.requirementId} after ${cx.runsToDetect} runs`).join(", ")}`
          : run.verdict === "error" ? ` -> ${run.error.message}` : ""
        io.stderr(`  ${run.propertyId} x ${run.adapter}: ${run.verdict} (${run.runsExecuted}/${run.runsRequested} runs, ${seconds(run.durationMs)})${detail}\n`)
        return
      }
      case "adapter-done":
        clear()
        return
    }
  }
}
