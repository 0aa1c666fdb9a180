/**
 * Where the CLI writes: injected so tests run commands in-process and read exactly what a user sees.
 */

/** Output streams and environment of one CLI invocation. */
export interface CliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /** True when stderr is a terminal (progress lines are redrawn in place). */
  readonly interactive: boolean
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
}

/** The real process streams. */
export const processIo = (): CliIo => ({
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  interactive: process.stderr.isTTY === true,
  env: process.env,
  cwd: process.cwd()
})

/** Exit codes: 0 all requirements pass, 1 a requirement failed or was not shown to hold, 2 usage or adapter error. */
export const ExitCode = { ok: 0, requirementFailed: 1, usageOrAdapterError: 2 } as const
