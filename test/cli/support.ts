/** Runs the CLI in-process with captured output. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import type { CliIo } from "../../cli/io.ts"
import { main } from "../../cli/program.ts"

/** What one CLI invocation printed and returned. */
export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly cwd: string
}

/** Temp folders made by this test file, removed when it ends (bounded by the file's invocations). */
const scratchDirs: Array<string> = []

afterAll(() => {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A fresh temp folder as the working directory; removed after the test file. */
export const scratchDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "dc-cli-"))
  scratchDirs.push(dir)
  return dir
}

/** Runs `durable-conformance ...argv` in-process. */
export const runCli = async (argv: ReadonlyArray<string>, options: { readonly cwd?: string; readonly env?: Record<string, string | undefined> } = {}): Promise<CliResult> => {
  let stdout = ""
  let stderr = ""
  const cwd = options.cwd ?? scratchDir()
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    interactive: false,
    env: options.env ?? {},
    cwd
  }
  const code = await main(argv, io)
  return { code, stdout, stderr, cwd }
}
