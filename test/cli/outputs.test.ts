/**
 * Results are never lost: the outputs are checked before anything runs (one line, exit 2); a report
 * that still cannot be written after the run costs neither the summary nor the other files, and the
 * message names the file; an adapter whose `make` throws is an adapter error for its author.
 */
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runCli, scratchDir } from "./support.ts"

const fixtures = resolve(import.meta.dirname, "fixtures")
const oneLine = (text: string) => text.trim().split("\n").length === 1

const canWrite = (folder: string): boolean => {
  try {
    writeFileSync(join(folder, "probe"), "")
    unlinkSync(join(folder, "probe"))
    return true
  } catch {
    return false
  }
}

/** A folder nobody can write into: read-only mode, or immutable when running as root; undefined when neither works here. */
const lockedFolder = ((): string | undefined => {
  const folder = join(scratchDir(), "locked")
  mkdirSync(folder)
  chmodSync(folder, 0o555)
  if (!canWrite(folder)) return folder
  try {
    execFileSync("chattr", ["+i", folder], { stdio: "ignore" })
  } catch {
    return undefined
  }
  return canWrite(folder) ? undefined : folder
})()

afterAll(() => {
  if (lockedFolder !== undefined) {
    try {
      execFileSync("chattr", ["-i", lockedFolder], { stdio: "ignore" })
    } catch {
      // not immutable: only read-only
    }
  }
})

const quickRun = ["run", "--adapter", "sqlite", "--subject", "adapter", "--runs", "2", "--quiet"]

describe("outputs are checked before anything runs", () => {
  it("refuses --out naming an existing file in one line, exit 2, before any adapter starts", async () => {
    const cwd = scratchDir()
    writeFileSync(join(cwd, "taken"), "not a folder")
    const result = await runCli([...quickRun.filter((arg) => arg !== "--quiet"), "--out", "taken"], { cwd })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("--out taken is a file, not a folder")
    expect(oneLine(result.stderr)).toBe(true)
    expect(result.stdout).toBe("")
  })

  it.skipIf(lockedFolder === undefined)("refuses a read-only --out folder in one line, exit 2", async () => {
    const result = await runCli([...quickRun, "--out", lockedFolder!])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`cannot write into --out ${lockedFolder}`)
    expect(oneLine(result.stderr)).toBe(true)
  })

  it("refuses an unwritable GITHUB_STEP_SUMMARY in one line, exit 2", async () => {
    const result = await runCli([...quickRun, "--out", "out"], { env: { GITHUB_STEP_SUMMARY: "/nonexistent-dir/step-summary.md" } })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("cannot append to GITHUB_STEP_SUMMARY (/nonexistent-dir/step-summary.md)")
    expect(oneLine(result.stderr)).toBe(true)
    expect(existsSync(join(result.cwd, "out", "report.json"))).toBe(false)
  })

  it("refuses a report file that is a folder, and certify checks its outputs before its three seeds", async () => {
    const cwd = scratchDir()
    mkdirSync(join(cwd, "certificate", "certificate.json"), { recursive: true })
    const startedMs = Date.now()
    const result = await runCli(["certify", "--adapter", "sqlite", "--quiet"], { cwd })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`cannot overwrite ${join(cwd, "certificate", "certificate.json")}: it is a folder`)
    expect(oneLine(result.stderr)).toBe(true)
    expect(Date.now() - startedMs).toBeLessThan(10_000)
  })
})

describe("a report that cannot be written after the run", () => {
  const sabotaging = join(fixtures, "sabotages-outputs.ts")

  it("still prints the summary, writes the other files, names the file, exit 2", async () => {
    const result = await runCli(["run", "--adapter", sabotaging, "--subject", "adapter", "--runs", "2", "--out", "out", "--quiet"], { env: { SABOTAGE_PATHS: "out/report.html" } })
    expect(result.code).toBe(2)
    expect(result.stdout).toMatch(/\d+ pass, 0 fail/)
    expect(result.stderr).toContain(`could not write ${join(result.cwd, "out", "report.html")}`)
    expect(result.stderr).not.toContain("internal error")
    expect(existsSync(join(result.cwd, "out", "report.json"))).toBe(true)
    expect(existsSync(join(result.cwd, "out", "junit.xml"))).toBe(true)
  })

  it("names GITHUB_STEP_SUMMARY when appending to it fails", async () => {
    const cwd = scratchDir()
    writeFileSync(join(cwd, "summary.md"), "")
    const result = await runCli(["run", "--adapter", sabotaging, "--subject", "adapter", "--runs", "2", "--out", "out", "--quiet"], {
      cwd,
      env: { GITHUB_STEP_SUMMARY: join(cwd, "summary.md"), SABOTAGE_PATHS: "summary.md" }
    })
    expect(result.code).toBe(2)
    expect(result.stdout).toMatch(/\d+ pass, 0 fail/)
    expect(result.stderr).toContain(`could not write GITHUB_STEP_SUMMARY (${join(cwd, "summary.md")})`)
    expect(readFileSync(join(cwd, "out", "report.md"), "utf8")).toContain("sabotages-outputs")
  })
})

describe("an adapter whose make throws", () => {
  it("is an adapter error with a hint for the adapter's author, the reports written, exit 2", async () => {
    const result = await runCli(["run", "--adapter", join(fixtures, "throws-in-make.ts"), "--subject", "adapter", "--runs", "2", "--out", "out", "--quiet"])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("adapter throws-in-make: its make threw TypeError: cannot read the vendor's connection settings")
    expect(result.stderr).toContain("fail with an AdapterError")
    expect(result.stderr).not.toContain("internal error")
    expect(oneLine(result.stderr)).toBe(true)
    expect(existsSync(join(result.cwd, "out", "report.json"))).toBe(true)
  })
})
