// A StrykerJS 9.6.1 test-runner plugin ("conformance") for `npm run mutation`: runs the same test as
// `scripts/mutation-test.ts` (the subject's conformance properties at the gate's default budget and
// seed, stopping at the first divergence), but in Stryker's long-lived worker process instead of a new
// process per mutant. The command runner pays about 3 s of CPU per mutant just to start Node, tsx and
// Effect; here that is paid once per worker.
//
// How mutants are switched (Stryker's mutant schemata): the instrumented code reads
// `globalThis.__stryker__.activeMutant` each time a mutated expression runs. Coverage is reported
// "perTest" with one test ("conformance"): what runs while the modules load is static coverage, what
// runs during the properties is the test's. Stryker then
// - tests a mutant the dry run never executed as NoCoverage (it cannot change anything the test sees:
//   until the mutated code is reached, the run is the dry run's run);
// - restarts this worker before a static mutant (module-level code, e.g. a constant), because
//   `reloadEnvironment` is false, and the test module is loaded only after the mutant is switched on;
// - passes a hit limit (100 x the dry run's count): past it the instrumented code throws and the run is
//   reported as a timeout (an infinite loop), as Stryker's own runners do.
//
// Plain JavaScript so Stryker's main process can load it without tsx; the worker process runs with
// `--import tsx` (`testRunnerNodeArgs` in stryker.config.mjs) to import the TypeScript test module.
import path from "node:path"
import { pathToFileURL } from "node:url"
import { INSTRUMENTER_CONSTANTS } from "@stryker-mutator/api/core"
import { commonTokens, declareClassPlugin, PluginKind, tokens } from "@stryker-mutator/api/plugin"
import { determineHitLimitReached, DryRunStatus, TestStatus, toMutantRunResult } from "@stryker-mutator/api/test-runner"

/** The one test this runner reports: the whole conformance run of the subject. */
const TEST_ID = "conformance"

/** The instrumenter's namespace on globalThis, created when missing. */
const namespace = () => {
  const global = /** @type {Record<string, any>} */ (globalThis)
  global[INSTRUMENTER_CONSTANTS.NAMESPACE] ??= {}
  return global[INSTRUMENTER_CONSTANTS.NAMESPACE]
}

class ConformanceTestRunner {
  static inject = tokens(commonTokens.options)

  /** @param {Record<string, any>} options Stryker's options; `mutationTest: { subject, adapter }` chooses the test. */
  constructor(options) {
    const chosen = options.mutationTest ?? {}
    this.argv = ["--subject", chosen.subject ?? "alarms", "--adapter", chosen.adapter ?? "sqlite"]
    this.test = undefined
  }

  capabilities() {
    return { reloadEnvironment: false }
  }

  /** Imports the test module (and through it the instrumented subject) on first use. */
  async load() {
    if (this.test !== undefined) return this.test
    const module = await import(pathToFileURL(path.resolve("scripts/mutation-test.ts")).href)
    const options = module.parseMutationTestArgs(this.argv, {})
    if (typeof options === "string") throw new Error(`mutation runner: ${options}`)
    this.test = { module, options }
    return this.test
  }

  /** Runs the test once; a divergence, an unsettled requirement or a hang fails it. */
  async runOnce() {
    const startedMs = performance.now()
    const { module, options } = await this.load()
    const outcome = await module.runMutationTestOnce(options)
    const timeSpentMs = Math.round(performance.now() - startedMs)
    if (outcome.exitCode === 0) return { id: TEST_ID, name: TEST_ID, status: TestStatus.Success, timeSpentMs }
    return { id: TEST_ID, name: TEST_ID, status: TestStatus.Failed, failureMessage: outcome.line, timeSpentMs }
  }

  async dryRun(options) {
    const ns = namespace()
    ns[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT] = undefined
    if (options.coverageAnalysis !== "off") ns[INSTRUMENTER_CONSTANTS.MUTATION_COVERAGE_OBJECT] = { static: {}, perTest: {} }
    try {
      await this.load()
      ns[INSTRUMENTER_CONSTANTS.CURRENT_TEST_ID] = TEST_ID
      const test = await this.runOnce()
      if (test.status !== TestStatus.Success) return { status: DryRunStatus.Error, errorMessage: `the unmutated subject fails: ${test.failureMessage}` }
      const mutantCoverage = options.coverageAnalysis === "off" ? undefined : ns[INSTRUMENTER_CONSTANTS.MUTATION_COVERAGE_OBJECT]
      return { status: DryRunStatus.Complete, tests: [test], ...(mutantCoverage === undefined ? {} : { mutantCoverage }) }
    } catch (error) {
      return { status: DryRunStatus.Error, errorMessage: String(error?.stack ?? error) }
    } finally {
      ns[INSTRUMENTER_CONSTANTS.CURRENT_TEST_ID] = undefined
    }
  }

  async mutantRun(options) {
    const ns = namespace()
    ns[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT] = options.activeMutant.id
    ns[INSTRUMENTER_CONSTANTS.HIT_LIMIT] = options.hitLimit
    ns[INSTRUMENTER_CONSTANTS.HIT_COUNT] = options.hitLimit === undefined ? undefined : 0
    try {
      const test = await this.runOnce().catch((error) => ({
        id: TEST_ID, name: TEST_ID, status: TestStatus.Failed, failureMessage: `the test threw: ${String(error)}`, timeSpentMs: 0
      }))
      const hitLimitReached = determineHitLimitReached(ns[INSTRUMENTER_CONSTANTS.HIT_COUNT], ns[INSTRUMENTER_CONSTANTS.HIT_LIMIT])
      return toMutantRunResult(hitLimitReached ?? { status: DryRunStatus.Complete, tests: [test] })
    } finally {
      ns[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT] = undefined
      ns[INSTRUMENTER_CONSTANTS.HIT_LIMIT] = undefined
      ns[INSTRUMENTER_CONSTANTS.HIT_COUNT] = undefined
    }
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.TestRunner, "conformance", ConformanceTestRunner)]
