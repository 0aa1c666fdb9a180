/**
 * Progress output for long runs, on stderr: subject x adapter, runs done / total, and the property's own
 * elapsed time (the same clock as the final `pass (200/200 runs, 3.8 s)` line). On a terminal the line
 * is redrawn in place; in CI logs a line is printed when a property finishes and at most every
 * `HEARTBEAT_MS` while one runs. `--quiet` prints nothing here. `certify`, which runs the same adapter
 * once per fixed seed, passes its seeds so each adapter line says which seed runs (`seed 2/3`).
 */
import type { ConformanceEvent } from "../harness/Conformance.ts"
import type { RunProgress } from "../harness/Runner.ts"
import type { CliIo } from "./io.ts"
import { ofTotal, plural } from "./wording.ts"

/** How often a non-interactive log gets a "still running" line. */
export const HEARTBEAT_MS = 15_000

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

/** Options of `progressPrinter`. */
export interface ProgressOptions {
  readonly quiet: boolean
  /** Wall clock in ms (tests pass a fake one). */
  readonly now?: () => number
  /**
   * The seeds of a run that calls `runConformance` once per seed, in order, with this one printer
   * (`certify`): the adapter lines then name the seed running. Each `runConformance` starts every
   * adapter once, so the adapter starts seen so far tell which seed is running.
   */
  readonly seeds?: ReadonlyArray<number>
}

const progressLine = (progress: RunProgress, elapsedMs: number): string => {
  const phase = progress.phase === "shrinking"
    ? `shrinking a failure${progress.requirementId === undefined ? "" : ` of ${progress.requirementId}`}`
    : ofTotal(progress.runsDone, progress.runsTotal, "run")
  return `  ${progress.propertyId} x ${progress.adapter}: ${phase}, ${seconds(elapsedMs)}`
}

const doneLine = (event: Extract<ConformanceEvent, { type: "property-done" }>): string => {
  const { run } = event
  const detail = run.verdict === "fail"
    ? ` -> ${run.counterexamples.map((cx) => `${cx.divergence.requirementId} after ${plural(cx.runsToDetect, "run")}`).join(", ")}`
    : run.verdict === "error" ? ` -> ${run.error.message}` : ""
  return `  ${run.propertyId} x ${run.adapter}: ${run.verdict} (${ofTotal(run.runsExecuted, run.runsRequested, "run")}, ${seconds(run.durationMs)})${detail}\n`
}

/** Builds the event handler that prints progress; returns a no-op when quiet. */
export const progressPrinter = (io: CliIo, options: ProgressOptions): ((event: ConformanceEvent) => void) => {
  if (options.quiet) return () => {}
  const now = options.now ?? Date.now
  let lastHeartbeatMs = now()
  let adapterStarts = 0
  // The properties running now (`property@adapter`; several when adapters run side by side) and when
  // each one's first progress event arrived. Bounded: an entry leaves when its property is done.
  const startedMsByKey = new Map<string, number>()
  let redrawn = false
  const clear = () => {
    if (redrawn) io.stderr("\r\x1b[2K")
    redrawn = false
  }
  return (event) => {
    switch (event.type) {
      case "adapter-start": {
        clear()
        const seeds = options.seeds
        const seed = seeds === undefined || seeds.length === 0 ? "" : `, seed ${Math.min(Math.floor(adapterStarts / event.total), seeds.length - 1) + 1}/${seeds.length}`
        adapterStarts++
        io.stderr(`adapter ${event.adapter} (${event.index + 1}/${event.total})${seed}\n`)
        return
      }
      case "progress": {
        const key = `${event.progress.propertyId}@${event.progress.adapter}`
        const startedMs = startedMsByKey.get(key) ?? now()
        startedMsByKey.set(key, startedMs)
        const line = progressLine(event.progress, now() - startedMs)
        if (io.interactive) {
          io.stderr(`\r\x1b[2K${line}`)
          redrawn = true
        } else if (now() - lastHeartbeatMs >= HEARTBEAT_MS) {
          lastHeartbeatMs = now()
          io.stderr(`${line}\n`)
        }
        return
      }
      case "property-done":
        clear()
        startedMsByKey.delete(`${event.run.propertyId}@${event.run.adapter}`)
        io.stderr(doneLine(event))
        return
      case "adapter-done":
        clear()
        return
    }
  }
}
