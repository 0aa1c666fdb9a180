/**
 * `durable-conformance run [--adapter a,b] [--subject s] [--implementation module] [--runs N] [--seed S] [--out dir] [--quiet] [--verbose]`:
 * the conformance gate. Checks every requirement of the chosen subjects on the chosen adapters, writes
 * the reports, prints a summary, and exits 0 (all pass), 1 (a requirement failed or was not shown to
 * hold) or 2 (usage or adapter error). `--implementation` binds a third-party implementation of a
 * subject (alarms) in place of the shipped one.
 *
 * The outputs are checked before anything runs; adapter modules run in a child process
 * (`cli/isolation.ts`); an adapter that fails or hangs is reported with verdict `error` and the others
 * still run; the summary is printed even when a report file cannot be written.
 */
import { availableParallelism } from "node:os"
import { Effect } from "effect"
import { type AdapterProblem, type ConformanceEvent, MAX_ADAPTER_CONCURRENCY, runConformance } from "../../harness/Conformance.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { findSuite, subjectNames, suites } from "../../properties/registry.ts"
import { bindSuites, loadImplementationModule } from "../implementation.ts"
import type { CliIo } from "../io.ts"
import { resolveIsolatedAdapters } from "../isolation.ts"
import { builtInsToIsolate } from "../adapterRegistry.ts"
import { type RunOptions, UsageError } from "../options.ts"
import { progressPrinter } from "../progress.ts"
import { recordReplayOrigins } from "../replayOrigin.ts"
import { redactSecrets, secretsFromEnvironment } from "../../reports/redact.ts"
import { sealShardReport } from "../../reports/mergeSeal.ts"
import { runWorkers } from "../shardWorkers.ts"
import { renderSummary } from "../summary.ts"
import { checkOutputs, currentSuiteHash, publishReport } from "../writeReports.ts"

/**
 * How many adapters `run` checks side by side: one per core, at most one per adapter. The report is the
 * same whatever this is (each property run has its own seed and virtual clock); only the wall time and
 * the order of progress lines change. So that two adapters side by side really use two cores, every
 * built-in adapter that works on the JavaScript thread after the first runs in a child process
 * (`builtInsToIsolate`).
 */
export const runAdapterConcurrency = (adapterCount: number, cores: number = availableParallelism()): number =>
  Math.max(1, Math.min(adapterCount, cores, MAX_ADAPTER_CONCURRENCY))

/** The suites `--subject` names (every suite when absent). */
const chooseSuites = (subjects: ReadonlyArray<string> | undefined): Effect.Effect<ReadonlyArray<SubjectSuite>, UsageError> =>
  subjects === undefined
    ? Effect.succeed(suites)
    : Effect.forEach(subjects, (subject) => {
      const suite = findSuite(subject)
      return suite === undefined ? Effect.fail(new UsageError({ message: `unknown subject "${subject}"`, hint: `use one of ${subjectNames.join(", ")}` })) : Effect.succeed(suite)
    })

/**
 * The event handler of a run: `progress` (the progress printer) sees every event, and the adapters
 * that could not be made or closed are collected into `adapterErrors` for one line each at the end.
 */
export const collectingEvents = (progress: (event: ConformanceEvent) => void, adapterErrors: Array<AdapterProblem>): ((event: ConformanceEvent) => void) => {
  return (event) => {
    if (event.type === "adapter-error") adapterErrors.push(event.error)
    progress(event)
  }
}

/** Runs the gate. */
export const runCommand = (options: RunOptions, io: CliIo) =>
  Effect.scoped(Effect.gen(function*() {
    const chosen = yield* chooseSuites(options.subjects)
    yield* checkOutputs(options.outDir, io)
    if ((options.workers ?? 1) > 1) {
      // N shards in N child processes, merged here (`cli/shardWorkers.ts`).
      const merged = yield* runWorkers(options, io)
      return publishReport(merged, io, { outDir: options.outDir, quiet: options.quiet, summary: (paths) => renderSummary(merged, { reportPaths: paths }) })
    }
    const binding = options.implementation === undefined ? undefined : yield* loadImplementationModule(options.implementation, io.cwd)
    if (binding !== undefined && !chosen.some((suite) => suite.subject === binding.subject)) {
      return yield* new UsageError({
        message: `--implementation binds the ${binding.subject} subject, which --subject leaves out`,
        hint: `add ${binding.subject} to --subject, or drop --subject`
      })
    }
    const adapterConcurrency = runAdapterConcurrency(options.adapters.length)
    const adapters = yield* resolveIsolatedAdapters(options.adapters, binding, {
      cwd: io.cwd,
      env: io.env,
      ...(options.runTimeoutMs === undefined ? {} : { runTimeoutMs: options.runTimeoutMs })
    }, builtInsToIsolate(options.adapters, adapterConcurrency))
    const adapterErrors: Array<AdapterProblem> = []
    const found = yield* runConformance({
      kind: "run",
      adapters,
      suites: binding === undefined ? chosen : bindSuites(chosen, binding),
      runs: options.runs,
      seed: options.seed,
      suiteHash: currentSuiteHash(),
      ...(options.timeLimitMsPerProperty === undefined ? {} : { timeLimitMsPerProperty: options.timeLimitMsPerProperty }),
      ...(options.runTimeoutMs === undefined ? {} : { runTimeoutMs: options.runTimeoutMs }),
      onEvent: collectingEvents(progressPrinter(io, { quiet: options.quiet }), adapterErrors),
      adapterConcurrency,
      ...(options.checkDeterminism ? { checkDeterminism: true } : {}),
      ...(options.shard === undefined ? {} : { shard: options.shard })
    })
    // Replay tokens name the adapter and implementation modules, so printed replay commands work as printed.
    const origins = recordReplayOrigins(found, { adapters: options.adapters, implementation: options.implementation, cwd: io.cwd })
    // A shard's report is sealed as written (redacted), for merge-reports (`reports/mergeSeal.ts`).
    const report = options.shard === undefined ? origins : sealShardReport(redactSecrets(origins, secretsFromEnvironment(io.env)), options.shard)
    return publishReport(report, io, {
      outDir: options.outDir,
      quiet: options.quiet,
      adapterErrors,
      summary: (paths) => renderSummary(report, { reportPaths: paths })
    })
  }))
