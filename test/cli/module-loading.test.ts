/**
 * Vendor modules load whatever their package.json says (`cli/loadModule.ts`), through the installed
 * command (`bin/durable-conformance.mjs`, a real process: in-process tests would load modules through
 * vitest's own transform instead). The fixture packages live in `test/cli/fixtures/packages/`:
 * `cjs-vendor` has no `"type": "module"`, `esm-vendor` has it.
 */
import { describe, expect, it } from "vitest"
import { describeLoadFailure, displayPath, moduleExports } from "../../cli/loadModule.ts"
import { PACKAGES, runBin } from "./binSupport.ts"

const oneLine = (text: string): boolean => text.trim().split("\n").length === 1
const cjs = (file: string) => `./test/cli/fixtures/packages/cjs-vendor/${file}`
const esm = (file: string) => `./test/cli/fixtures/packages/esm-vendor/${file}`

describe("vendor modules in a CommonJS package (no \"type\": \"module\")", () => {
  it("runs adapters written as .ts, .mts, .js with import/export and .js with module.exports", async () => {
    const adapters = [cjs("adapter.ts"), cjs("adapter-module.mts"), cjs("adapter-esm-syntax.js"), cjs("adapter-commonjs.js")]
    const result = await runBin(["run", "--adapter", adapters.join(","), "--subject", "adapter", "--runs", "20", "--out", ".tmp/module-loading/adapters", "--quiet"])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    for (const name of ["cjs-ts", "cjs-mts", "cjs-esm-js", "cjs-commonjs-js"]) expect(result.stdout).toMatch(new RegExp(`^${name} +\\d+ pass +0 fail`, "m"))
  })

  it("binds an implementation from a .ts file there (loaded by the CLI itself, not only in the adapter's process)", async () => {
    const result = await runBin(["run", "--implementation", cjs("implementation.ts"), "--adapter", "sqlite", "--subject", "alarms", "--runs", "20", "--out", ".tmp/module-loading/implementation", "--quiet"])
    expect(result.stderr).not.toContain("Cannot require")
    expect(result.code).toBe(1)
    expect(result.stdout).toContain("FAIL ALM-049 on sqlite")
  })

  it("shows a syntax error as a syntax error, with file, line and column, in one line", async () => {
    const result = await runBin(["run", "--adapter", cjs("syntax-error.ts"), "--subject", "adapter", "--runs", "1", "--out", ".tmp/module-loading/syntax"])
    expect(result.code).toBe(2)
    expect(oneLine(result.stderr)).toBe(true)
    expect(result.stderr).toContain(`adapter module ${cjs("syntax-error.ts")} has a syntax error at line 5, column 19`)
    expect(result.stderr).not.toContain("Cannot require")
  })

  it("says what to change when CommonJS cannot load the module (top-level await)", async () => {
    const result = await runBin(["run", "--implementation", cjs("top-level-await.ts"), "--adapter", "sqlite", "--subject", "alarms", "--runs", "1", "--out", ".tmp/module-loading/tla"])
    expect(result.code).toBe(2)
    expect(oneLine(result.stderr)).toBe(true)
    expect(result.stderr).toContain(`is loaded as CommonJS (${cjs("package.json")} has no "type": "module")`)
    expect(result.stderr).toContain(`add "type": "module" to ${cjs("package.json")}, or rename the file to .mts`)
  })
})

describe("vendor modules in an ES module package", () => {
  it("locates a .js syntax error Node reports without a line", async () => {
    const result = await runBin(["run", "--adapter", esm("syntax-error.js"), "--subject", "adapter", "--runs", "1", "--out", ".tmp/module-loading/esm-syntax"])
    expect(result.code).toBe(2)
    expect(oneLine(result.stderr)).toBe(true)
    expect(result.stderr).toContain(`adapter module ${esm("syntax-error.js")} has a syntax error at line 4, column 19`)
  })

  it("says to rename CommonJS code in a \"type\": \"module\" package", async () => {
    const result = await runBin(["run", "--adapter", esm("uses-require.js"), "--subject", "adapter", "--runs", "1", "--out", ".tmp/module-loading/esm-require"])
    expect(result.code).toBe(2)
    expect(oneLine(result.stderr)).toBe(true)
    expect(result.stderr).toContain("rename the file to .cjs")
  })
})

describe("describeLoadFailure", () => {
  const context = { label: "adapter module ./adapter.ts", path: `${PACKAGES}/cjs-vendor/adapter.ts`, cwd: PACKAGES }

  it("turns Node's require(esm) cycle error into what to change in the package", async () => {
    const cycle = Object.assign(new Error(`Cannot require() ES Module ${context.path} in a cycle. A cycle involving require(esm) is not allowed.`), { code: "ERR_REQUIRE_CYCLE_MODULE" })
    const error = await describeLoadFailure(context, cycle)
    expect(error.message).toBe(`adapter module ./adapter.ts is loaded as CommonJS (./cjs-vendor/package.json has no "type": "module"), which cannot load it: ${cycle.message.split("\n")[0]}`)
    expect(error.hint).toBe(`add "type": "module" to ./cjs-vendor/package.json, or rename the file to .mts`)
  })

  it("keeps a missing dependency to one line naming the importer", async () => {
    const missing = Object.assign(new Error(`Cannot find module 'left-pad'\nRequire stack:\n- ${context.path}`), { code: "MODULE_NOT_FOUND" })
    const error = await describeLoadFailure(context, missing)
    expect(error.message).toBe(`adapter module ./adapter.ts failed to load: Cannot find module 'left-pad' imported from ${context.path}`)
    expect(error.message).not.toContain("\n")
  })

  it("unwraps a CommonJS-compiled module's exports and shows paths relative to the working directory", () => {
    const adapter = { name: "x" }
    expect(moduleExports({ default: { __esModule: true, default: adapter } })["default"]).toBe(adapter)
    expect(moduleExports({ default: adapter })["default"]).toBe(adapter)
    expect(displayPath("/a/b/c.ts", "/a")).toBe("./b/c.ts")
    expect(displayPath("/elsewhere/c.ts", "/a")).toBe("/elsewhere/c.ts")
  })
})
