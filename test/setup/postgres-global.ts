/**
 * Vitest globalSetup of the `node` project: one Postgres server for the whole test run.
 *
 * When `DATABASE_URL` is set it is used as is (tests fail with the adapter's clear "cannot reach"
 * error if it is down). Otherwise an embedded server is started once (~1.5 s), its URL is exported as
 * `process.env.DATABASE_URL` before the forked test workers start (they inherit the environment), and
 * is also `provide`d as `postgresUrl` for `inject("postgresUrl")`. It stops at teardown, and on
 * exit/SIGINT/SIGTERM of the vitest process.
 *
 * Set `DC_POSTGRES_LOG=1` to see the server's log lines.
 */
import type { TestProject } from "vitest/node"
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../adapters/postgres/embedded.ts"
import { redactConnectionString } from "../../adapters/postgres/redact.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** Connection string of the run's Postgres server (a secret). */
    postgresUrl: string
  }
}

let server: EmbeddedPostgres | undefined
let previousDatabaseUrl: string | undefined

/** Starts (or adopts) the run's Postgres server; returns the teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env["DATABASE_URL"]
  if (given !== undefined && given.trim() !== "") {
    project.provide("postgresUrl", given)
    return async () => {}
  }
  const verbose = process.env["DC_POSTGRES_LOG"] === "1"
  server = await startEmbeddedPostgres(verbose ? { onLog: (line) => console.error(`[postgres] ${line}`) } : {})
  previousDatabaseUrl = given
  process.env["DATABASE_URL"] = server.url
  project.provide("postgresUrl", server.url)
  if (verbose) {
    console.error(
      `[postgres] embedded server at ${redactConnectionString(server.url)} ` +
        `(initdb ${server.initMs.toFixed(0)} ms, start ${server.startMs.toFixed(0)} ms)`
    )
  }
  return async () => {
    const running = server
    server = undefined
    if (previousDatabaseUrl === undefined) delete process.env["DATABASE_URL"]
    else process.env["DATABASE_URL"] = previousDatabaseUrl
    await running?.stop()
  }
}
