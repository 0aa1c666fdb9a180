/**
 * The one loader of user code: vendor adapter modules (`--adapter ./theirs.ts`), implementation
 * modules (`--implementation`, `--bind`), in the CLI and in the isolation child alike
 * (`loadAdapterModule` and `loadImplementationModule` are built on `importUserModule`).
 *
 * It loads `.ts`, `.mts`, `.cts`, `.js`, `.mjs` and `.cjs` files whatever the vendor's package.json
 * says: an ES module, a CommonJS package without `"type": "module"` (a `.ts` file there is compiled
 * to CommonJS, and its `export default` arrives as `module.exports.default`, unwrapped here), or plain
 * `module.exports`. The process must have tsx's ESM and CommonJS hooks registered (`bin/` and the
 * isolation child do). Every failure is one line saying what to change: a syntax error names the
 * file, line and column; a CommonJS package that cannot load ES modules says to add `"type": "module"`
 * or rename the file to `.mts`.
 */
import { existsSync, statSync } from "node:fs"
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path"
import { pathToFileURL } from "node:url"
import { Data, Effect } from "effect"

/** A module could not be loaded; `message` and `hint` make one line. */
export class ModuleLoadError extends Data.TaggedError("ModuleLoadError")<{ readonly message: string; readonly hint: string }> {}

/** A loaded module: its absolute path and its exports (a CommonJS-compiled module's `module.exports`). */
export interface LoadedModule {
  readonly path: string
  readonly exports: Readonly<Record<string, unknown>>
}

/** File extensions the loader accepts. */
export const MODULE_EXTENSIONS: ReadonlyArray<string> = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"]

/** Most folders walked up looking for a package.json. */
const MAX_PARENT_FOLDERS = 64

/** `path` as the user should read it: `./x/y.ts` inside `cwd`, else absolute. */
export const displayPath = (path: string, cwd: string): string => {
  const rel = relative(cwd, path)
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return path
  return `./${rel.split(sep).join("/")}`
}

/** The nearest package.json at or above `folder`, if any. */
export const nearestPackageJson = (folder: string): string | undefined => {
  let current = folder
  for (let depth = 0; depth < MAX_PARENT_FOLDERS; depth++) {
    const candidate = join(current, "package.json")
    if (existsSync(candidate)) return candidate
    const parent = dirname(current)
    if (parent === current) return undefined
    current = parent
  }
  return undefined
}

/**
 * The exports of an imported namespace. A CommonJS-compiled ES module (`__esModule`) arrives as
 * `{ default: module.exports }`: its own exports are `module.exports`.
 */
export const moduleExports = (namespace: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  const inner = namespace["default"]
  if (typeof inner === "object" && inner !== null && (inner as { readonly __esModule?: unknown }).__esModule === true) {
    return inner as Record<string, unknown>
  }
  return namespace
}

/** Where a failure is and what it says, from an esbuild message (`file:4:13: ERROR: text`, 0-based column). */
export interface SourceProblem {
  readonly file: string
  readonly line: number
  /** 1-based, as editors count. */
  readonly column: number
  readonly text: string
}

const ESBUILD_LINE = /^(.+?):(\d+):(\d+): ERROR: (.*)$/m

/** The first located error of an esbuild (or tsx transform) message. */
export const esbuildProblem = (message: string): SourceProblem | undefined => {
  const match = ESBUILD_LINE.exec(message)
  if (match === null) return undefined
  return { file: match[1]!, line: Number(match[2]), column: Number(match[3]) + 1, text: match[4]! }
}

/**
 * Finds the first syntax error of `path` and the local modules it imports, with esbuild (Node's
 * SyntaxError of an ES module names neither file nor line). Packages are not parsed.
 */
const locateWithEsbuild = async (path: string): Promise<SourceProblem | undefined> => {
  const esbuild = await import("esbuild")
  try {
    await esbuild.build({ entryPoints: [path], bundle: true, write: false, packages: "external", platform: "node", format: "esm", logLevel: "silent", absWorkingDir: dirname(path) })
    return undefined
  } catch (error) {
    const errors = (error as { readonly errors?: ReadonlyArray<{ readonly text: string; readonly location?: { readonly file: string; readonly line: number; readonly column: number } | null }> }).errors ?? []
    const located = errors.find((candidate) => candidate.location !== undefined && candidate.location !== null)
    if (located?.location == null) return undefined
    return { file: resolve(dirname(path), located.location.file), line: located.location.line, column: located.location.column + 1, text: located.text }
  }
}

/** The first line of a message, trimmed. */
const firstLine = (text: string): string => text.split("\n")[0]!.trim()

/** The location `file:line` of a CommonJS SyntaxError (its stack starts with it), if any. */
const stackLocation = (error: Error): { readonly file: string; readonly line: number } | undefined => {
  const match = /^(.+?):(\d+)\n/.exec(error.stack ?? "")
  if (match === null || !existsSync(match[1]!.replace(/^file:\/\//, ""))) return undefined
  return { file: match[1]!.replace(/^file:\/\//, ""), line: Number(match[2]) }
}

/** The first stack frame in the module's own file: where its top level threw. */
const thrownAt = (error: Error, path: string): { readonly file: string; readonly line: number } | undefined => {
  for (const frame of (error.stack ?? "").split("\n").slice(1, 40)) {
    const match = /\(?(?:file:\/\/)?([^()\s]+):(\d+):\d+\)?\s*$/.exec(frame)
    if (match !== null && match[1] === path) return { file: match[1], line: Number(match[2]) }
  }
  return undefined
}

/** Context of a failure: what the module is called in messages, its path, and the working directory. */
export interface LoadContext {
  readonly label: string
  readonly path: string
  readonly cwd: string
}

const syntaxLine = (context: LoadContext, problem: SourceProblem): ModuleLoadError =>
  new ModuleLoadError({
    message: `${context.label} has a syntax error${resolve(problem.file) === context.path ? "" : ` in ${displayPath(resolve(problem.file), context.cwd)}`} at line ${problem.line}, column ${problem.column}: ${problem.text}`,
    hint: "fix the syntax there"
  })

const REQUIRE_ESM_CODES = new Set(["ERR_REQUIRE_CYCLE_MODULE", "ERR_REQUIRE_ESM", "ERR_REQUIRE_ASYNC_MODULE"])

/** A CommonJS module that cannot load what its ES-module syntax needs: say what to change in one line. */
const commonJsLine = (context: LoadContext, detail: string): ModuleLoadError => {
  const extension = extname(context.path)
  if (extension === ".cts" || extension === ".cjs") {
    return new ModuleLoadError({
      message: `${context.label} is CommonJS (its ${extension} extension says so), which cannot load it: ${detail}`,
      hint: `rename it to ${extension === ".cts" ? ".mts" : ".mjs"}`
    })
  }
  const packageJson = nearestPackageJson(dirname(context.path))
  const renamed = extension === ".js" ? ".mjs" : ".mts"
  const where = packageJson === undefined ? "no package.json above it says" : `${displayPath(packageJson, context.cwd)} has no`
  return new ModuleLoadError({
    message: `${context.label} is loaded as CommonJS (${where} "type": "module"), which cannot load it: ${detail}`,
    hint: packageJson === undefined
      ? `add a package.json with "type": "module" next to it, or rename it to ${renamed}`
      : `add "type": "module" to ${displayPath(packageJson, context.cwd)}, or rename the file to ${renamed}`
  })
}

/** A SyntaxError thrown by Node: locate it (stack for CommonJS, esbuild for ES modules). */
const describeSyntaxError = async (context: LoadContext, error: Error): Promise<ModuleLoadError> => {
  if (/Cannot use import statement outside a module|Unexpected token 'export'/.test(error.message)) return commonJsLine(context, firstLine(error.message))
  const fromStack = stackLocation(error)
  if (fromStack !== undefined) return syntaxLine(context, { ...fromStack, column: 1, text: firstLine(error.message) })
  const located = await locateWithEsbuild(context.path).catch(() => undefined)
  if (/does not provide an export named/.test(error.message)) {
    const at = located === undefined ? "" : ` (${displayPath(located.file, context.cwd)} line ${located.line})`
    return new ModuleLoadError({ message: `${context.label} imports a name that is not exported: ${firstLine(error.message)}${at}`, hint: "fix the import or the export" })
  }
  if (located !== undefined) return syntaxLine(context, located)
  return new ModuleLoadError({ message: `${context.label} has a syntax error: ${firstLine(error.message)}`, hint: `run node --check ${displayPath(context.path, context.cwd)} to see where` })
}

/** One line for anything importing `context.path` threw. */
export const describeLoadFailure = async (context: LoadContext, cause: unknown): Promise<ModuleLoadError> => {
  if (!(cause instanceof Error)) return new ModuleLoadError({ message: `${context.label} threw while loading: ${String(cause)}`, hint: "fix the error in the module" })
  const code = (cause as { readonly code?: unknown }).code
  const transform = cause.message.startsWith("Transform failed") ? esbuildProblem(cause.message) : undefined
  if (transform !== undefined && /not supported with the "cjs" output format/.test(transform.text)) return commonJsLine(context, transform.text)
  if (transform !== undefined) return syntaxLine(context, transform)
  if (typeof code === "string" && REQUIRE_ESM_CODES.has(code)) return commonJsLine(context, firstLine(cause.message))
  if (cause.name === "SyntaxError") return describeSyntaxError(context, cause)
  if (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") {
    const importer = /Require stack:\n- (.+)/.exec(cause.message)?.[1]
    return new ModuleLoadError({
      message: `${context.label} failed to load: ${firstLine(cause.message)}${importer === undefined ? "" : ` imported from ${importer}`}`,
      hint: "install the missing package next to the module (npm install), or fix the import path"
    })
  }
  if (/require is not defined in ES module scope/.test(cause.message)) {
    return new ModuleLoadError({ message: `${context.label} uses require or module.exports, but its package.json has "type": "module"`, hint: "rename the file to .cjs, or use import and export" })
  }
  const at = thrownAt(cause, context.path)
  return new ModuleLoadError({
    message: `${context.label} threw while loading: ${cause.name}: ${firstLine(cause.message)}${at === undefined ? "" : ` (at ${displayPath(at.file, context.cwd)}:${at.line})`}`,
    hint: "fix the error in the module; run it with tsx to see the stack"
  })
}

/**
 * Imports the user's module `specifier` (a path relative to `cwd`), named `label` in messages
 * (`adapter module ./theirs.ts`). Fails with one `ModuleLoadError` line: missing file, a folder, an
 * unsupported extension, a syntax error (file, line, column), a CommonJS package that cannot load it
 * (what to change), a missing dependency, or what the module threw.
 *
 * @example
 * const { exports } = yield* importUserModule("./my-adapter.ts", process.cwd(), "adapter module ./my-adapter.ts")
 */
export const importUserModule = (specifier: string, cwd: string, label: string): Effect.Effect<LoadedModule, ModuleLoadError> =>
  Effect.gen(function*() {
    const path = resolve(cwd, specifier)
    if (!existsSync(path)) return yield* new ModuleLoadError({ message: `${label} does not exist (looked at ${path})`, hint: "check the path" })
    if (statSync(path).isDirectory()) return yield* new ModuleLoadError({ message: `${label} is a folder`, hint: `pass the module file itself, such as ${specifier.replace(/\/$/, "")}/index.ts` })
    if (!MODULE_EXTENSIONS.includes(extname(path))) {
      return yield* new ModuleLoadError({ message: `${label} is not a JavaScript or TypeScript module`, hint: `pass a file ending in ${MODULE_EXTENSIONS.join(", ")}` })
    }
    const loaded = yield* Effect.promise(() =>
      (import(pathToFileURL(path).href) as Promise<Record<string, unknown>>).then(
        (namespace) => ({ namespace }),
        (cause: unknown) => describeLoadFailure({ label, path, cwd }, cause).then((error) => ({ error }))
      )
    )
    if ("error" in loaded) return yield* loaded.error
    return { path, exports: moduleExports(loaded.namespace) }
  })
