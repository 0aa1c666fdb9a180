/**
 * The suite's content hash: SHA-256 over the requirement catalog, the reference models and the
 * properties (every `.ts` file under `spec/`, `models/` and `properties/`). A certificate records it,
 * and `verify-certificate` refuses a certificate whose hash differs from the installed suite's.
 *
 * Deterministic across machines: files are listed by their `/`-separated path relative to the root,
 * sorted by code unit; each contributes `path`, its byte length and its bytes (CRLF read as LF, so a
 * Windows checkout hashes like a Unix one), framed so that no two different file sets collide by
 * concatenation.
 */
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { compareCodeUnits } from "../harness/CodeUnitOrder.ts"
import { join } from "node:path"

/** The folders that make up the suite, relative to the package root. */
export const SUITE_DIRECTORIES: ReadonlyArray<string> = ["spec", "models", "properties"]

/** Deepest folder nesting walked. */
const MAX_DEPTH = 32
/** Most files hashed; the suite has a few dozen. */
const MAX_FILES = 10_000

/** A folder that is not part of the suite even when found under a suite directory. */
const IGNORED_DIRECTORIES = new Set(["node_modules", ".git", ".tmp"])

const walk = (rootDir: string, relative: string, depth: number, out: Array<string>): void => {
  if (depth > MAX_DEPTH) throw new Error(`suite hash: ${relative} is nested deeper than ${MAX_DEPTH} folders`)
  let entries
  try {
    entries = readdirSync(join(rootDir, relative), { withFileTypes: true })
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT" && depth === 0) return
    throw cause
  }
  for (const entry of entries) {
    const path = `${relative}/${entry.name}`
    if (entry.isDirectory()) {
      if (!IGNORED_DIRECTORIES.has(entry.name)) walk(rootDir, path, depth + 1, out)
    } else if (entry.isFile() && entry.name.endsWith(".ts")) {
      if (out.length >= MAX_FILES) throw new Error(`suite hash: more than ${MAX_FILES} files under ${rootDir}`)
      out.push(path)
    }
  }
}

/**
 * The suite files under `rootDir`, as sorted `/`-separated relative paths.
 *
 * @example
 * listSuiteFiles(".") // ["models/alarms.ts", "properties/alarms.ts", "spec/Requirement.ts", ...]
 */
export const listSuiteFiles = (rootDir: string, directories: ReadonlyArray<string> = SUITE_DIRECTORIES): ReadonlyArray<string> => {
  const files: Array<string> = []
  for (const directory of directories) walk(rootDir, directory, 0, files)
  return files.sort(compareCodeUnits)
}

/**
 * SHA-256 (lower-case hex) over the suite's files under `rootDir` (the package root). Throws when
 * no suite file is found, which means `rootDir` is not the package root.
 *
 * @example
 * computeSuiteHash(fileURLToPath(new URL("..", import.meta.url)))
 */
export const computeSuiteHash = (rootDir: string, directories: ReadonlyArray<string> = SUITE_DIRECTORIES): string => {
  const files = listSuiteFiles(rootDir, directories)
  if (files.length === 0) {
    throw new Error(`suite hash: no .ts files under ${directories.join(", ")} in ${rootDir}; pass the durable-conformance package root`)
  }
  const hash = createHash("sha256")
  hash.update(`durable-conformance suite hash v1\n${files.length}\n`)
  for (const path of files) {
    const content = Buffer.from(readFileSync(join(rootDir, path), "utf8").replace(/\r\n/g, "\n"), "utf8")
    hash.update(`${path}\n${content.byteLength}\n`)
    hash.update(content)
    hash.update("\n")
  }
  return hash.digest("hex")
}
