/**
 * Starts an embedded PostgreSQL server for CI and prints its connection string on stdout once it accepts
 * connections; stops it (and deletes its data directory) on SIGTERM, SIGINT or when stdin closes.
 * `.ci/run` reads the line into DATABASE_URL so the tests use a server it started.
 */
import { startEmbeddedPostgres } from "../adapters/postgres/embedded.ts"
import { redactConnectionString } from "../adapters/postgres/redact.ts"

const server = await startEmbeddedPostgres({ onLog: () => {} })
process.stderr.write(`postgres ready at ${redactConnectionString(server.url)} (initdb ${server.initMs} ms, start ${server.startMs} ms)\n`)
process.stdout.write(`${server.url}\n`)

let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await server.stop()
  process.exit(0)
}
process.on("SIGTERM", () => void stop())
process.on("SIGINT", () => void stop())
