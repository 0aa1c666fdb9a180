/**
 * One vitest config, two projects: `node` (sqlite, pglite, postgres, harness, models, reports, CLI)
 * and `workerd` (Durable Object SQLite in real workerd through the Cloudflare vitest plugin).
 */
import { cloudflareTest } from "@cloudflare/vitest-plugin"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    // The JSON result file lets .ci/run print one plain "N passed, N failed" line at the end.
    reporters: ["default", "json"],
    outputFile: { json: ".tmp/vitest-results.json" },
    projects: [
      {
        test: {
          name: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/workerd/**", "node_modules/**"],
          globalSetup: ["test/setup/postgres-global.ts"],
          // Two files at once even on 2 cores (vitest's default there is one): most long files wait on
          // a Postgres server or a workerd process, so a second file uses the idle core. Every file
          // opens its own databases and writes its own output folder. Vitest runs projects of different
          // worker counts in separate groups: this one first, then workerd's.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          testTimeout: 120_000,
          hookTimeout: 120_000
        }
      },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./test/workerd/wrangler.jsonc" } })],
        test: {
          name: "workerd",
          include: ["test/workerd/**/*.test.ts"],
          // One worker, no per-file isolation: importing Effect and fast-check into workerd dominates
          // the project's time (measured 67 s -> 48 s).
          isolate: false,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
          testTimeout: 120_000
        }
      }
    ]
  }
})
