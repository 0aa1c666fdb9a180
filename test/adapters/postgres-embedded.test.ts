/**
 * The embedded server's lifecycle: it starts on loopback, stops with its scope, and leaves no
 * server or directory behind when its process is interrupted (SIGINT, SIGTERM) or exits.
 */
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createConnection } from "node:net"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AdapterError } from "../../adapters/contract.ts"
import { acquirePostgresServer, checkReachable } from "../../adapters/postgres/server.ts"

const embeddedModule = fileURLToPath(new URL("../../adapters/postgres/embedded.ts", import.meta.url))

/** Bound on waiting for a child's server to start or stop. */
const CHILD_TIMEOUT_MS = 60_000

/** True when something accepts TCP connections on 127.0.0.1:port. */
const isListening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

describe("embedded postgres lifecycle", () => {
  it("starts a server for the scope when DATABASE_URL is unset, and stops it when the scope closes", async () => {
    const server = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const server = yield* acquirePostgresServer({ databaseUrl: "" })
      expect(server.source).toBe("embedded")
      expect(server.redactedUrl).toMatch(/^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres$/)
      expect(server.startupMs).toBeGreaterThan(0)
      yield* checkReachable(server.url)
      return server
    })))
    const error = await Effect.runPromise(Effect.flip(checkReachable(server.url, 1_000)))
    expect(error).toBeInstanceOf(AdapterError)
    expect(error.message).toContain("cannot reach")
  })

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`leaves no server and no directory behind on ${signal}`, async () => {
      const script = [
        `const { startEmbeddedPostgres } = await import(${JSON.stringify(embeddedModule)})`,
        "const server = await startEmbeddedPostgres()",
        "console.log('READY ' + JSON.stringify({ directory: server.directory, port: server.port }))",
        "setInterval(() => {}, 1000)"
      ].join("\n")
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stderr = ""
      child.stderr.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString("utf8")).slice(-4_000)
      })
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once("exit", (code, exitSignal) => resolve({ code, signal: exitSignal }))
      )
      try {
        const ready = await new Promise<{ directory: string; port: number }>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no READY within ${CHILD_TIMEOUT_MS} ms: ${stderr}`)), CHILD_TIMEOUT_MS)
          let stdout = ""
          child.stdout.on("data", (chunk: Buffer) => {
            stdout += chunk.toString("utf8")
            const match = /READY (\{.*\})/.exec(stdout)
            if (match !== null) {
              clearTimeout(timer)
              resolve(JSON.parse(match[1]!) as { directory: string; port: number })
            }
          })
          void exited.then(() => reject(new Error(`child exited before READY: ${stderr}`)))
        })
        expect(existsSync(ready.directory)).toBe(true)
        expect(await isListening(ready.port)).toBe(true)

        child.kill(signal)
        const exit = await exited
        // The default action of the signal still happens (nobody else handles it in the child).
        expect(exit.signal).toBe(signal)
        expect(existsSync(ready.directory)).toBe(false)
        // The postmaster got an immediate-shutdown request; it must be gone shortly (bounded wait).
        let listening = true
        for (let attempt = 0; attempt < 100 && listening; attempt++) {
          listening = await isListening(ready.port)
          if (listening) await new Promise((resolve) => setTimeout(resolve, 50))
        }
        expect(listening).toBe(false)
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
      }
    })
  }
})
