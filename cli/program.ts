/**
 * The `durable-conformance` command, declared with effect/cli (`Command`, `Flag`, `Argument`): every
 * command has `--help`, and the root has `--version` and `--completions <shell>`. The one rule for
 * errors: a usage or known error prints one line (what went wrong, then what to do) on stderr and
 * exits 2; `--verbose` adds the stack. Exit codes: 0 all requirements pass, 1 a requirement failed or
 * was not shown to hold, 2 usage or adapter error.
 */
import { Cause, Context, Effect, Exit, Option } from "effect"
import { CliConfig, CliError, CliOutput, Command, GlobalFlag } from "effect/cli"
import { HARNESS_VERSION, SUITE_VERSION } from "../harness/SuiteVersion.ts"
import { certifyCommand, verifyCertificateCommand } from "./commands/certify.ts"
import { listCommand } from "./commands/list.ts"
import { mergeReportsCommand, mergeReportsFlags } from "./commands/mergeReports.ts"
import { replayCommand } from "./commands/replay.ts"
import { runCommand } from "./commands/run.ts"
import { type CliIo, ExitCode } from "./io.ts"
import { certifyFlags, certifyOptionsFrom, DEFAULT_OUT_DIR, listFlags, replayFlags, replayOptionsFrom, runFlags, runOptionsFrom, verifyCertificateFlags } from "./options.ts"
import { cliPlatformLayer } from "./platform.ts"
import { describeCliError } from "./usageErrors.ts"

/** The invocation a command handler runs in: where it writes, and where its exit code goes. */
export interface CliSession {
  readonly io: CliIo
  readonly setExitCode: (code: number) => void
}

/** The current invocation's `CliSession`. */
export const CliSession = Context.Service<CliSession, CliSession>("durable-conformance/cli/CliSession")

/** The executable's name, as completion scripts and help show it. */
export const COMMAND_NAME = "durable-conformance"

/** `--version` prints the harness version and the suite version. */
export const VERSION = `${HARNESS_VERSION} (suite ${SUITE_VERSION})`

const finish = <E, R>(body: (io: CliIo) => Effect.Effect<number, E, R>) =>
  Effect.gen(function*() {
    const session = yield* CliSession
    session.setExitCode(yield* body(session.io))
  })

const list = Command.make("list", listFlags, (flags) => finish((io) => listCommand(flags, io))).pipe(
  Command.withShortDescription("requirements with the properties that check them; built-in adapters"),
  Command.withDescription("the requirements by subject, each with the properties that check it, and the built-in adapters with their capabilities"),
  Command.withExamples([{ command: "durable-conformance list --json", description: "the catalog as JSON for tools" }])
)

const run = Command.make("run", runFlags, (flags) => finish((io) => Effect.flatMap(runOptionsFrom(flags), (options) => runCommand(options, io)))).pipe(
  Command.withShortDescription("the conformance gate; writes the reports"),
  Command.withDescription(
    "the conformance gate: every requirement of the chosen subjects on the chosen adapters; writes report.json, report.md, report.html and junit.xml; exit 0 all pass, 1 a requirement failed or was not shown to hold, 2 usage or adapter error"
  ),
  Command.withExamples([
    { command: "durable-conformance run --adapter sqlite --subject adapter --runs 20", description: "the adapter contract on sqlite, 20 scenarios per property" },
    { command: "durable-conformance run --implementation ./their-alarms.ts --adapter sqlite,do-sqlite", description: "a third-party alarms implementation" }
  ])
)

const replay = Command.make("replay", replayFlags, (flags) => finish((io) => replayCommand(replayOptionsFrom(flags), io))).pipe(
  Command.withShortDescription("re-runs one failure exactly, optionally step by step"),
  Command.withDescription("re-runs one failure exactly, from its token or a report.json; exit 1 when it reproduces, 0 when it no longer does"),
  Command.withExamples([{ command: "durable-conformance replay conformance-report/report.json --step", description: "the report's first failure, step by step" }])
)

const certify = Command.make("certify", certifyFlags, (flags) => finish((io) => Effect.flatMap(certifyOptionsFrom(flags), (options) => certifyCommand(options, io)))).pipe(
  Command.withShortDescription("certifies an adapter or an implementation at the fixed budget"),
  Command.withDescription(
    "certifies an adapter (or, with --implementation, an implementation): the adapter contract and every subject at the fixed budget and seeds; writes certificate.json and certificate.html; refuses --subject, --runs, --seed, --time-limit and --requirement"
  ),
  Command.withExamples([
    { command: "durable-conformance certify --adapter ./their-adapter.ts", description: "an adapter certificate" },
    { command: "durable-conformance certify --implementation ./their-alarms.ts --adapter sqlite", description: "an implementation certificate" }
  ])
)

const verifyCertificate = Command.make("verify-certificate", verifyCertificateFlags, (flags) => finish((io) => verifyCertificateCommand([flags.file], io))).pipe(
  Command.withShortDescription("checks a certificate against this suite"),
  Command.withDescription("checks a certificate against this suite: exit 0 when valid (and says whether it is conformant), 1 when not")
)

const mergeReports = Command.make("merge-reports", mergeReportsFlags, (flags) =>
  finish((io) => mergeReportsCommand({ reports: flags.reports, outDir: Option.getOrElse(flags.out, () => DEFAULT_OUT_DIR), quiet: flags.quiet }, io))).pipe(
  Command.withShortDescription("joins the reports of run --shard k/n into the unsharded run's report"),
  Command.withDescription(
    "joins the report.json of every shard (run --shard k/n) into the report the unsharded run with the same seed and budget writes; writes report.json, report.md, report.html and junit.xml; exit codes as run"
  ),
  Command.withExamples([{ command: "durable-conformance merge-reports --out merged shard-1/report.json shard-2/report.json", description: "two shards merged" }])
)

/** The whole command tree (also what shell completions are generated from). */
export const rootCommand = Command.make(COMMAND_NAME).pipe(
  Command.withDescription(
    "a deterministic conformance harness for durable scheduling primitives.\n  Run durable-conformance <command> --help for a command's flags. Exit codes: 0 every requirement passes\n  or does not apply, 1 a requirement failed or was not shown to hold, 2 usage or adapter error."
  ),
  Command.withExamples([
    { command: "durable-conformance run", description: "the gate on the built-in adapters" },
    { command: "durable-conformance --completions bash > ~/.local/share/bash-completion/completions/durable-conformance", description: "shell completions (bash, zsh, fish, powershell)" }
  ]),
  Command.withSubcommands([list, run, replay, certify, verifyCertificate, mergeReports])
)

/** The built-in global flags kept: `--help`/`-h`, `--version` and `--completions` (no wizard, no log level). */
export const BUILT_IN_FLAGS = [GlobalFlag.Help, GlobalFlag.Version, GlobalFlag.Completions] as const

/** Prints help and version on stdout, and an invalid invocation as one line on stderr. */
const presenter = (io: CliIo): CliOutput.Presenter => {
  const formatter = CliOutput.defaultFormatter({ colors: false })
  return {
    present: (event) =>
      Effect.sync(() => {
        switch (event._tag) {
          case "Help":
            return io.stdout(`${formatter.formatHelpDoc(event.helpDoc)}\n`)
          case "Version":
            return io.stdout(`${event.name} ${VERSION}\n`)
          case "InvalidInvocation": {
            const line = describeCliError(event.errors[0]!, event.commandPath, event.helpDoc.usage)
            return io.stderr(`${COMMAND_NAME}: ${line.message} — ${line.hint}\n`)
          }
        }
      })
  }
}

/** `help` and `help <command>` are `--help` and `<command> --help`. */
const normalizeArgv = (argv: ReadonlyArray<string>): ReadonlyArray<string> => (argv[0] === "help" ? [...argv.slice(1), "--help"] : argv)

const KNOWN_ERRORS = new Set(["UsageError", "AdapterError", "InvalidOptionsError", "HarnessError", "ReplayTokenError", "CertificateError"])

const describeKnown = (error: unknown): { message: string; hint: string } | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const tagged = error as { _tag?: unknown; message?: unknown; hint?: unknown }
  if (typeof tagged._tag !== "string" || !KNOWN_ERRORS.has(tagged._tag)) return undefined
  return { message: String(tagged.message), hint: typeof tagged.hint === "string" ? tagged.hint : "" }
}

/** The exit code of a failed invocation, after printing its one line. */
const reportFailure = (cause: Cause.Cause<unknown>, io: CliIo, verbose: boolean): number => {
  const error = Cause.squash(cause)
  // effect/cli already printed it: help for a bare `durable-conformance`, or the one-line usage error.
  if (CliError.isCliError(error)) return ExitCode.usageOrAdapterError
  const known = describeKnown(error)
  if (known !== undefined) {
    io.stderr(`${COMMAND_NAME}: ${known.message}${known.hint === "" ? "" : ` — ${known.hint}`}\n`)
    if (verbose && error instanceof Error && error.stack !== undefined) io.stderr(`${error.stack}\n`)
    return ExitCode.usageOrAdapterError
  }
  io.stderr(`${COMMAND_NAME}: internal error: ${error instanceof Error ? error.message : String(error)} — rerun with --verbose and report it\n`)
  if (verbose) io.stderr(`${Cause.pretty(cause)}\n`)
  return ExitCode.usageOrAdapterError
}

/** Runs the command line `argv` (without node and script) and returns the exit code. */
export const main = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  // Help, --version and --completions run no handler: they exit 0.
  let code: number = ExitCode.ok
  const session: CliSession = { io, setExitCode: (value) => void (code = value) }
  const args = normalizeArgv(argv)
  const program = Command.runWith(rootCommand, { version: VERSION })(args).pipe(
    Effect.provideService(CliSession, session),
    Effect.provideService(CliOutput.Presenter, presenter(io)),
    Effect.provideService(CliConfig.CliConfig, CliConfig.make({ builtIns: BUILT_IN_FLAGS })),
    Effect.provide(cliPlatformLayer(io, args))
  )
  const exit = await Effect.runPromiseExit(program)
  return Exit.isSuccess(exit) ? code : reportFailure(exit.cause, io, argv.includes("--verbose"))
}
