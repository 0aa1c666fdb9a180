/** Runs the CLI in-process with captured output. */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { CliIo } from "../../cli/io.ts"
import { main } from "../../cli/program.ts"

/** What one CLI invocation printed and returned. */
export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly cwd: string
}

/** A fresh temp folder as the working directory. */
export const scratchDir = (): string => mkdtempSync(join(tmpdir(), "dc-cli-"))

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
