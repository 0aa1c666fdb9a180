/**
 * The test command of `npm run mutation` (StrykerJS's command runner runs it once per mutant, with the
 * mutant switched on through `__STRYKER_ACTIVE_MUTANT__`): runs the conformance properties of one
 * subject at the gate's default budget (`DEFAULT_RUNS` scenarios per property, seeds derived from
 * `DEFAULT_SEED` exactly as the gate derives them) on one adapter (sqlite by default), in process,
 * through the harness API.
 *
 * Exit codes: 0 when the gate would pass on this adapter (every property spent its whole budget without
 * a divergence and every applicable requirement is `pass`), 1 at the first property whose search finds a
 * divergence (it stops there: no further scenario, no shrinking, no later property, so a killed mutant
 * costs little) or when some requirement would be `unknown`, 2 when the adapter broke or hung (a
 * mutant that makes the implementation wait forever trips the per-phase deadline; one that spins
 * synchronously is killed by Stryker's own timeout), 3 on a usage error.
 *
 * @example
 * ```sh
 * npx tsx scripts/mutation-test.ts --subject alarms            # sqlite
 * npx tsx scripts/mutation-test.ts --subject pool --adapter postgres   # needs DATABASE_URL
 * MUTATION_SUBJECT=cron npx tsx scripts/mutation-test.ts
 * ```
 */
import { Effect, Exit, Scope } from "effect"
import type * as fc from "fast-check"
import type { StorageAdapter } from "../adapters/contract.ts"
import { makeSqliteAdapter } from "../adapters/sqlite/index.ts"
import { DEFAULT_RUNS, DEFAULT_SEED } from "../harness/Budget.ts"
import { propertySeed } from "../harness/Conformance.ts"
import { searchScenarios, type SearchOutcome } from "../harness/FailureSearch.ts"
import type { Json, PropertyDefinition } from "../harness/Property.ts"
import { executeScenario, missingCapabilities } from "../harness/Runner.ts"
import type { PropertyRun } from "../harness/RunResult.ts"
import { requirementsByProperty, type SubjectSuite } from "../harness/Suite.ts"
import { requirementResults } from "../harness/Verdicts.ts"
import { findSuite, subjectNames } from "../properties/registry.ts"

/**
 * Wall-clock limit of each phase of one scenario (open, operations, close) under mutation. A sqlite
 * scenario phase takes milliseconds (about 9 s for all 180 alarms scenarios), so 10 s is a hang even on
 * a loaded machine, and it stays well under Stryker's per-mutant timeout (`stryker.config.mjs`).
 */
export const MUTATION_RUN_TIMEOUT_MS = 10_000

/** Exit codes of the mutation test command. */
export const MUTATION_EXIT = { survived: 0, diverged: 1, broke: 2, usage: 3 } as const

/** What one invocation tests. */
export interface MutationTestOptions {
  readonly subject: string
  /** `sqlite` (default) or `postgres` (needs `DATABASE_URL` or starts embedded Postgres). */
  readonly adapter: "sqlite" | "postgres"
  readonly runs: number
  readonly seed: number
}

/** How one invocation ended: the exit code and one line saying why. */
export interface MutationTestOutcome {
  readonly exitCode: number
  readonly line: string
}

const flagValue = (argv: ReadonlyArray<string>, flag: string): string | undefined => {
  const index = argv.indexOf(flag)
  if (index >= 0) return argv[index + 1]
  const inline = argv.find((arg) => arg.startsWith(`${flag}=`))
  return inline?.slice(flag.length + 1)
}

/** Reads `--subject` (or `MUTATION_SUBJECT`) and `--adapter` (or `MUTATION_ADAPTER`); undefined subject is a usage error. */
export const parseMutationTestArgs = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv): MutationTestOptions | string => {
  const subject = flagValue(argv, "--subject") ?? env.MUTATION_SUBJECT
  if (subject === undefined || findSuite(subject) === undefined || subject === "adapter") {
    return `pass --subject <one of ${subjectNames.filter((name) => name !== "adapter").join(", ")}>, got ${JSON.stringify(subject)}`
  }
  const adapter = flagValue(argv, "--adapter") ?? env.MUTATION_ADAPTER ?? "sqlite"
  if (adapter !== "sqlite" && adapter !== "postgres") return `--adapter must be sqlite or postgres, got ${JSON.stringify(adapter)}`
  return { subject, adapter, runs: DEFAULT_RUNS, seed: DEFAULT_SEED }
}

/** The record a property that spent its whole budget without a divergence leaves, for the verdicts. */
const passedRun = (property: PropertyDefinition<any>, adapter: StorageAdapter, seed: number, runs: number, search: SearchOutcome): PropertyRun => ({
  propertyId: property.id,
  subject: property.subject,
  adapter: adapter.name,
  seed,
  runsRequested: runs,
  runsExecuted: search.runsExecuted,
  durationMs: 0,
  covered: Object.fromEntries(search.covered),
  verdict: "pass"
})

/** Searches one property's budget, stopping at its first divergence; `undefined` when it held throughout. */
const searchProperty = (property: PropertyDefinition<any>, adapter: StorageAdapter, options: MutationTestOptions) =>
  Effect.gen(function*() {
    const seed = propertySeed(options.seed, property.id, adapter.name)
    const search = yield* searchScenarios({
      arbitrary: property.scenario(adapter.capabilities) as fc.Arbitrary<Json>,
      execute: (scenario) => executeScenario(property, adapter, scenario, MUTATION_RUN_TIMEOUT_MS),
      seed,
      runs: options.runs,
      stopAfterFailures: 1
    })
    if (search.infrastructureError !== undefined) {
      const outcome: MutationTestOutcome = { exitCode: MUTATION_EXIT.broke, line: `ERROR ${property.id}: ${search.infrastructureError.message}` }
      return outcome
    }
    const [failure] = search.firstFailures
    if (failure !== undefined) {
      const outcome: MutationTestOutcome = {
        exitCode: MUTATION_EXIT.diverged,
        line: `KILLED ${failure.requirementId} by ${property.id}, scenario ${failure.index + 1} of ${options.runs}`
      }
      return outcome
    }
    return passedRun(property, adapter, seed, options.runs, search)
  })

/** Runs the suite's properties in the gate's order until one diverges; then the gate's requirement verdicts. */
export const runMutationTest = (suite: SubjectSuite, adapter: StorageAdapter, options: MutationTestOptions) =>
  Effect.gen(function*() {
    const runs: Array<PropertyRun> = []
    for (const property of suite.properties) {
      if (missingCapabilities(property, adapter).length > 0) continue
      const result = yield* searchProperty(property, adapter, options)
      if ("exitCode" in result) return result
      runs.push(result)
    }
    const verdicts = requirementResults(suite.requirements, runs, requirementsByProperty([suite]), adapter.capabilities)
    const unsettled = verdicts.filter((result) => result.verdict !== "pass" && result.verdict !== "not-applicable")
    if (runs.length === 0) return { exitCode: MUTATION_EXIT.broke, line: `no property of ${suite.subject} applies to ${adapter.name}` } satisfies MutationTestOutcome
    if (unsettled.length > 0) {
      const listed = unsettled.map((result) => `${result.requirementId} ${result.verdict}: ${result.reason}`).join("; ")
      return { exitCode: MUTATION_EXIT.diverged, line: `KILLED (not shown to hold) ${listed}` } satisfies MutationTestOutcome
    }
    return { exitCode: MUTATION_EXIT.survived, line: `SURVIVED all ${verdicts.length} requirements of ${suite.subject} pass on ${adapter.name}` } satisfies MutationTestOutcome
  })

/** Builds the adapter in `scope`: sqlite in memory, or postgres (DATABASE_URL, else embedded). */
const makeAdapter = (name: MutationTestOptions["adapter"], scope: Scope.Scope): Effect.Effect<StorageAdapter, unknown> =>
  name === "sqlite"
    ? Effect.succeed(makeSqliteAdapter())
    : Effect.flatMap(Effect.promise(() => import("../adapters/postgres/index.ts")), (module) => Scope.provide(module.makePostgresAdapter().make, scope))

/** What this process built once: adapters by name and the scope that releases them at exit. */
interface ProcessAdapters {
  readonly adapters: Map<string, Promise<StorageAdapter>>
  readonly scope: Scope.Closeable
}

/**
 * Adapters built by this process, one per name, released when the process exits. Kept on `globalThis`
 * so that a long-lived Stryker worker, which imports a new instance of this module for every mutant
 * (`scripts/mutation-runner.mjs`), still builds each adapter (an embedded Postgres server) once.
 */
const processAdapters: ProcessAdapters = (() => {
  const key = Symbol.for("durable-conformance.mutation-test.adapters")
  const global = globalThis as unknown as Record<symbol, ProcessAdapters | undefined>
  global[key] ??= { adapters: new Map(), scope: Scope.makeUnsafe() }
  return global[key]
})()
const adapters = processAdapters.adapters
const processScope = processAdapters.scope

/**
 * One whole mutation test in this process (the StrykerJS worker plugin `scripts/mutation-runner.mjs`
 * calls it once per mutant): the outcome never throws; a broken adapter is exit code 2.
 */
export const runMutationTestOnce = async (options: MutationTestOptions): Promise<MutationTestOutcome> => {
  const startedMs = performance.now()
  const suite = findSuite(options.subject)!
  let adapter = adapters.get(options.adapter)
  if (adapter === undefined) {
    adapter = Effect.runPromise(makeAdapter(options.adapter, processScope))
    adapters.set(options.adapter, adapter)
  }
  const exit = await Effect.runPromiseExit(Effect.flatMap(Effect.promise(() => adapter), (made) => runMutationTest(suite, made, options)))
  const seconds = ((performance.now() - startedMs) / 1000).toFixed(1)
  if (Exit.isFailure(exit)) return { exitCode: MUTATION_EXIT.broke, line: `ERROR ${options.subject} on ${options.adapter}: ${String(exit.cause)} (${seconds} s)` }
  return { exitCode: exit.value.exitCode, line: `${exit.value.line} (${seconds} s)` }
}

const main = async (): Promise<number> => {
  const options = parseMutationTestArgs(process.argv.slice(2), process.env)
  if (typeof options === "string") {
    process.stderr.write(`mutation-test: ${options}\n`)
    return MUTATION_EXIT.usage
  }
  const outcome = await runMutationTestOnce(options)
  await Effect.runPromise(Scope.close(processScope, Exit.void))
  process.stdout.write(`${outcome.line}\n`)
  return outcome.exitCode
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then((code) => process.exit(code), (error: unknown) => {
    process.stderr.write(`mutation-test: ${String(error)}\n`)
    process.exit(MUTATION_EXIT.broke)
  })
}
