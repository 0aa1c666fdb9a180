/**
 * Runs the installed command (`node bin/durable-conformance.mjs`) as a real process, and a printed
 * command line through a real shell, for tests that must not load modules through vitest.
 */
import { execFile } from "node:child_process"
import { resolve } from "node:path"

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, "../..")

/** The fixture vendor packages. */
export const PACKAGES = resolve(import.meta.dirname, "fixtures/packages")

/** The installed command's entry point. */
export const BIN = resolve(ROOT, "bin/durable-conformance.mjs")

/** What one process printed and how it exited. */
export interface ProcessResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const collect = (file: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv): Promise<ProcessResult> =>
  new Promise((done) => {
    execFile(file, [...args], { cwd, env, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
      done({ code, stdout, stderr })
    })
  })

/** Runs `durable-conformance ...args` in `cwd` (default the repository root). */
export const runBin = (args: ReadonlyArray<string>, cwd: string = ROOT): Promise<ProcessResult> =>
  collect(process.execPath, [BIN, ...args], cwd, process.env)

/**
 * Runs a command line exactly as a report printed it (`npx durable-conformance replay …`) through
 * `sh -c`, with `npx durable-conformance` standing for the installed command.
 */
export const runPrinted = (commandLine: string, cwd: string = ROOT): Promise<ProcessResult> => {
  const prefix = "npx durable-conformance "
  if (!commandLine.startsWith(prefix)) throw new Error(`not a durable-conformance command: ${commandLine}`)
  const shellCommand = `"${process.execPath}" "${BIN}" ${commandLine.slice(prefix.length)}`
  return collect("/bin/sh", ["-c", shellCommand], cwd, process.env)
}
