/**
 * `durable-conformance replay <token | report.json> [--step] [--requirement ID] [--adapter module] [--bind module]`:
 * re-executes one failure exactly from its token (the minimized scenario, on the same adapter, under the
 * same virtual clock and seeded randomness). `--step` prints each step with model and implementation
 * side by side. Exit 1 when the failure reproduces, 0 when it no longer does, 2 when the command line
 * does not name the modules the token was found with (`cli/replayOrigin.ts`).
 */
import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { Effect } from "effect"
import { type AdapterDefinition, AdapterError } from "../../adapters/contract.ts"
import { resolveAdapters } from "../adapterRegistry.ts"
import type { ExecutionTrace, PropertyDefinition } from "../../harness/Property.ts"
import { decodeReplayToken, type ReplayTokenPayload } from "../../harness/ReplayToken.ts"
import { executeScenario } from "../../harness/Runner.ts"
import type { SubjectSuite } from "../../harness/Suite.ts"
import { ReplayTokenError } from "../../harness/errors.ts"
import { suites } from "../../properties/registry.ts"
import { diffStates } from "../../reports/diff.ts"
import { readReport } from "../../reports/json.ts"
import { loadImplementationModule } from "../implementation.ts"
import type { CliIo } from "../io.ts"
import { importUserModule } from "../loadModule.ts"
import { type ReplayOptions, UsageError } from "../options.ts"
import { planReplay, type ReplayPlan } from "../replayOrigin.ts"
import { plural } from "../wording.ts"

/** Finds the token in a report file: the failure of `requirement`, or the first failure. */
export const tokenFromReport = (text: string, requirement: string | undefined): string => {
  const report = readReport(text)
  for (const adapter of report.adapters) {
    for (const result of adapter.requirements) {
      if (result.counterexample === undefined) continue
      if (requirement === undefined || result.requirementId === requirement) return result.counterexample.replayToken
    }
  }
  throw new ReplayTokenError({
    message: requirement === undefined ? "the report has no failure to replay" : `the report has no failure of ${requirement}`,
    hint: "replay a report with a failing requirement, or pass the token printed next to it"
  })
}

/**
 * Suites of a `--bind` module: its `suites` export, or the suite of the implementation it binds (the
 * same module `run --implementation` takes), so a failure found with `--implementation m.ts` replays
 * with `--bind m.ts`. Loaded with the one module loader (`cli/loadModule.ts`).
 */
const loadBoundSuites = (specifier: string, cwd: string): Effect.Effect<ReadonlyArray<SubjectSuite>, UsageError> =>
  Effect.gen(function*() {
    const loaded = yield* importUserModule(specifier, cwd, `--bind module ${specifier}`).pipe(
      Effect.mapError((error) => new UsageError({ message: error.message, hint: error.hint }))
    )
    if (Array.isArray(loaded.exports["suites"])) return loaded.exports["suites"] as ReadonlyArray<SubjectSuite>
    const binding = yield* loadImplementationModule(specifier, cwd)
    return [binding.suite]
  })

/** Resolves the property a token names among `available` suites. */
export const resolveTokenProperty = (payload: ReplayTokenPayload, available: ReadonlyArray<SubjectSuite>): PropertyDefinition<any> => {
  const property = available
    .filter((suite) => suite.implementation === payload.implementation)
    .flatMap((suite) => suite.properties)
    .find((candidate) => candidate.id === payload.propertyId)
  if (property !== undefined) return property
  throw new ReplayTokenError({
    message: `the token names property ${payload.propertyId} bound to implementation "${payload.implementation}", which is not registered here`,
    hint: payload.implementation === "reference" ? "this suite version has no such property" : "pass --bind <module exporting suites> with that implementation"
  })
}

const cell = (value: unknown): string => (value === undefined ? "(absent)" : JSON.stringify(value))

/**
 * Renders a trace step by step: operation, arguments, virtual time and fault; the implementation's and
 * the model's result, with the paths where they differ (compared normalized, `reports/diff.ts`); then
 * their observable states side by side as path rows (`!` marks a difference; equal rows are shown only
 * while the state is small).
 */
export const renderSteps = (trace: ExecutionTrace, startMs: number): string => {
  const lines: Array<string> = []
  for (const step of trace.steps) {
    const marker = trace.divergence?.stepIndex === step.index ? "   <== implementation and model diverge here" : ""
    lines.push(`#${step.index} +${((step.virtualTimeMs - startMs) / 1000).toFixed(3)}s ${step.operation} ${JSON.stringify(step.args)}${step.fault === undefined ? "" : `  [fault: ${step.fault}]`}${marker}`)
    lines.push(`    implementation: ${JSON.stringify(step.implementation)}`)
    lines.push(`    model:          ${JSON.stringify(step.model)}`)
    const results = diffStates(step.model, step.implementation, 400)
    if (results.differing > 0) lines.push(`  ! result differs at ${results.rows.filter((row) => row.differs).slice(0, 5).map((row) => row.path).join(", ")}`)
    if (step.implementationState === undefined && step.modelState === undefined) continue
    const diff = diffStates(step.modelState, step.implementationState, 400)
    const shown = diff.rows.filter((row) => row.differs || diff.rows.length <= 12)
    const pathWidth = Math.min(40, Math.max(4, ...shown.map((row) => row.path.length)))
    lines.push(`    ${"state".padEnd(pathWidth)}   ${"implementation".padEnd(36)} | model${diff.differing === 0 ? "   (agree)" : `   (${diff.differing} differ)`}`)
    for (const row of shown) {
      lines.push(`  ${row.differs ? "!" : " "} ${row.path.slice(0, pathWidth).padEnd(pathWidth)}   ${cell(row.implementation).slice(0, 36).padEnd(36)} | ${cell(row.model).slice(0, 60)}`)
    }
    if (shown.length < diff.rows.length) lines.push(`    (${diff.rows.length - shown.length} equal rows not shown)`)
  }
  return `${lines.join("\n")}\n`
}

/** The token of `target`: the argument itself, or the failure of a report file. */
const readToken = (options: ReplayOptions, cwd: string): Effect.Effect<string, ReplayTokenError> => {
  const path = resolve(cwd, options.target)
  if (!options.target.endsWith(".json") && !existsSync(path)) return Effect.succeed(options.target)
  return Effect.try({
    try: () => tokenFromReport(readFileSync(path, "utf8"), options.requirement),
    catch: (error) => (error instanceof ReplayTokenError ? error : new ReplayTokenError({ message: `cannot read ${options.target}: ${error instanceof Error ? error.message : String(error)}`, hint: "pass a report.json written by durable-conformance run, or a token" }))
  })
}

/** The adapter definition replay runs on; do-sqlite with `--bind` bundles the bound module into its worker. */
const replayAdapter = (adapter: string, bind: string | undefined, cwd: string): Effect.Effect<AdapterDefinition, AdapterError> =>
  adapter === "do-sqlite" && bind !== undefined
    ? Effect.tryPromise({
      try: () => import("../../hosts/do-sqlite/host.ts").then((module) => module.makeDoSqliteAdapterDefinition({ extraSuitesModule: resolve(cwd, bind) })),
      catch: (cause) => new AdapterError({ adapter, message: `cannot load the do-sqlite adapter: ${String(cause)}`, hint: "run npm ci to install miniflare", cause })
    })
    : Effect.map(resolveAdapters([adapter], cwd), (definitions) => definitions[0]!)

/** Makes the adapter and executes the token's scenario on it (in its host when it has one). */
const executeOn = (definition: AdapterDefinition, plan: ReplayPlan, payload: ReplayTokenPayload, property: PropertyDefinition<any>) =>
  Effect.scoped(
    Effect.gen(function*() {
      const adapter = yield* definition.make
      if (plan.expectAdapterName !== undefined && adapter.name !== plan.expectAdapterName) {
        return yield* new UsageError({
          message: `--adapter ${plan.adapter} makes adapter ${JSON.stringify(adapter.name)}, not ${JSON.stringify(plan.expectAdapterName)}, the adapter this failure was found on`,
          hint: `pass --adapter with the module that defines adapter ${JSON.stringify(plan.expectAdapterName)}`
        })
      }
      if (adapter.host?.executeScenario !== undefined) {
        return yield* adapter.host.executeScenario({ propertyId: payload.propertyId, implementation: payload.implementation, scenario: payload.scenario })
      }
      return yield* executeScenario(property, adapter, payload.scenario)
    })
  )

/**
 * Replays one failure. Only modules named on the command line are imported, and only after
 * `planReplay` checked them against the token: a token naming a module adapter or implementation
 * needs `--adapter`/`--bind` with that same file, and a different adapter is refused (exit 2).
 */
export const replayCommand = (options: ReplayOptions, io: CliIo) =>
  Effect.gen(function*() {
    const payload = yield* Effect.flatMap(readToken(options, io.cwd), decodeReplayToken)
    const plan = yield* planReplay(payload, { adapter: options.adapter, bind: options.bind }, io.cwd)
    const available = options.bind === undefined ? suites : [...suites, ...(yield* loadBoundSuites(options.bind, io.cwd))]
    const property = yield* Effect.try({ try: () => resolveTokenProperty(payload, available), catch: (error) => error as ReplayTokenError })
    const definition = yield* replayAdapter(plan.adapter, options.bind, io.cwd)
    const trace = yield* executeOn(definition, plan, payload, property)
    io.stdout(`replaying ${payload.propertyId} (implementation ${payload.implementation}) on ${payload.adapter}, seed ${payload.seed}, ${plural(trace.steps.length, "step")}\n`)
    if (options.step) io.stdout(renderSteps(trace, trace.steps[0]?.virtualTimeMs ?? 0))
    if (trace.divergence === null) {
      io.stdout("the failure no longer reproduces: implementation and model agree on every step\n")
      return 0
    }
    io.stdout(`FAIL ${trace.divergence.requirementId} at step ${trace.divergence.stepIndex}: ${trace.divergence.explanation}\n`)
    return 1
  })
