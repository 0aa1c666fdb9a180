/**
 * The platform services effect/cli asks for (`Command.Environment`: FileSystem, Path, Terminal,
 * ChildProcessSpawner, Stdio), built here from effect's own portable pieces and the injected `CliIo`.
 *
 * Why not `@effect/platform-node`: its 4.1.0 release pulls undici 8, which throws on import under
 * Node 20 (the engines floor). The command uses only string, integer and boolean flags and never
 * prompts, so effect/cli needs these services to exist but reads none of them while parsing; each
 * stub says so if a future flag type ever does. Output (help, version, completion scripts and
 * effect/cli's own `Console` calls) goes through `CliIo`, so tests read exactly what a user sees.
 */
import { formatWithOptions } from "node:util"
import { Console, Effect, FileSystem, Layer, Path, Sink, Stdio, Stream, Terminal } from "effect"
import { ChildProcessSpawner } from "effect/process"
import type { CliIo } from "./io.ts"

const unavailable = (what: string) => Effect.die(`durable-conformance does not use ${what}; a CLI flag type that needs it was added without a platform service for it (cli/platform.ts)`)

const textOf = (chunk: string | Uint8Array): string => (typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk))

const sinkTo = (write: (text: string) => void) => () => Sink.forEach((chunk: string | Uint8Array) => Effect.sync(() => write(textOf(chunk))))

/** `Stdio` over the injected streams: the arguments, stdout and stderr of this invocation, no stdin. */
export const cliStdio = (io: CliIo, argv: ReadonlyArray<string>): Stdio.Stdio =>
  Stdio.make({
    args: Effect.succeed(argv),
    stdout: sinkTo(io.stdout),
    stderr: sinkTo(io.stderr),
    stdin: Stream.empty,
    stderrIsTerminal: Effect.succeed(io.interactive)
  })

/** A terminal that never reads: the command runs unattended (CI, scripts) and never prompts. */
export const unattendedTerminal: Terminal.Terminal = Terminal.make({
  columns: Effect.succeed(100),
  rows: Effect.succeed(24),
  size: unavailable("terminal size events"),
  readInput: unavailable("terminal input"),
  readLine: unavailable("terminal input"),
  display: () => Effect.void
})

const format = (args: ReadonlyArray<unknown>): string => `${formatWithOptions({ colors: false }, ...args)}\n`

/**
 * A `Console` whose log, info and debug lines go to `io.stdout` and whose error and warn lines go to
 * `io.stderr` (effect/cli prints completion scripts with `Console.log`); everything else is the
 * process console.
 */
export const cliConsole = (io: CliIo): Console.Console => ({
  ...globalThis.console,
  log: (...args) => io.stdout(format(args)),
  info: (...args) => io.stdout(format(args)),
  debug: (...args) => io.stdout(format(args)),
  error: (...args) => io.stderr(format(args)),
  warn: (...args) => io.stderr(format(args))
})

/** Every service effect/cli's `Command.runWith` needs, for one invocation. */
export const cliPlatformLayer = (io: CliIo, argv: ReadonlyArray<string>) =>
  Layer.mergeAll(
    FileSystem.layerNoop({}),
    Path.layer,
    Layer.succeed(Stdio.Stdio, cliStdio(io, argv)),
    Layer.succeed(Terminal.Terminal, unattendedTerminal),
    Layer.succeed(ChildProcessSpawner.ChildProcessSpawner, ChildProcessSpawner.make(() => unavailable("child processes"))),
    Layer.succeed(Console.Console, cliConsole(io))
  )
