/**
 * Where a failure came from, recorded in its replay token, and checked again on replay.
 *
 * The runner's token names the adapter and implementation by name. When either came from a module
 * (`--adapter ./theirs.ts`, `--implementation ./scheduler.ts`), the CLI adds the module's path to
 * every token of the report (`recordReplayOrigins`), so the replay command printed next to a failure
 * carries `--adapter <path>` and `--bind <path>` and works as printed. Replay never imports a path
 * read from a token: it imports only what the user passes, and `planReplay` first checks that what
 * was passed is what the token names (the same resolved file), refusing in one line otherwise.
 */
import { existsSync, realpathSync } from "node:fs"
import { isAbsolute, resolve } from "node:path"
import { Effect, Exit } from "effect"
import type { Counterexample, ConformanceReport, PropertyRun } from "../harness/RunResult.ts"
import { decodeReplayToken, encodeReplayToken, type ReplayTokenPayload } from "../harness/ReplayToken.ts"
import { builtInAdapterNames, looksLikeModulePath } from "./adapterRegistry.ts"
import { shellWord } from "../reports/text.ts"
import { displayPath } from "./loadModule.ts"
import { UsageError } from "./options.ts"

/** What a run was given: its `--adapter` values (in the report's adapter order) and `--implementation`. */
export interface RunOrigins {
  readonly adapters: ReadonlyArray<string>
  readonly implementation?: string | undefined
  /** The run's working directory: recorded paths are relative to it. */
  readonly cwd: string
}

/** Adds the module paths of `origins` to one token (unchanged when it does not decode). */
const withOrigin = (token: string, adapterModule: string | undefined, implementationModule: string | undefined): string => {
  const decoded = Effect.runSyncExit(decodeReplayToken(token))
  if (Exit.isFailure(decoded)) return token
  const payload: ReplayTokenPayload = decoded.value
  const bound = payload.implementation !== "reference" ? implementationModule : undefined
  if (adapterModule === undefined && bound === undefined) return token
  return encodeReplayToken({
    ...payload,
    ...(adapterModule === undefined ? {} : { adapterModule }),
    ...(bound === undefined ? {} : { implementationModule: bound })
  })
}

/**
 * The report with the module paths of its adapters and implementation recorded in every replay
 * token (the adapters of `report.adapters[i]` came from `origins.adapters[i]`). Built-in adapters and
 * the shipped implementations add nothing.
 */
export const recordReplayOrigins = (report: ConformanceReport, origins: RunOrigins): ConformanceReport => {
  const implementationModule = origins.implementation === undefined ? undefined : displayPath(resolve(origins.cwd, origins.implementation), origins.cwd)
  const adapters = report.adapters.map((adapter, index) => {
    const specifier = origins.adapters[index]
    const adapterModule = specifier !== undefined && looksLikeModulePath(specifier) ? displayPath(resolve(origins.cwd, specifier), origins.cwd) : undefined
    if (adapterModule === undefined && implementationModule === undefined) return adapter
    const rewrite = (counterexample: Counterexample): Counterexample => ({
      ...counterexample,
      replayToken: withOrigin(counterexample.replayToken, adapterModule, implementationModule)
    })
    const properties = adapter.properties.map((run): PropertyRun =>
      run.verdict === "fail" ? { ...run, counterexamples: [rewrite(run.counterexamples[0]), ...run.counterexamples.slice(1).map(rewrite)] } : run
    )
    const requirements = adapter.requirements.map((result) => (result.counterexample === undefined ? result : { ...result, counterexample: rewrite(result.counterexample) }))
    return { ...adapter, properties, requirements }
  })
  return { ...report, adapters }
}

/** The file a path names, symbolic links followed when it exists. */
const fileOf = (path: string, cwd: string): string => {
  const absolute = resolve(cwd, path)
  return existsSync(absolute) ? realpathSync(absolute) : absolute
}

/** True when two module paths name the same file (each relative to `cwd`). */
export const sameModule = (a: string, b: string, cwd: string): boolean => fileOf(a, cwd) === fileOf(b, cwd)

/** What replay will load, all of it named by the user; nothing here comes from the token alone. */
export interface ReplayPlan {
  /** A built-in adapter name or the module path the user passed with `--adapter`. */
  readonly adapter: string
  /** Set when the token names an adapter that is not built in and no module path: the made adapter must carry this name. */
  readonly expectAdapterName?: string
}

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/

/** Refuses a module path no real run records (control characters would also break the one-line message). */
const checkRecordedPath = (path: string | undefined, what: string): Effect.Effect<void, UsageError> =>
  path !== undefined && CONTROL_CHARACTERS.test(path)
    ? Effect.fail(new UsageError({ message: `the replay token names ${what} whose path has control characters: it was edited`, hint: "replay the token exactly as the report printed it" }))
    : Effect.void

/** `pass --adapter ./x.ts`, saying where a relative path is relative to. */
const passHint = (flag: "--adapter" | "--bind", recorded: string): string =>
  `pass ${flag} ${shellWord(recorded)}${isAbsolute(recorded) ? "" : " (the path is relative to the directory the run started in)"}`

const refuse = (message: string, hint: string): Effect.Effect<never, UsageError> => Effect.fail(new UsageError({ message, hint }))

/** The adapter to replay on: the token's built-in adapter, or the module the user passed, checked against the token. */
const planAdapter = (payload: ReplayTokenPayload, passed: string | undefined, cwd: string): Effect.Effect<ReplayPlan, UsageError> => {
  const recorded = payload.adapterModule
  const name = JSON.stringify(payload.adapter)
  if (recorded !== undefined) {
    if (passed === undefined) return refuse(`this failure was found on adapter ${name} from the module ${recorded}; replay runs only modules named on its command line`, passHint("--adapter", recorded))
    if (!looksLikeModulePath(passed) || !sameModule(passed, recorded, cwd)) {
      return refuse(`--adapter ${passed} is not the adapter this failure was found on (${name} from the module ${recorded})`, passHint("--adapter", recorded))
    }
    return Effect.succeed({ adapter: passed })
  }
  if (builtInAdapterNames.includes(payload.adapter)) {
    if (passed === undefined || passed === payload.adapter) return Effect.succeed({ adapter: payload.adapter })
    return refuse(`--adapter ${passed} is not the adapter this failure was found on (${payload.adapter})`, `pass --adapter ${payload.adapter}, or leave --adapter out`)
  }
  // The token names an adapter that is not built in, and no module (a token written without one).
  if (passed === undefined || !looksLikeModulePath(passed)) {
    return refuse(`this failure was found on adapter ${name}, which is not built in, and the token names no module for it`, `pass --adapter with the module that defines adapter ${name}`)
  }
  return Effect.succeed({ adapter: passed, expectAdapterName: payload.adapter })
}

/** Checks `--bind` against the implementation module the token names, if it names one. */
const checkImplementation = (payload: ReplayTokenPayload, bind: string | undefined, cwd: string): Effect.Effect<void, UsageError> => {
  const recorded = payload.implementationModule
  if (recorded === undefined) return Effect.void
  const name = JSON.stringify(payload.implementation)
  if (bind === undefined) return refuse(`this failure was found with implementation ${name} from the module ${recorded}; replay runs only modules named on its command line`, passHint("--bind", recorded))
  if (!sameModule(bind, recorded, cwd)) return refuse(`--bind ${bind} is not the implementation module this failure was found with (${name} from ${recorded})`, passHint("--bind", recorded))
  return Effect.void
}

/**
 * Decides what replay loads, before anything is imported: the token's built-in adapter, or the
 * `--adapter` module when the token names a module and the user passed that same file; `--bind` must
 * be the implementation module the token names. A missing or different module is a one-line
 * `UsageError` (exit 2) saying what to pass.
 */
export const planReplay = (
  payload: ReplayTokenPayload,
  passed: { readonly adapter: string | undefined; readonly bind: string | undefined },
  cwd: string
): Effect.Effect<ReplayPlan, UsageError> =>
  Effect.gen(function*() {
    yield* checkRecordedPath(payload.adapterModule, "an adapter module")
    yield* checkRecordedPath(payload.implementationModule, "an implementation module")
    yield* checkImplementation(payload, passed.bind, cwd)
    return yield* planAdapter(payload, passed.adapter, cwd)
  })
