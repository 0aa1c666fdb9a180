/**
 * A built-in adapter `run` isolates for parallelism (postgres after sqlite) starts its embedded Postgres
 * server in the child process; when the CLI is stopped with SIGTERM, even while that server is still
 * starting up (the test stops it the moment the server process appears), the server is stopped and
 * its data directory removed, not left running. (The child notices its parent is gone and exits through
 * its exit handlers. Were the CLI to kill the child itself, for a hang or at its own exit, it uses
 * SIGTERM for isolated built-ins, whose handler stops the server; this test does not reach that path.)
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { BIN, ROOT } from "./binSupport.ts"
import { scratchDir } from "./support.ts"

/** Bound on each wait below. */
const WAIT_MS = 90_000
const POLL_MS = 100

/** Parent pid, state letter and command line of every process, read from /proc. */
const processTable = (): ReadonlyArray<{ readonly pid: number; readonly ppid: number; readonly state: string; readonly command: string }> =>
  readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      const [state = "", ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      const command = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ")
      return [{ pid: Number(name), ppid: Number(ppid), state, command }]
    } catch {
      return [] // the process exited while being read
    }
  })

/** The data directory of an embedded Postgres server descending from `rootPid`, if one runs. */
const embeddedServerOf = (rootPid: number): { readonly pid: number; readonly directory: string } | undefined => {
  const table = processTable()
  const descendants = new Set([rootPid])
  for (let depth = 0; depth < 8; depth++) for (const entry of table) if (descendants.has(entry.ppid)) descendants.add(entry.pid)
  const server = table.find((entry) => descendants.has(entry.pid) && / -D (\S+)\/data /.test(entry.command))
  const directory = server?.command.match(/ -D (\S+)\/data /)?.[1]
  return server === undefined || directory === undefined ? undefined : { pid: server.pid, directory }
}

/** Polls `probe` until it returns a value, at most `WAIT_MS`. */
const waitFor = async <A>(what: string, probe: () => A | undefined): Promise<A> => {
  for (let waitedMs = 0; waitedMs < WAIT_MS; waitedMs += POLL_MS) {
    const value = probe()
    if (value !== undefined) return value
    await new Promise((done) => setTimeout(done, POLL_MS))
  }
  throw new Error(`gave up after ${WAIT_MS} ms waiting for ${what}`)
}

/**
 * True when `pid` no longer runs. An exited process whose parent died stays a zombie (`Z`) until the
 * init process reaps it, and an init that reaps late (or never, in some containers) is not the server's
 * fault.
 */
const stopped = (pid: number): boolean => !processTable().some((entry) => entry.pid === pid && entry.state !== "Z" && entry.state !== "X")

const exited = (child: ChildProcess): Promise<void> => new Promise((done) => (child.exitCode !== null ? done() : child.once("exit", () => done())))

describe("an isolated built-in postgres adapter", () => {
  it("stops its embedded server when the CLI gets SIGTERM", async () => {
    const env = { ...process.env }
    delete env["DATABASE_URL"]
    const out = join(scratchDir(), "out")
    const cli = spawn(process.execPath, [BIN, "run", "--adapter", "sqlite,postgres", "--subject", "alarms", "--runs", "1000", "--out", out, "--quiet"], { cwd: ROOT, env, stdio: "ignore" })
    try {
      const server = await waitFor("the embedded server", () => embeddedServerOf(cli.pid!))
      expect(existsSync(server.directory)).toBe(true)
      cli.kill("SIGTERM")
      await exited(cli)
      await waitFor("the server to stop", () => (stopped(server.pid) ? true : undefined))
      // The child removes the directory after the server exits, in its own time: wait for it (bounded).
      await waitFor("the data directory to be removed", () => (existsSync(server.directory) ? undefined : true))
      expect(existsSync(server.directory)).toBe(false)
    } finally {
      cli.kill("SIGKILL")
    }
  }, 2 * WAIT_MS + 30_000)
})
