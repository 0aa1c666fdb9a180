/**
 * The command line, declared with effect/cli: the flags and arguments of every command, and the typed
 * option objects the command bodies receive (`RunOptions`, `ReplayOptions`, `CertifyOptions`, ...).
 * effect/cli parses and types each value (integers in range, negative numbers such as `--seed -1`
 * included); the `...From` functions then apply the rules that span flags. Every problem is a
 * `UsageError` whose message names the option and whose hint says what to type instead (the CLI
 * prints both on one line, exit 2).
 */
import { Data, Effect, Option } from "effect"
import { Argument, type Command, Flag } from "effect/cli"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../harness/Budget.ts"
import { MAX_RUNS } from "../harness/Runner.ts"
import { MAX_SHARDS, parseShard, type Shard } from "../harness/Shard.ts"
import { builtInAdapterNames } from "./adapterRegistry.ts"

/** The command line was wrong. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string; readonly hint: string }> {}

/** Default report folder. */
export const DEFAULT_OUT_DIR = "conformance-report"

/** Default certificate folder. */
export const DEFAULT_CERTIFICATE_DIR = "certificate"

/** The inclusive range of an integer flag, and the value its error message suggests. */
export interface IntegerBounds {
  readonly min: number
  readonly max: number
  readonly example: number
}

/** Every integer flag by name, so a wrong value reads the same whatever was wrong with it. */
export const INTEGER_FLAGS: ReadonlyMap<string, IntegerBounds> = new Map([
  ["runs", { min: 1, max: MAX_RUNS, example: DEFAULT_RUNS }],
  ["seed", { min: -0x80000000, max: 0x7fffffff, example: 42 }],
  ["time-limit", { min: 1, max: 86_400_000, example: 60_000 }],
  ["run-timeout", { min: 1, max: 3_600_000, example: 30_000 }],
  ["workers", { min: 1, max: 8, example: 2 }]
])

/** The one-line message of a wrong integer flag: `--runs must be an integer from 1 to 100000, got "-3"`. */
export const integerFlagProblem = (name: string, value: string): UsageError | undefined => {
  const bounds = INTEGER_FLAGS.get(name)
  if (bounds === undefined) return undefined
  return new UsageError({
    message: `--${name} must be an integer from ${bounds.min} to ${bounds.max}, got "${value}"`,
    hint: `for example --${name} ${bounds.example}`
  })
}

const integerFlag = (name: string, metavar: string, description: string) => {
  const bounds = INTEGER_FLAGS.get(name)!
  return Flag.Int(name).pipe(
    Flag.filter((value) => value >= bounds.min && value <= bounds.max, () => `an integer from ${bounds.min} to ${bounds.max}`),
    Flag.withMetavar(metavar),
    Flag.withDescription(description),
    Flag.optional
  )
}

const textFlag = (name: string, metavar: string, description: string) =>
  Flag.String(name).pipe(Flag.withMetavar(metavar), Flag.withDescription(description), Flag.optional)

const switchFlag = (name: string, description: string) =>
  Flag.Boolean(name).pipe(Flag.withDescription(description), Flag.withDefault(false), Flag.withoutNegation)

/** A hidden flag `certify` recognises only to refuse it with a message saying why. */
const refusedFlag = (name: string) => Flag.String(name).pipe(Flag.withHidden, Flag.optional)

const quiet = switchFlag("quiet", "no progress on stderr and no report paths on stdout (terse CI logs)")
const verbose = switchFlag("verbose", "on an error, print its stack as well")

/** `--adapter a,b`: names and module paths, split on commas, blanks dropped, each kept once in order. */
export const parseList = (text: string | undefined): ReadonlyArray<string> | undefined =>
  text === undefined ? undefined : [...new Set(text.split(",").map((item) => item.trim()).filter((item) => item.length > 0))]

/** Flags of `list`. */
export const listFlags = { json: switchFlag("json", "print the catalog as JSON for tools") } as const

/** Options of `list`. */
export interface ListOptions {
  readonly json: boolean
}

/** Flags of `run`. */
export const runFlags = {
  adapter: textFlag("adapter", "NAMES|MODULE", `built-in adapters, comma separated (default ${builtInAdapterNames.join(",")}), or a module path such as ./my-adapter.ts`),
  subject: textFlag("subject", "NAMES", "subjects to check, comma separated (default every subject)"),
  implementation: textFlag("implementation", "MODULE", "bind a third-party implementation of a subject in place of the shipped one"),
  runs: integerFlag("runs", "N", `generated scenarios per property per adapter (default ${DEFAULT_RUNS})`),
  seed: integerFlag("seed", "S", `base seed, a 32-bit integer; negative allowed (default ${DEFAULT_SEED})`),
  out: textFlag("out", "DIR", `report folder (default ${DEFAULT_OUT_DIR})`),
  timeLimit: integerFlag("time-limit", "MS", "wall-clock limit per property; a property cut short is reported unknown"),
  runTimeout: integerFlag("run-timeout", "MS", "wall-clock limit of each phase of one scenario: open, its operations, close (default 30000); an adapter's make and close get 4 times it; past it the adapter is reported hung (error, exit 2)"),
  checkDeterminism: switchFlag("check-determinism", "run every scenario twice and report the property as an error at the first difference between the two traces (twice as slow)"),
  shard: textFlag("shard", "K/N", "run only shard K of N of every property's scenarios; merge the N shard reports with merge-reports (docs/scaling.md)"),
  workers: integerFlag("workers", "N", "run the scenarios as N shards in N child processes (1 to 8, each with its own databases) and merge them; same report as --workers 1"),
  quiet,
  verbose
} as const

/** `--shard K/N` parsed, or a usage error saying what to type instead. */
export const shardFrom = (text: string | undefined): Effect.Effect<Shard | undefined, UsageError> => {
  if (text === undefined) return Effect.succeed(undefined)
  const shard = parseShard(text)
  return shard === undefined
    ? Effect.fail(new UsageError({ message: `--shard must be K/N with 1 <= K <= N <= ${MAX_SHARDS}, got "${text}"`, hint: "for example --shard 2/4 (the second of four shards)" }))
    : Effect.succeed(shard)
}

/** Options of `run`. */
export interface RunOptions {
  readonly adapters: ReadonlyArray<string>
  readonly subjects: ReadonlyArray<string> | undefined
  readonly runs: number
  readonly seed: number
  readonly outDir: string
  readonly quiet: boolean
  readonly verbose: boolean
  readonly timeLimitMsPerProperty: number | undefined
  readonly runTimeoutMs: number | undefined
  /** A module binding a third-party implementation of a subject (`--implementation ./theirs.ts`). */
  readonly implementation: string | undefined
  /** `--check-determinism`: every scenario twice, traces compared. */
  readonly checkDeterminism: boolean
  /** `--shard K/N`: only this shard's scenarios; the report carries what `merge-reports` needs. */
  readonly shard?: Shard | undefined
  /** `--workers N`: N shards in N child processes, merged (1 runs in-process). */
  readonly workers?: number
}

/** What effect/cli parses `run`'s flags into. */
export type RunFlags = Command.Command.Config.Infer<typeof runFlags>

/** `run`'s options from its parsed flags: adapters and subjects split and deduplicated, defaults applied. */
export const runOptionsFrom = (flags: RunFlags): Effect.Effect<RunOptions, UsageError> =>
  Effect.gen(function*() {
    const adapters = parseList(Option.getOrUndefined(flags.adapter)) ?? builtInAdapterNames
    if (adapters.length === 0) return yield* new UsageError({ message: "--adapter names no adapter", hint: `use one or more of ${builtInAdapterNames.join(",")}` })
    const subjects = parseList(Option.getOrUndefined(flags.subject))
    if (subjects !== undefined && subjects.length === 0) return yield* new UsageError({ message: "--subject names no subject", hint: "drop --subject to check every subject" })
    const shard = yield* shardFrom(Option.getOrUndefined(flags.shard))
    const workers = Option.getOrElse(flags.workers, () => 1)
    if (shard !== undefined && workers > 1) {
      return yield* new UsageError({ message: "--workers and --shard cannot be combined", hint: "use --workers N on one machine, or --shard K/N per machine and merge-reports" })
    }
    return {
      ...(shard === undefined ? {} : { shard }),
      workers,
      adapters,
      subjects,
      runs: Option.getOrElse(flags.runs, () => DEFAULT_RUNS),
      seed: Option.getOrElse(flags.seed, () => DEFAULT_SEED),
      outDir: Option.getOrElse(flags.out, () => DEFAULT_OUT_DIR),
      quiet: flags.quiet,
      verbose: flags.verbose,
      timeLimitMsPerProperty: Option.getOrUndefined(flags.timeLimit),
      runTimeoutMs: Option.getOrUndefined(flags.runTimeout),
      implementation: Option.getOrUndefined(flags.implementation),
      checkDeterminism: flags.checkDeterminism
    }
  })

/** Flags and argument of `replay`. */
export const replayFlags = {
  target: Argument.String("token").pipe(Argument.withDescription("the replay token printed next to a failure, or a report.json (its first failure, or --requirement's)")),
  step: switchFlag("step", "print every step with model and implementation state side by side"),
  requirement: textFlag("requirement", "ID", "with a report.json: replay the failure of this requirement"),
  bind: textFlag("bind", "MODULE", "a module exporting `suites`, or the implementation module given to run --implementation"),
  adapter: textFlag("adapter", "NAME|MODULE", "the adapter to replay on, when the token names a module adapter"),
  verbose
} as const

/** Options of `replay`. */
export interface ReplayOptions {
  readonly target: string
  readonly step: boolean
  /** Which failure of a report to replay (by requirement ID); default the first. */
  readonly requirement: string | undefined
  /** A module exporting `suites` bound to other implementations (third-party or known-bad). */
  readonly bind: string | undefined
  /** Replay on another adapter than the token's (a name or module path). */
  readonly adapter: string | undefined
  readonly verbose: boolean
}

/** `replay`'s options from its parsed flags and argument. */
export const replayOptionsFrom = (flags: Command.Command.Config.Infer<typeof replayFlags>): ReplayOptions => ({
  target: flags.target,
  step: flags.step,
  requirement: Option.getOrUndefined(flags.requirement),
  bind: Option.getOrUndefined(flags.bind),
  adapter: Option.getOrUndefined(flags.adapter),
  verbose: flags.verbose
})

/** Options `certify` refuses: a certificate cannot come from a filtered or shortened run. */
export const CERTIFY_REFUSED_OPTIONS = ["subject", "runs", "seed", "time-limit", "requirement"] as const

/** The adapter an implementation certificate uses when `--adapter` is not given. */
export const DEFAULT_IMPLEMENTATION_ADAPTER = "sqlite"

/** Why `certify` refuses `--name` (given with or without a value). */
export const certifyRefusal = (name: string): UsageError =>
  new UsageError({
    message: `certify refuses --${name}: a certificate covers every requirement at the fixed budget`,
    hint: "use durable-conformance run for filtered or shorter runs"
  })

/** Flags of `certify` (the refused ones are hidden: they exist only to be refused with a reason). */
export const certifyFlags = {
  adapter: textFlag("adapter", "NAME|MODULE", `the adapter to certify, a module path such as ./their-adapter.ts (with --implementation: the adapter to run on, default ${DEFAULT_IMPLEMENTATION_ADAPTER})`),
  implementation: textFlag("implementation", "MODULE", "certify this implementation of a subject instead of an adapter"),
  out: textFlag("out", "DIR", `certificate and report folder (default ${DEFAULT_CERTIFICATE_DIR})`),
  quiet,
  verbose,
  refused: Object.fromEntries(CERTIFY_REFUSED_OPTIONS.map((name) => [name, refusedFlag(name)])) as Record<(typeof CERTIFY_REFUSED_OPTIONS)[number], Flag.Flag<Option.Option<string>>>
} as const

/** Options of `certify`. */
export interface CertifyOptions {
  readonly adapter: string
  /** With `--implementation`: certify that implementation (an `implementation` certificate) instead of the adapter. */
  readonly implementation: string | undefined
  readonly outDir: string
  readonly quiet: boolean
  readonly verbose: boolean
}

/** `certify`'s options from its parsed flags, refusing filters and budget overrides. */
export const certifyOptionsFrom = (flags: Command.Command.Config.Infer<typeof certifyFlags>): Effect.Effect<CertifyOptions, UsageError> =>
  Effect.gen(function*() {
    const refused = CERTIFY_REFUSED_OPTIONS.find((name) => Option.isSome(flags.refused[name]))
    if (refused !== undefined) return yield* certifyRefusal(refused)
    const implementation = Option.getOrUndefined(flags.implementation)
    if (Option.isNone(flags.adapter) && implementation === undefined) {
      return yield* new UsageError({ message: "certify needs --adapter or --implementation", hint: "durable-conformance certify --adapter ./my-adapter.ts, or certify --implementation ./my-alarms.ts [--adapter sqlite]" })
    }
    return {
      adapter: Option.getOrElse(flags.adapter, () => DEFAULT_IMPLEMENTATION_ADAPTER),
      implementation,
      outDir: Option.getOrElse(flags.out, () => DEFAULT_CERTIFICATE_DIR),
      quiet: flags.quiet,
      verbose: flags.verbose
    }
  })

/** Argument of `verify-certificate`. */
export const verifyCertificateFlags = {
  file: Argument.String("certificate.json").pipe(Argument.withDescription("the certificate.json written by certify"))
} as const
