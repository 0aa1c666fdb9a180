// StrykerJS 9.6.1 configuration of `npm run mutation` (see mutation/README.md).
//
// Stryker 9.6.1, not 10: 10.x refuses to start on Node 20, which this project and its CI run.
// One parametrised config: the subject comes from MUTATION_SUBJECT (`scripts/mutation.ts` sets it;
// default alarms), the adapter from MUTATION_ADAPTER (default sqlite; pool needs postgres).
//
// The test is `scripts/mutation-test.ts`: the subject's conformance properties at the gate's default
// budget and seed, stopping at the first divergence. It is one property-based conformance run, not a
// per-test unit suite. Two ways to run it:
// - default, runner "conformance" (`scripts/mutation-runner.mjs`): Stryker's worker process imports
//   the test once and switches mutants in process; coverage "perTest" with the one test lets Stryker
//   skip mutants the run never executes (NoCoverage) and restart the worker for static mutants;
// - MUTATION_RUNNER=command: Stryker's command runner starts `node --import tsx scripts/mutation-test.ts`
//   per mutant (about 3 s more CPU per mutant; no coverage, so every mutant runs).
const subject = process.env.MUTATION_SUBJECT ?? "alarms"
const adapter = process.env.MUTATION_ADAPTER ?? (subject === "pool" ? "postgres" : "sqlite")
const command = process.env.MUTATION_RUNNER === "command"

/**
 * Files of `subjects/<subject>/` not mutated, and why:
 * - `index.ts`: re-exports, plus the implementation's display name (`SHIPPED_ALARMS_NAME` etc.),
 *   which is report metadata, not behaviour of the primitive.
 * - `README.md`: not code.
 */
const excluded = [`!subjects/${subject}/index.ts`]

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  packageManager: "npm",
  ...(command
    ? {
      testRunner: "command",
      commandRunner: { command: `node --import tsx scripts/mutation-test.ts --subject ${subject} --adapter ${adapter}` },
      coverageAnalysis: "off"
    }
    : {
      testRunner: "conformance",
      plugins: ["./scripts/mutation-runner.mjs"],
      testRunnerNodeArgs: ["--import", "tsx"],
      coverageAnalysis: "perTest",
      mutationTest: { subject, adapter },
      // A mutant that leaves a fiber running after a hang must not slow the mutants after it for long.
      maxTestRunnerReuse: 50
    }),
  mutate: [`subjects/${subject}/**/*.ts`, ...excluded],
  // Two cores shared with other work: one mutant at a time.
  concurrency: 1,
  // A hang: the test's own per-phase deadline (10 s) ends a mutant that waits forever (killed); a
  // synchronous infinite loop hits the hit limit (conformance runner) or this timeout: dry-run time x 2
  // + 120 s, generous because a survivor runs the whole budget on a machine shared with others, and a
  // survivor cut by the timeout would be counted as detected.
  timeoutMS: 120_000,
  timeoutFactor: 2,
  dryRunTimeoutMinutes: 10,
  incremental: true,
  incrementalFile: `mutation/${subject}.incremental.json`,
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
  reporters: ["clear-text", "progress", "html"],
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true, reportMutants: true },
  htmlReporter: { fileName: `mutation-report/${subject}.html` },
  // The sandbox needs only what the test imports (cli/ is not imported, but small); skip the rest.
  ignorePatterns: [
    "/test", "/bench", "/examples", "/conformance-report", "/certificate", "/mutation-report",
    "/reports-out", "/dist", "/.out", "/.tmp", "/.stryker-tmp*", "*.log"
  ],
  disableTypeChecks: false,
  tsconfigFile: "tsconfig.json",
  thresholds: { high: 95, low: 80, break: null },
  warnings: { unknownOptions: false }
}
