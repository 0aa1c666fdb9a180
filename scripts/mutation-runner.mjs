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
// - runs a static mutant (module-level code, e.g. a constant) in this worker without a restart,
//   because `reloadEnvironment` is true: each mutant run loads the modules again after the mutant is
//   switched on (fresh modules, below);
// - passes a hit limit (100 x the dry run's count): past it the instrumented code throws and the run is
//   reported as a timeout (an infinite loop), as Stryker's own runners do.
//
// Fresh modules per mutant: a subject's module-level state (caches such as cron's offset and croner
// caches) must not carry over from the dry run or an earlier mutant, or the code that fills it never
// runs under the mutant (a false survivor) and a mutant's wrong values poison later mutants (a false
// kill). So every mutant run imports the test under a new "generation": a module resolve hook (below)
// gives every project module outside `harness/`, `adapters/` and node_modules a `?generation=<n>`
// URL, which Node loads as a new module instance (evaluated again, with the mutant switched on, so
// static mutants need no worker restart either). `harness/` and `adapters/` never import a subject
// (only its types), so they stay one instance per worker: the adapter (an embedded Postgres server
// for pool) is built once, and a subject sees the same harness (hook points) as the test.
//
// Plain JavaScript so Stryker's main process can load it without tsx; the worker process runs with
// `--import tsx` (`testRunnerNodeArgs` in stryker.config.mjs) to import the TypeScript test module.
import { register } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { INSTRUMENTER_CONSTANTS } from "@stryker-mutator/api/core"
import { commonTokens, declareClassPlugin, PluginKind, tokens } from "@stryker-mutator/api/plugin"
import { determineHitLimitReached, DryRunStatus, TestStatus, toMutantRunResult } from "@stryker-mutator/api/test-runner"

/** The one test this runner reports: the whole conformance run of the subject. */
const TEST_ID = "conformance"

/** Project folders whose modules are loaded once per worker (they import no subject at run time). */
const SHARED_FOLDERS = ["harness/", "adapters/"]

/**
 * The resolve hook (Node's module customization hooks, run on the loader thread): a project module
 * imported by a module of generation n is itself of generation n, unless it lies in a shared folder.
 */
const GENERATION_HOOKS = `
let root, shared
export const initialize = (data) => { root = data.root; shared = data.shared }
export const resolve = async (specifier, context, nextResolve) => {
  const result = await nextResolve(specifier, context)
  if (context.parentURL === undefined || !result.url.startsWith(root)) return result
  const relative = result.url.slice(root.length)
  if (relative.includes("node_modules/") || shared.some((folder) => relative.startsWith(folder))) return result
  const generation = new URL(context.parentURL).searchParams.get("generation")
  if (generation === null) return result
  const url = new URL(result.url)
  url.searchParams.set("generation", generation)
  return { ...result, url: url.href }
}`

let hooksRegistered = false

/** Registers the generation resolve hook once per worker process. */
const registerGenerationHooks = () => {
  if (hooksRegistered) return
  hooksRegistered = true
  register(`data:text/javascript,${encodeURIComponent(GENERATION_HOOKS)}`, {
    data: { root: pathToFileURL(`${path.resolve(".")}${path.sep}`).href, shared: SHARED_FOLDERS }
  })
}

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
    this.generation = 0
  }

  /** Every mutant run loads the modules again (see the generation hook), module-level code included. */
  capabilities() {
    return { reloadEnvironment: true }
  }

  /**
   * Imports a new generation of the test module (and through it of the instrumented subject): the
   * dry run gets generation 1, each mutant run the next one, so no module state survives a run.
   */
  async load() {
    registerGenerationHooks()
    this.generation++
    const url = `${pathToFileURL(path.resolve("scripts/mutation-test.ts")).href}?generation=${this.generation}`
    const module = await import(url)
    const options = module.parseMutationTestArgs(this.argv, {})
    if (typeof options === "string") throw new Error(`mutation runner: ${options}`)
    return { module, options }
  }

  /** Runs the test once on `loaded` (fresh modules by default); a divergence, an unsettled requirement or a hang fails it. */
  async runOnce(loaded) {
    const startedMs = performance.now()
    const { module, options } = loaded ?? await this.load()
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
      const loaded = await this.load()
      ns[INSTRUMENTER_CONSTANTS.CURRENT_TEST_ID] = TEST_ID
      const test = await this.runOnce(loaded)
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
