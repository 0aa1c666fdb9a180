/**
 * Replay is safe and complete: every printed replay command (stdout, report.md, report.html,
 * junit.xml, certificate) works as printed, run through a real shell; replay imports only modules
 * named on its command line, checked against what the token names; a different adapter is refused.
 */
import { copyFileSync, existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { encodeReplayToken, type ReplayTokenPayload } from "../../harness/ReplayToken.ts"
import { SUITE_VERSION } from "../../harness/SuiteVersion.ts"
import { CERTIFICATION_BUDGET, makeCertificate, renderCertificateHtml } from "../../reports/certificate.ts"
import { readReport } from "../../reports/json.ts"
import { replayCommand } from "../../reports/text.ts"
import { ROOT, runBin, runPrinted } from "./binSupport.ts"
import { runCli, scratchDir } from "./support.ts"

const oneLine = (text: string): boolean => text.trim().split("\n").length === 1

const unescapeMarkup = (text: string): string =>
  text.replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&apos;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

/** Every replay command a run printed, by where it was printed. */
const printedCommands = (stdout: string, outDir: string): Record<string, ReadonlyArray<string>> => {
  const report = readReport(readFileSync(join(outDir, "report.json"), "utf8"))
  const certificate = renderCertificateHtml(makeCertificate({ report, kind: "adapter", budget: CERTIFICATION_BUDGET, seeds: [report.options.seed], filtered: false }))
  const commands = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].map((match) => unescapeMarkup(match[1]!).trim())
  return {
    stdout: commands(stdout, /replay: (npx durable-conformance replay .*)$/gm),
    "report.md": commands(readFileSync(join(outDir, "report.md"), "utf8"), /^(npx durable-conformance replay .*)$/gm),
    "report.html": commands(readFileSync(join(outDir, "report.html"), "utf8"), /<pre class="replay"><code>(npx durable-conformance replay [^<]*)<\/code>/g),
    "junit.xml": commands(readFileSync(join(outDir, "junit.xml"), "utf8"), /^replay: (npx durable-conformance replay .*)$/gm),
    certificate: commands(certificate, /<code>(npx durable-conformance replay [^<]*)<\/code>/g)
  }
}

const expectReproduces = async (command: string, where: string) => {
  const replay = await runPrinted(command)
  expect(replay.stderr, `${where}: ${command}`).toBe("")
  expect(replay.code, where).toBe(1)
  expect(replay.stdout, where).toMatch(/^FAIL [A-Z]{3}-\d{3} at step \d+: /m)
}

describe("printed replay commands work as printed", () => {
  it("for a module adapter: every output carries --adapter <path>, and each replays the failure", async () => {
    const outDir = join(scratchDir(), "out")
    const module = "./examples/nonconforming-adapter/index.ts"
    const run = await runCli(["run", "--adapter", module, "--subject", "adapter", "--runs", "30", "--out", outDir, "--quiet"], { cwd: ROOT })
    expect(run.code).toBe(1)
    const printed = printedCommands(run.stdout, outDir)
    for (const [where, commands] of Object.entries(printed)) {
      expect(commands.length, where).toBeGreaterThan(0)
      for (const command of commands) expect(command, where).toContain(` --adapter ${module}`)
      await expectReproduces(commands[0]!, where)
    }
  })

  it("for a module adapter in a CommonJS package, run and replayed by the installed command", async () => {
    const run = await runBin(["run", "--adapter", "./test/cli/fixtures/packages/cjs-vendor/int32-adapter.ts", "--subject", "adapter", "--runs", "30", "--out", ".tmp/replay-safety/cjs", "--quiet"])
    expect(run.code).toBe(1)
    const command = /replay: (npx durable-conformance replay .*)$/m.exec(run.stdout)?.[1]
    expect(command).toContain(" --adapter ./test/cli/fixtures/packages/cjs-vendor/int32-adapter.ts --step")
    await expectReproduces(command!, "stdout")
  })
})

describe("replay with a bound implementation on a built-in adapter", () => {
  const knownBad = "./test/examples/fixtures/known-bad-alarms.ts"
  let token = ""
  let printed: Record<string, ReadonlyArray<string>> = {}

  beforeAll(async () => {
    const outDir = join(scratchDir(), "out")
    const run = await runCli(["run", "--implementation", knownBad, "--adapter", "sqlite", "--subject", "alarms", "--runs", "20", "--out", outDir, "--quiet"], { cwd: ROOT })
    expect(run.code).toBe(1)
    printed = printedCommands(run.stdout, outDir)
    token = /replay (dc1\.\S+)/.exec(run.stdout)?.[1] ?? ""
  }, 120_000)

  it("prints --bind <path> everywhere, and the printed command replays the failure", async () => {
    for (const [where, commands] of Object.entries(printed)) {
      expect(commands.length, where).toBeGreaterThan(0)
      for (const command of commands) {
        expect(command, where).toContain(` --bind ${knownBad}`)
        expect(command, where).not.toContain("--adapter")
      }
    }
    await expectReproduces(printed["report.md"]![0]!, "report.md")
  })

  it("refuses a different adapter than the token's, exit 2, saying what to pass", async () => {
    for (const adapter of ["pglite", "./examples/sqljs-adapter/index.ts"]) {
      const result = await runCli(["replay", token, "--bind", knownBad, "--adapter", adapter], { cwd: ROOT })
      expect(result.code, adapter).toBe(2)
      expect(oneLine(result.stderr), adapter).toBe(true)
      expect(result.stderr).toContain(`--adapter ${adapter} is not the adapter this failure was found on (sqlite) — pass --adapter sqlite, or leave --adapter out`)
      expect(result.stdout).toBe("")
    }
  })

  it("needs --bind with the very module the token names", async () => {
    const missing = await runCli(["replay", token], { cwd: ROOT })
    expect(missing.code).toBe(2)
    expect(oneLine(missing.stderr)).toBe(true)
    expect(missing.stderr).toContain(`— pass --bind ${knownBad}`)
    // The same scheduler from another file is still another module.
    const other = await runCli(["replay", token, "--bind", "./test/cli/fixtures/packages/cjs-vendor/implementation.ts"], { cwd: ROOT })
    expect(other.code).toBe(2)
    expect(other.stderr).toContain("is not the implementation module this failure was found with")
    // The same file named another way is the same module.
    const same = await runCli(["replay", token, "--bind", resolve(ROOT, knownBad)], { cwd: ROOT })
    expect(same.code).toBe(1)
  })
})

describe("a forged token cannot run code", () => {
  /** A fresh copy of the marker module (importing it writes IMPORTED next to it). */
  const planted = (): { readonly module: string; readonly marker: string } => {
    const folder = scratchDir()
    const module = join(folder, "evil.mts")
    copyFileSync(resolve(import.meta.dirname, "fixtures/writes-marker.mts"), module)
    return { module, marker: join(folder, "IMPORTED") }
  }

  const forged = (fields: Partial<ReplayTokenPayload>): string =>
    encodeReplayToken({ suiteVersion: SUITE_VERSION, propertyId: "adapter/transactions", implementation: "reference", adapter: "sqlite", seed: 1, path: "0", scenario: { baseline: [], body: [], failure: null }, ...fields })

  const cases: ReadonlyArray<readonly [string, (module: string) => Partial<ReplayTokenPayload>, string]> = [
    ["a token naming an adapter module", (module) => ({ adapter: "evil", adapterModule: module }), "pass --adapter"],
    ["a token whose adapter name is a module path", (module) => ({ adapter: module }), "which is not built in"],
    ["a token naming an implementation module", (module) => ({ implementation: "evil", implementationModule: module }), "pass --bind"]
  ]
  for (const [name, fields, message] of cases) {
    it(`refuses ${name} without importing it (exit 2, one line)`, async () => {
      const { module, marker } = planted()
      const token = forged(fields(module))
      for (const argv of [["replay", token], ["replay", token, "--adapter", "./examples/sqljs-adapter/index.ts"]]) {
        const result = await runCli(argv)
        expect(result.code).toBe(2)
        expect(oneLine(result.stderr)).toBe(true)
        expect(existsSync(marker)).toBe(false)
      }
      expect((await runCli(["replay", token])).stderr).toContain(message)
    })
  }

  it("the marker module does write its marker when imported (the checks above are real)", async () => {
    const { module, marker } = planted()
    await import(module)
    expect(existsSync(marker)).toBe(true)
  })
})

describe("replayCommand", () => {
  it("adds --adapter and --bind from the token, quoted for the shell when needed", () => {
    const token = encodeReplayToken({ suiteVersion: SUITE_VERSION, propertyId: "p", implementation: "mine", adapter: "a", seed: 1, path: "0", scenario: null, adapterModule: "./my adapter.ts", implementationModule: "./it's.ts" })
    expect(replayCommand(token)).toBe(`npx durable-conformance replay ${token} --adapter './my adapter.ts' --bind './it'\\''s.ts'`)
    const plain = encodeReplayToken({ suiteVersion: SUITE_VERSION, propertyId: "p", implementation: "reference", adapter: "sqlite", seed: 1, path: "0", scenario: null })
    expect(replayCommand(plain)).toBe(`npx durable-conformance replay ${plain}`)
  })
})
