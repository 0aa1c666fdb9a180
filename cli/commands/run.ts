/**
 * `durable-conformance run [--adapter a,b] [--subject s] [--implementation module] [--runs N] [--seed S] [--out dir] [--quiet] [--verbose]`:
 * the conformance gate. Checks every requirement of the chosen subjects on the chosen adapters, writes
 * the reports, prints a summary, and exits 0 (all pass), 1 (a requirement failed or was not shown to
 * hold) or 2 (usage or adapter error). `--implementation` binds a third-party implementation of a
 * subject (alarms) in place of the shipped one.
 */
import { Effect } from "effect"
import { runConformance } from "../../harness/Conformance.ts"
import { findSuite, subjectNames, suites } from "../../properties/registry.ts"
import { bindSuites, loadImplementationModule, resolveAdaptersFor } from "../implementation.ts"
import type { CliIo } from "../io.ts"
import { parseRunOptions, UsageError } from "../options.ts"
import { progressPrinter } from "../progress.ts"
import { exitCodeOf, renderSummary } from "../summary.ts"
import { currentSuiteHash, writeReports } from "../writeReports.ts"

/** Runs the gate. */
export const runCommand = (argv: ReadonlyArray<string>, io: CliIo) =>
  Effect.gen(function*() {
    const options = yield* Effect.try({ try: () => parseRunOptions(argv), catch: (error) => error as UsageError })
    const chosen = options.subjects === undefined
      ? suites
      : options.subjects.map((subject) => {
        const suite = findSuite(subject)
        if (suite === undefined) throw new UsageError({ message: `unknown subject "${subject}"`, hint: `use one of ${subjectNames.join(", ")}` })
        return suite
      })
    const binding = options.implementation === undefined ? undefined : yield* loadImplementationModule(options.implementation, io.cwd)
    if (binding !== undefined && !chosen.some((suite) => suite.subject === binding.subject)) {
      return yield* new UsageError({
        message: `--implementation binds the ${binding.subject} subject, which --subject leaves out`,
        hint: `add ${binding.subject} to --subject, or drop --subject`
      })
    }
    const adapters = yield* resolveAdaptersFor(options.adapters, binding)
    const report = yield* runConformance({
      kind: "run",
      adapters,
      suites: binding === undefined ? chosen : bindSuites(chosen, binding),
      runs: options.runs,
      seed: options.seed,
      suiteHash: currentSuiteHash(),
      ...(options.timeLimitMsPerProperty === undefined ? {} : { timeLimitMsPerProperty: options.timeLimitMsPerProperty }),
      ...(options.runTimeoutMs === undefined ? {} : { runTimeoutMs: options.runTimeoutMs }),
      onEvent: progressPrinter(io, { quiet: options.quiet })
    })
    const paths = writeReports(report, options.outDir, io)
    io.stdout(renderSummary(report, { reportPaths: options.quiet ? [] : paths }))
    return exitCodeOf(report)
  })
