/**
 * `durable-conformance merge-reports --out DIR shard-1/report.json ... shard-n/report.json`: joins the
 * reports of `run --shard k/n` into the report the unsharded run writes (byte-identical apart from
 * wall-clock fields; `harness/ShardMerge.ts`), writes report.json, report.md, report.html and
 * junit.xml like `run` (and appends to `$GITHUB_STEP_SUMMARY`), prints the same summary, and exits like
 * `run`: 0 all pass, 1 a requirement failed or was not shown to hold, 2 usage or adapter error.
 *
 * Refused with one line saying what to do, before anything is written: a file that is not a report, a
 * shard report edited after it was written (its digest), shards of another suite, seed, budget or shard
 * count, and a missing or duplicate shard.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { Argument, Flag } from "effect/cli"
import { Effect } from "effect"
import type { ConformanceReport } from "../../harness/RunResult.ts"
import { mergeShardReports, type ShardInput, ShardMergeError } from "../../harness/ShardMerge.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { SUITE_VERSION } from "../../harness/SuiteVersion.ts"
import { findSuite } from "../../properties/registry.ts"
import { readReport } from "../../reports/json.ts"
import { shardSealProblem } from "../../reports/mergeSeal.ts"
import type { CliIo } from "../io.ts"
import { DEFAULT_OUT_DIR, UsageError } from "../options.ts"
import { renderSummary } from "../summary.ts"
import { checkOutputs, currentSuiteHash, publishReport } from "../writeReports.ts"

/** Flags and arguments of `merge-reports`. */
export const mergeReportsFlags = {
  reports: Argument.String("report.json").pipe(Argument.withDescription("the report.json of each shard (run --shard k/n), in any order"), Argument.atLeast(1)),
  out: Flag.String("out").pipe(Flag.withMetavar("DIR"), Flag.withDescription(`report folder (default ${DEFAULT_OUT_DIR})`), Flag.optional),
  quiet: Flag.Boolean("quiet").pipe(Flag.withDescription("no report paths on stdout (terse CI logs)"), Flag.withDefault(false), Flag.withoutNegation)
} as const

/** Options of `merge-reports`. */
export interface MergeReportsOptions {
  readonly reports: ReadonlyArray<string>
  readonly outDir: string
  readonly quiet: boolean
}

const RERUN_HINT = "pass the report.json each run --shard k/n wrote, unedited"

/** Reads one shard report; any problem is a `UsageError` naming the file. */
const readShard = (file: string, io: CliIo): Effect.Effect<ShardInput, UsageError> =>
  Effect.try({
    try: () => readReport(readFileSync(resolve(io.cwd, file), "utf8")),
    catch: (error) => new UsageError({ message: `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, hint: RERUN_HINT })
  }).pipe(Effect.flatMap((report) => {
    const problem = shardSealProblem(report)
    return problem === undefined
      ? Effect.succeed({ source: file, report })
      : Effect.fail(new UsageError({ message: `${file} cannot be merged: ${problem}`, hint: "rerun that shard with run --shard k/n and merge its fresh report.json" }))
  }))

/** The suites a shard run judged with, which must be this suite exactly (its content hash too, when `checkHash`). */
const suitesOf = (shard: ShardInput, checkHash: boolean): Effect.Effect<ReadonlyArray<SubjectSuite>, UsageError> =>
  Effect.suspend(() => {
    const { suite, options } = shard.report
    if (suite.version !== SUITE_VERSION || (checkHash && suite.hash !== currentSuiteHash())) {
      return Effect.fail(new UsageError({
        message: `${shard.source} was judged by suite ${suite.version} (${suite.hash.slice(0, 12)}), this is suite ${SUITE_VERSION} (${currentSuiteHash().slice(0, 12)})`,
        hint: "merge with the durable-conformance version (and checkout) that ran the shards"
      }))
    }
    return Effect.forEach(options.subjects, (subject) => {
      const found = findSuite(subject)
      return found === undefined ? Effect.fail(new UsageError({ message: `${shard.source} names unknown subject ${subject}`, hint: RERUN_HINT })) : Effect.succeed(found)
    })
  })

/**
 * The merged report of shard report files (paths relative to `io.cwd`), or a `UsageError` saying why
 * they cannot be merged. Shared by `merge-reports` and `run --workers`, whose workers ran this very
 * checkout (`sameCheckout`: their suite hash is not compared with this process's, only among them).
 */
export const mergeShardFiles = (files: ReadonlyArray<string>, io: CliIo, sameCheckout = false): Effect.Effect<ConformanceReport, UsageError> =>
  Effect.gen(function*() {
    const inputs = yield* Effect.forEach(files, (file) => readShard(file, io))
    const suites = yield* suitesOf(inputs[0]!, !sameCheckout)
    return yield* Effect.try({
      try: () => mergeShardReports(inputs, suites),
      catch: (error) =>
        error instanceof ShardMergeError
          ? new UsageError({ message: error.message, hint: error.hint })
          : new UsageError({ message: `cannot merge: ${error instanceof Error ? error.message : String(error)}`, hint: RERUN_HINT })
    })
  })

/** Merges, writes the reports and prints the summary; the exit code is `run`'s. */
export const mergeReportsCommand = (options: MergeReportsOptions, io: CliIo): Effect.Effect<number, UsageError> =>
  Effect.gen(function*() {
    yield* checkOutputs(options.outDir, io)
    const merged = yield* mergeShardFiles(options.reports, io)
    return publishReport(merged, io, {
      outDir: options.outDir,
      quiet: options.quiet,
      summary: (paths) => renderSummary(merged, { reportPaths: paths })
    })
  })
