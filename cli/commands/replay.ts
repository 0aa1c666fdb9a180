/**
 * `durable-conformance replay <token | report.json> [--step] [--requirement ID] [--bind module]`:
 * re-executes one failure exactly from its token (the minimized scenario, on the same adapter, under the
 * same virtual clock and seeded randomness). `--step` prints each step with model and implementation
 * side by side. Exit 1 when the failure reproduces, 0 when it no longer does.
 */
import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Effect } from "effect"
import { AdapterError } from "../../adapters/contract.ts"
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
import { parseReplayOptions, UsageError } from "../options.ts"

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
 * with `--bind m.ts`.
 */
const loadBoundSuites = (specifier: string, cwd: string): Effect.Effect<ReadonlyArray<SubjectSuite>, UsageError> =>
  Effect.gen(function*() {
    const module = yield* Effect.tryPromise({
      try: () => import(pathToFileURL(resolve(cwd, specifier)).href) as Promise<{ readonly suites?: unknown }>,
      catch: (cause) => new UsageError({ message: `cannot load --bind ${specifier}: ${cause instanceof Error ? cause.message : String(cause)}`, hint: "--bind takes a module exporting `suites`, or an implementation module as given to --implementation" })
    })
    if (Array.isArray(module.suites)) return module.suites as ReadonlyArray<SubjectSuite>
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
 * the model's result; then their observable states side by side as path rows (`!` marks a difference;
 * equal rows are shown only while the state is small).
 */
export const renderSteps = (trace: ExecutionTrace, startMs: number): string => {
  const lines: Array<string> = []
  for (const step of trace.steps) {
    const marker = trace.divergence?.stepIndex === step.index ? "   <== implementation and model diverge here" : ""
    lines.push(`#${step.index} +${((step.virtualTimeMs - startMs) / 1000).toFixed(3)}s ${step.operation} ${JSON.stringify(step.args)}${step.fault === undefined ? "" : `  [fault: ${step.fault}]`}${marker}`)
    lines.push(`    implementation: ${JSON.stringify(step.implementation)}`)
    lines.push(`    model:          ${JSON.stringify(step.model)}`)
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

/** Replays one failure. */
export const replayCommand = (argv: ReadonlyArray<string>, io: CliIo) =>
  Effect.gen(function*() {
    const options = yield* Effect.try({ try: () => parseReplayOptions(argv), catch: (error) => error as UsageError })
    const path = resolve(io.cwd, options.target)
    const token = options.target.endsWith(".json") || existsSync(path)
      ? yield* Effect.try({
        try: () => tokenFromReport(readFileSync(path, "utf8"), options.requirement),
        catch: (error) => (error instanceof ReplayTokenError ? error : new ReplayTokenError({ message: `cannot read ${options.target}: ${error instanceof Error ? error.message : String(error)}`, hint: "pass a report.json written by durable-conformance run, or a token" }))
      })
      : options.target
    const payload = yield* decodeReplayToken(token)
    const available = options.bind === undefined ? suites : [...suites, ...(yield* loadBoundSuites(options.bind, io.cwd))]
    const property = yield* Effect.try({ try: () => resolveTokenProperty(payload, available), catch: (error) => error as ReplayTokenError })
    const adapterName = options.adapter ?? payload.adapter
    // do-sqlite runs scenarios inside workerd, so a bound implementation must be bundled into its worker.
    const [definition] = adapterName === "do-sqlite" && options.bind !== undefined
      ? [yield* Effect.tryPromise({
        try: () => import("../../hosts/do-sqlite/host.ts").then((module) => module.makeDoSqliteAdapterDefinition({ extraSuitesModule: resolve(io.cwd, options.bind!) })),
        catch: (cause) => new AdapterError({ adapter: adapterName, message: `cannot load the do-sqlite adapter: ${String(cause)}`, hint: "run npm ci to install miniflare", cause })
      })]
      : yield* resolveAdapters([adapterName])
    const trace = yield* Effect.scoped(
      Effect.gen(function*() {
        const adapter = yield* definition!.make
        if (adapter.host?.executeScenario !== undefined) {
          return yield* adapter.host.executeScenario({ propertyId: payload.propertyId, implementation: payload.implementation, scenario: payload.scenario })
        }
        return yield* executeScenario(property, adapter, payload.scenario)
      })
    )
    io.stdout(`replaying ${payload.propertyId} (implementation ${payload.implementation}) on ${options.adapter ?? payload.adapter}, seed ${payload.seed}, ${trace.steps.length} steps\n`)
    if (options.step) io.stdout(renderSteps(trace, trace.steps[0]?.virtualTimeMs ?? 0))
    if (trace.divergence === null) {
      io.stdout("the failure no longer reproduces: implementation and model agree on every step\n")
      return 0
    }
    io.stdout(`FAIL ${trace.divergence.requirementId} at step ${trace.divergence.stepIndex}: ${trace.divergence.explanation}\n`)
    return 1
  })
