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
          testTimeout: 120_000
        }
      }
    ]
  }
})
