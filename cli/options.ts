/**
 * Command-line parsing and validation. Every problem is a `UsageError` whose message names the
 * option and whose hint says what to type instead (the CLI prints both on one line, exit 2).
 */
import { parseArgs } from "node:util"
import { Data } from "effect"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../harness/Budget.ts"
import { MAX_RUNS } from "../harness/Runner.ts"
import { builtInAdapterNames } from "./adapterRegistry.ts"

/** The command line was wrong. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string; readonly hint: string }> {}

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
}

/** Default report folder. */
export const DEFAULT_OUT_DIR = "conformance-report"

const integer = (name: string, text: string, min: number, max: number): number => {
  const value = Number(text)
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError({ message: `--${name} must be an integer from ${min} to ${max}, got "${text}"`, hint: `for example --${name} ${Math.max(min, 1)}` })
  }
  return value
}

const list = (text: string | undefined): ReadonlyArray<string> | undefined =>
  text === undefined ? undefined : text.split(",").map((item) => item.trim()).filter((item) => item.length > 0)

const parse = (argv: ReadonlyArray<string>, options: NonNullable<Parameters<typeof parseArgs>[0]>["options"], allowPositionals: boolean) => {
  try {
    return parseArgs({ args: [...argv], options: options ?? {}, allowPositionals, strict: true })
  } catch (error) {
    throw new UsageError({ message: error instanceof Error ? error.message : String(error), hint: "run durable-conformance help for the options" })
  }
}

/** Parses `run` options. */
export const parseRunOptions = (argv: ReadonlyArray<string>): RunOptions => {
  const { values } = parse(argv, {
    adapter: { type: "string" },
    subject: { type: "string" },
    runs: { type: "string" },
    seed: { type: "string" },
    out: { type: "string" },
    quiet: { type: "boolean" },
    verbose: { type: "boolean" },
    "time-limit": { type: "string" },
    "run-timeout": { type: "string" },
    implementation: { type: "string" }
  }, false)
  const adapters = list(values.adapter as string | undefined) ?? builtInAdapterNames
  if (adapters.length === 0) throw new UsageError({ message: "--adapter names no adapter", hint: `use one or more of ${builtInAdapterNames.join(",")}` })
  return {
    adapters,
    subjects: list(values.subject as string | undefined),
    runs: values.runs === undefined ? DEFAULT_RUNS : integer("runs", values.runs as string, 1, MAX_RUNS),
    seed: values.seed === undefined ? DEFAULT_SEED : integer("seed", values.seed as string, -0x80000000, 0x7fffffff),
    outDir: (values.out as string | undefined) ?? DEFAULT_OUT_DIR,
    quiet: values.quiet === true,
    verbose: values.verbose === true,
    timeLimitMsPerProperty: values["time-limit"] === undefined ? undefined : integer("time-limit", values["time-limit"] as string, 1, 86_400_000),
    runTimeoutMs: values["run-timeout"] === undefined ? undefined : integer("run-timeout", values["run-timeout"] as string, 1, 3_600_000),
    implementation: values.implementation as string | undefined
  }
}

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

/** Parses `replay` options. */
export const parseReplayOptions = (argv: ReadonlyArray<string>): ReplayOptions => {
  const { values, positionals } = parse(argv, {
    step: { type: "boolean" },
    requirement: { type: "string" },
    bind: { type: "string" },
    adapter: { type: "string" },
    verbose: { type: "boolean" }
  }, true)
  if (positionals.length !== 1) {
    throw new UsageError({ message: `replay takes one token or report.json, got ${positionals.length}`, hint: "durable-conformance replay <token | report.json> [--step]" })
  }
  return {
    target: positionals[0]!,
    step: values.step === true,
    requirement: values.requirement as string | undefined,
    bind: values.bind as string | undefined,
    adapter: values.adapter as string | undefined,
    verbose: values.verbose === true
  }
}

/** Options of `certify`. */
export interface CertifyOptions {
  readonly adapter: string
  /** With `--implementation`: certify that implementation (an `implementation` certificate) instead of the adapter. */
  readonly implementation: string | undefined
  readonly outDir: string
  readonly quiet: boolean
  readonly verbose: boolean
}

/** Options `certify` refuses: a certificate cannot come from a filtered or shortened run. */
export const CERTIFY_REFUSED_OPTIONS = ["subject", "runs", "seed", "time-limit", "requirement"] as const

/** The adapter an implementation certificate uses when `--adapter` is not given. */
export const DEFAULT_IMPLEMENTATION_ADAPTER = "sqlite"

/** Parses `certify` options, refusing filters and budget overrides. */
export const parseCertifyOptions = (argv: ReadonlyArray<string>): CertifyOptions => {
  for (const refused of CERTIFY_REFUSED_OPTIONS) {
    if (argv.some((arg) => arg === `--${refused}` || arg.startsWith(`--${refused}=`))) {
      throw new UsageError({
        message: `certify refuses --${refused}: a certificate covers every requirement at the fixed budget`,
        hint: "use durable-conformance run for filtered or shorter runs"
      })
    }
  }
  const { values } = parse(argv, { adapter: { type: "string" }, implementation: { type: "string" }, out: { type: "string" }, quiet: { type: "boolean" }, verbose: { type: "boolean" } }, false)
  const implementation = values.implementation as string | undefined
  if (values.adapter === undefined && implementation === undefined) {
    throw new UsageError({ message: "certify needs --adapter or --implementation", hint: "durable-conformance certify --adapter ./my-adapter.ts, or certify --implementation ./my-alarms.ts [--adapter sqlite]" })
  }
  return {
    adapter: (values.adapter as string | undefined) ?? DEFAULT_IMPLEMENTATION_ADAPTER,
    implementation,
    outDir: (values.out as string | undefined) ?? "certificate",
    quiet: values.quiet === true,
    verbose: values.verbose === true
  }
}
