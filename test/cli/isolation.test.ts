/**
 * Vendor adapter modules run in a child process the CLI kills: every hang shape (in `make`, `open`, a
 * scenario's close or the adapter's close; interruptible, uninterruptible or a busy loop; with and
 * without a live handle) ends with verdict `error` naming the adapter and the phase, the reports
 * written, and exit 2. The installed command also exits (no silent exit 13, no process kept alive).
 */
import { execFile } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { readReport } from "../../reports/json.ts"
import { runCli, scratchDir } from "./support.ts"

const fixtures = resolve(import.meta.dirname, "fixtures")
const root = resolve(import.meta.dirname, "../..")
const hanging = join(fixtures, "hanging-adapter.ts")

/** Small limits keep each case to a few seconds: scenario phases 500 ms, make and close 3 s. */
const RUN_TIMEOUT_MS = "500"

const PHASE_IN_MESSAGE = { make: "hung in make", open: "hung in open", close: "hung in close", release: "hung in close" } as const

type Phase = keyof typeof PHASE_IN_MESSAGE

const hangArgs = ["run", "--adapter", hanging, "--subject", "adapter", "--runs", "2", "--run-timeout", RUN_TIMEOUT_MS, "--out", "out", "--quiet"]

const expectHangReported = (phase: Phase, stdout: string, cwd: string) => {
  expect(stdout).toContain(`adapter hanging-${phase} ${PHASE_IN_MESSAGE[phase]}`)
  for (const file of ["report.json", "report.md", "report.html", "junit.xml"]) expect(existsSync(join(cwd, "out", file)), file).toBe(true)
  const report = readReport(readFileSync(join(cwd, "out", "report.json"), "utf8"))
  expect(report.summary.error).toBeGreaterThan(0)
  expect(report.adapters[0]!.fingerprint.name).toBe(`hanging-${phase}`)
}

describe.concurrent("a vendor adapter module that hangs", () => {
  for (const phase of ["make", "open", "close", "release"] as const) {
    for (const kind of ["interruptible", "uninterruptible", "busy"] as const) {
      for (const handle of [false, true]) {
        it(`in ${phase}, ${kind}, ${handle ? "with" : "without"} a live handle: error naming the phase, reports, exit 2`, async () => {
          const startedMs = Date.now()
          const env = { HANG_PHASE: phase, HANG_KIND: kind, ...(handle ? { HANG_HANDLE: "1" } : {}) }
          const result = await runCli(hangArgs, { env })
          expect(result.code, result.stderr).toBe(2)
          expectHangReported(phase, result.stdout, result.cwd)
          expect(result.stdout).not.toContain("internal error")
          // The child's start (tsx, the suite) plus one deadline, never one per property.
          expect(Date.now() - startedMs).toBeLessThan(60_000)
        })
      }
    }
  }
})

describe("after a vendor adapter hung once", () => {
  for (const kind of ["interruptible", "busy"] as const) {
    it(`ends its remaining properties at once, saying so (${kind} hang in open)`, async () => {
      const result = await runCli(hangArgs, { env: { HANG_PHASE: "open", HANG_KIND: kind } })
      expect(result.code).toBe(2)
      const report = readReport(readFileSync(join(result.cwd, "out", "report.json"), "utf8"))
      const errors = report.adapters[0]!.properties.flatMap((run) => (run.verdict === "error" ? [run] : []))
      expect(errors.length).toBeGreaterThan(5)
      expect(errors[0]!.error.message).toContain("adapter hanging-open hung in open")
      for (const run of errors.slice(1)) {
        expect(run.error.message).toMatch(/^not run: adapter hanging-open already hung in open during adapter\/transactions/)
        expect(run.durationMs).toBeLessThan(1_000)
      }
    })
  }
})

describe("the installed command with a hanging vendor adapter", () => {
  const exec = promisify(execFile)
  const runInstalled = (env: Record<string, string>) => {
    const cwd = scratchDir()
    return exec(process.execPath, [join(root, "bin/durable-conformance.mjs"), ...hangArgs], { cwd, env: { ...process.env, ...env }, timeout: 90_000 })
      .then(() => ({ code: 0, stdout: "", stderr: "", cwd }), (failure: { code: number | null; stdout: string; stderr: string; killed?: boolean }) => ({ ...failure, cwd }))
  }

  // Today's symptoms: an uninterruptible hang with no live handle exits 13 and prints nothing; with a
  // live handle (or a busy loop) the process never ends.
  const shapes: ReadonlyArray<readonly [Phase, string, boolean]> = [
    ["open", "uninterruptible", false],
    ["make", "uninterruptible", true],
    ["close", "busy", true]
  ]
  for (const [phase, kind, handle] of shapes) {
    it(`exits 2 with the summary for a ${kind} hang in ${phase} ${handle ? "with" : "without"} a live handle`, async () => {
      const result = await runInstalled({ HANG_PHASE: phase, HANG_KIND: kind, ...(handle ? { HANG_HANDLE: "1" } : {}) })
      expect(result.code, result.stderr).toBe(2)
      expectHangReported(phase, result.stdout, result.cwd)
    })
  }
})
