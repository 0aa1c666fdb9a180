/**
 * The `durable-conformance` command: dispatch, and the one rule for errors: a known error prints one
 * line (what went wrong, then what to do) and exits 2; `--verbose` adds the stack.
 */
import { Cause, Effect, Exit } from "effect"
import { listCommand } from "./commands/list.ts"
import { runCommand } from "./commands/run.ts"
import { replayCommand } from "./commands/replay.ts"
import { certifyCommand, verifyCertificateCommand } from "./commands/certify.ts"
import { type CliIo, ExitCode } from "./io.ts"

/** Usage text of `durable-conformance help`. */
export const USAGE = `durable-conformance: a deterministic conformance harness for durable scheduling primitives

Usage:
  durable-conformance list [--json]
      requirements by subject, built-in adapters and their capabilities
  durable-conformance run [--adapter sqlite,pglite,postgres,do-sqlite | --adapter ./mine.ts] [--subject alarms]
                          [--implementation ./their-alarms.ts]
                          [--runs N] [--seed S] [--out DIR] [--time-limit MS] [--run-timeout MS] [--quiet] [--verbose]
      the conformance gate; writes report.json, report.md, report.html and junit.xml into DIR;
      --implementation binds a third-party alarms implementation in place of the shipped one
  durable-conformance replay <token | report.json> [--step] [--requirement ID]
      re-runs one failure exactly; --step prints model and implementation state side by side
  durable-conformance certify --adapter ./their-adapter.ts [--out DIR]
      the adapter contract and every subject at the fixed budget; writes certificate.json and certificate.html
  durable-conformance certify --implementation ./their-alarms.ts [--adapter sqlite] [--out DIR]
      an implementation certificate: that alarms implementation (and the adapter contract) at the fixed budget
  durable-conformance verify-certificate <certificate.json>
      checks a certificate against this suite

Exit codes: 0 all requirements pass, 1 a requirement failed or was not shown to hold, 2 usage or adapter error.
`

const KNOWN_ERRORS = new Set(["UsageError", "AdapterError", "InvalidOptionsError", "HarnessError", "ReplayTokenError", "CertificateError"])

const describeKnown = (error: unknown): { message: string; hint: string } | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const tagged = error as { _tag?: unknown; message?: unknown; hint?: unknown }
  if (typeof tagged._tag !== "string" || !KNOWN_ERRORS.has(tagged._tag)) return undefined
  return { message: String(tagged.message), hint: typeof tagged.hint === "string" ? tagged.hint : "" }
}

/** Runs the command line `argv` (without node and script) and returns the exit code. */
export const main = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  const [command, ...rest] = argv
  const verbose = rest.includes("--verbose")
  const program: Effect.Effect<number, unknown> = (() => {
    switch (command) {
      case "list":
        return listCommand(rest, io)
      case "run":
        return runCommand(rest, io)
      case "replay":
        return replayCommand(rest, io)
      case "certify":
        return certifyCommand(rest, io)
      case "verify-certificate":
        return verifyCertificateCommand(rest, io)
      case undefined:
      case "help":
      case "--help":
      case "-h":
        return Effect.sync(() => {
          io.stdout(USAGE)
          return command === undefined ? ExitCode.usageOrAdapterError : ExitCode.ok
        })
      default:
        return Effect.sync(() => {
          io.stderr(`durable-conformance: unknown command "${command}" — run durable-conformance help\n`)
          return ExitCode.usageOrAdapterError
        })
    }
  })()
  const exit = await Effect.runPromiseExit(program)
  if (Exit.isSuccess(exit)) return exit.value
  const error = Cause.squash(exit.cause)
  const known = describeKnown(error)
  if (known !== undefined) {
    io.stderr(`durable-conformance: ${known.message}${known.hint === "" ? "" : ` — ${known.hint}`}\n`)
    if (verbose && error instanceof Error && error.stack !== undefined) io.stderr(`${error.stack}\n`)
    return ExitCode.usageOrAdapterError
  }
  io.stderr(`durable-conformance: internal error: ${error instanceof Error ? error.message : String(error)} — rerun with --verbose and report it\n`)
  if (verbose) io.stderr(`${Cause.pretty(exit.cause)}\n`)
  return ExitCode.usageOrAdapterError
}
