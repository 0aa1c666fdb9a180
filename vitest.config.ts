/**
 * One vitest config, two projects: `node` (sqlite, pglite, postgres, harness, models, reports, CLI)
 * and `workerd` (Durable Object SQLite in real workerd through the Cloudflare vitest plugin).
 */
import { cloudflareTest } from "@cloudflare/vitest-plugin"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
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
          testTimeout: 120_000
        }
      }
    ]
  }
})
