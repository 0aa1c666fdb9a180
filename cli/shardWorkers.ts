/**
 * `run --workers N`: the cores of one machine. The run is split into N shards (`harness/Shard.ts`),
 * each run by `durable-conformance run --shard k/N` in its own child process (so each has its own
 * databases, embedded Postgres server and workerd), and the shard reports are merged in this process
 * (`merge-reports`' code): the report is the one `--workers 1` writes, apart from wall-clock fields.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Effect } from "effect"
import type { ConformanceReport } from "../harness/RunResult.ts"
import { mergeShardFiles } from "./commands/mergeReports.ts"
import type { CliIo } from "./io.ts"
import { type RunOptions, UsageError } from "./options.ts"

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url))
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href

/** Most stderr characters kept per worker, for the error line when it wrote no report. */
const MAX_STDERR_CHARS = 4_000

/** The `run` flags that make one worker's shard of `options`. */
export const workerArguments = (options: RunOptions, shard: string, outDir: string): ReadonlyArray<string> => [
  "run",
  "--adapter", options.adapters.join(","),
  ...(options.subjects === undefined ? [] : ["--subject", options.subjects.join(",")]),
  ...(options.implementation === undefined ? [] : ["--implementation", options.implementation]),
  "--runs", String(options.runs),
  `--seed=${options.seed}`,
  ...(options.timeLimitMsPerProperty === undefined ? [] : ["--time-limit", String(options.timeLimitMsPerProperty)]),
  ...(options.runTimeoutMs === undefined ? [] : ["--run-timeout", String(options.runTimeoutMs)]),
  ...(options.checkDeterminism ? ["--check-determinism"] : []),
  "--shard", shard,
  "--out", outDir,
  "--quiet"
]

/** The arguments of one worker: quiet only when the run is (a worker's progress is relayed, prefixed). */
const workerCommandLine = (options: RunOptions, shard: string, outDir: string): ReadonlyArray<string> => {
  const args = workerArguments(options, shard, outDir)
  return options.quiet ? args : args.filter((arg) => arg !== "--quiet")
}

interface WorkerExit {
  readonly code: number
  readonly stderr: string
}

/**
 * Starts one worker; resolves when it exits. The returned child is killed if the run is interrupted.
 * `relay`, when given, receives each complete line the worker writes to stderr (its progress).
 */
const startWorker = (
  args: ReadonlyArray<string>,
  io: CliIo,
  relay?: (line: string) => void
): { readonly child: ChildProcess; readonly exited: Promise<WorkerExit> } => {
  // Each worker writes its own report; only the merged one goes to the step summary.
  const env = { ...io.env, GITHUB_STEP_SUMMARY: "" }
  const child = spawn(process.execPath, ["--import", TSX_LOADER, MAIN, ...args], { cwd: io.cwd, env, stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  let partialLine = ""
  child.stderr?.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8")
    // The last characters are kept: the error line a worker dies with comes last.
    stderr = (stderr + text).slice(-MAX_STDERR_CHARS)
    if (relay === undefined) return
    const lines = (partialLine + text).split("\n")
    partialLine = (lines.pop() ?? "").slice(-MAX_STDERR_CHARS)
    lines.forEach(relay)
  })
  const exited = new Promise<WorkerExit>((done) => {
    child.on("error", (error) => done({ code: -1, stderr: `${stderr}${error.message}` }))
    child.on("close", (code) => {
      if (relay !== undefined && partialLine !== "") relay(partialLine)
      done({ code: code ?? -1, stderr })
    })
  })
  return { child, exited }
}

const lastLine = (text: string): string => text.trim().split("\n").at(-1) ?? ""

/**
 * Runs `options` as `options.workers` shards in child processes and merges their reports. A worker
 * that wrote no report (a usage error, a crash) fails the run with its last stderr line.
 */
export const runWorkers = (options: RunOptions, io: CliIo): Effect.Effect<ConformanceReport, UsageError> =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "durable-conformance-workers-"))),
    (folder) =>
      Effect.gen(function*() {
        const count = options.workers ?? 1
        const outDirs = Array.from({ length: count }, (_, i) => join(folder, `shard-${i + 1}`))
        const workers = outDirs.map((outDir, i) => {
          const shard = `${i + 1}/${count}`
          const relay = options.quiet ? undefined : (line: string) => io.stderr(`[worker ${shard}] ${line}\n`)
          return startWorker(workerCommandLine(options, shard, outDir), io, relay)
        })
        if (!options.quiet) io.stderr(`durable-conformance: ${count} workers started (run --shard k/${count} each)\n`)
        const exits = yield* Effect.promise(() => Promise.all(workers.map((worker) => worker.exited))).pipe(
          Effect.onInterrupt(() => Effect.sync(() => workers.forEach((worker) => worker.child.kill())))
        )
        const reports = outDirs.map((outDir) => join(outDir, "report.json"))
        for (const [i, exit] of exits.entries()) {
          if (exit.code === 2 && !options.quiet) io.stderr(`durable-conformance: worker ${i + 1}/${count}: ${lastLine(exit.stderr)}\n`)
          if (!existsSync(reports[i]!)) {
            return yield* new UsageError({
              message: `worker ${i + 1}/${count} wrote no report (exit ${exit.code}): ${lastLine(exit.stderr)}`,
              hint: `run it alone to see why: durable-conformance ${workerArguments(options, `${i + 1}/${count}`, "DIR").join(" ")}`
            })
          }
        }
        return yield* mergeShardFiles(reports, { ...io, cwd: folder }, true)
      }),
    (folder) => Effect.sync(() => rmSync(folder, { recursive: true, force: true }))
  )
