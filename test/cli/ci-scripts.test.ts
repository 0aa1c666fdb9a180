/**
 * The example workflow's matrix-and-merge steps (`.github/workflows/conformance.yml`), run locally as
 * the scripts CI runs (`scripts/ci/shard.sh` per cell, `scripts/ci/merge.sh` per adapter) through
 * `scripts/ci/local-matrix.sh`, which also checks the merged report against the unsharded run.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")
const workdir = mkdtempSync(join(tmpdir(), "dc-ci-"))
afterAll(() => rmSync(workdir, { recursive: true, force: true }))

const bash = (script: string, args: ReadonlyArray<string>, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((done) => {
    const environment: NodeJS.ProcessEnv = { ...process.env, ...env, GITHUB_STEP_SUMMARY: "" }
    execFile("bash", [join(root, script), ...args], { cwd: root, env: environment, timeout: 170_000, maxBuffer: 8 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    })
  })

describe("scripts/ci", () => {
  it("runs the 4-shard matrix and the merge locally; the merged report is the unsharded run's", async () => {
    const result = await bash("scripts/ci/local-matrix.sh", [workdir, "--subject", "adapter"], { ADAPTERS: "sqlite", SHARDS: "4", RUNS: "4", SEED: "5" })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain("sqlite: 4 shards merged into the unsharded run's report (exit 0)")
    for (let k = 1; k <= 4; k++) expect(existsSync(join(workdir, "shards-sqlite", `shard-sqlite-${k}`, "junit.xml"))).toBe(true)
    expect(readFileSync(join(workdir, "merged-sqlite", "junit.xml"), "utf8")).toContain("<testsuites")
    expect(readFileSync(join(workdir, "merged-sqlite", "report.json"), "utf8")).not.toContain("\"shard\"")
  }, 180_000)

  it("the merge step fails with exit 2 when a shard is missing", async () => {
    rmSync(join(workdir, "shards-sqlite", "shard-sqlite-3"), { recursive: true, force: true })
    const result = await bash("scripts/ci/merge.sh", [], { SHARDS_DIR: join(workdir, "shards-sqlite"), OUT: join(workdir, "merged-missing") })
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain("shard 3/4 is missing")
  }, 60_000)
})
