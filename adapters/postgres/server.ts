/**
 * Where the `postgres` adapter's server comes from, as a scoped resource:
 * - `DATABASE_URL` (or an explicit `databaseUrl`) when set: checked for reachability with a short
 *   connect timeout; an unreachable server is an `AdapterError` whose message names the redacted URL
 *   and whose hint says what to do;
 * - otherwise a throwaway embedded server (`embedded.ts`), stopped and deleted when the scope closes
 *   (and on process exit, SIGINT or SIGTERM).
 */
import { Duration, Effect, Redacted } from "effect"
import * as PgConnection from "@effect/sql-pg/PgConnection"
import { AdapterError } from "../contract.ts"
import { startEmbeddedPostgres, type EmbeddedPostgresOptions } from "./embedded.ts"
import { redactConnectionString, scrubSecrets } from "./redact.ts"

/** Adapter name used in errors. */
const ADAPTER = "postgres"

/** Default bound on reaching a `DATABASE_URL` server. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 3_000

/** Options for `acquirePostgresServer`. */
export interface PostgresServerOptions {
  /** Connection string of an existing server; default `process.env.DATABASE_URL`; empty means unset. */
  readonly databaseUrl?: string | undefined
  /** Bound on the reachability check of an existing server (default 3 000 ms). */
  readonly connectTimeoutMs?: number
  /** Options of the embedded server, used only when no URL is given. */
  readonly embedded?: EmbeddedPostgresOptions
}

/** A server ready for connections. */
export interface PostgresServer {
  /** Connection string (a secret: print `redactedUrl`). */
  readonly url: string
  /** `url` with its password hidden. */
  readonly redactedUrl: string
  /** `"DATABASE_URL"` for a server we were given, `"embedded"` for one we started. */
  readonly source: "DATABASE_URL" | "embedded"
  /** Milliseconds spent starting the embedded server (init + start); 0 for `DATABASE_URL`. */
  readonly startupMs: number
}

/** Quiet unless asked: `onLog` given, or `DC_POSTGRES_LOG=1` (server log lines go to stderr). */
const embeddedOptions = (options: EmbeddedPostgresOptions | undefined): EmbeddedPostgresOptions =>
  options?.onLog !== undefined || process.env["DC_POSTGRES_LOG"] !== "1"
    ? options ?? {}
    : { ...options, onLog: (line) => process.stderr.write(`[postgres] ${line}\n`) }

/** The connection string to use, or undefined to start an embedded server. */
export const configuredDatabaseUrl = (options: PostgresServerOptions = {}): string | undefined => {
  const url = options.databaseUrl !== undefined ? options.databaseUrl : process.env["DATABASE_URL"]
  return url === undefined || url.trim() === "" ? undefined : url.trim()
}

const describeCause = (cause: unknown): string => {
  if (typeof cause === "object" && cause !== null) {
    const reason = (cause as { readonly reason?: { readonly cause?: unknown; readonly message?: unknown } }).reason
    const inner = reason?.cause
    if (inner instanceof Error && inner.message !== "") return inner.message
    if (typeof reason?.message === "string" && reason.message !== "") return reason.message
    if (cause instanceof Error && cause.message !== "") return cause.message
  }
  return String(cause)
}

/**
 * Connects once (bounded by `connectTimeoutMs`) and runs `SELECT 1`.
 * Fails with an `AdapterError` whose message carries only the redacted URL.
 */
export const checkReachable = (url: string, connectTimeoutMs: number = DEFAULT_CONNECT_TIMEOUT_MS) => {
  const redactedUrl = redactConnectionString(url)
  const unreachable = (cause: unknown) => {
    const reasonTag = (cause as { readonly reason?: { readonly _tag?: unknown } } | undefined)?.reason?._tag
    const rejected = reasonTag === "AuthenticationError" || reasonTag === "AuthorizationError" ||
      /database ".*" does not exist/.test(describeCause(cause))
    return new AdapterError({
      adapter: ADAPTER,
      message: rejected
        ? `the Postgres server at ${redactedUrl} refused the login: ${scrubSecrets(describeCause(cause), url)}`
        : `cannot reach the Postgres server at ${redactedUrl}: ${scrubSecrets(describeCause(cause), url)}`,
      hint: rejected
        ? "check the user, password and database in DATABASE_URL, or unset it to use an embedded server"
        : "start the server or unset DATABASE_URL to use an embedded one",
      cause: scrubSecrets(String(cause), url)
    })
  }
  return Effect.gen(function*() {
    try {
      new URL(url)
    } catch {
      return yield* new AdapterError({
        adapter: ADAPTER,
        message: `DATABASE_URL is not a valid connection string (${redactedUrl})`,
        hint: "use the form postgres://user:password@host:port/database, or unset DATABASE_URL to use an embedded server"
      })
    }
    yield* Effect.scoped(
      Effect.flatMap(
        PgConnection.make({ url: Redacted.make(url), connectTimeout: Duration.millis(connectTimeoutMs) }),
        (connection) => connection.query("SELECT 1")
      )
    ).pipe(
      // The connect timeout covers the handshake; this also bounds a server that accepts and then stalls.
      Effect.timeoutOrElse({
        duration: Duration.millis(connectTimeoutMs * 2),
        orElse: () => Effect.fail(new Error(`no answer within ${connectTimeoutMs * 2} ms`))
      }),
      Effect.mapError(unreachable)
    )
  })
}

/**
 * The server for this scope: the configured `DATABASE_URL` (checked), or an embedded one that stops
 * when the scope closes.
 */
export const acquirePostgresServer = (options: PostgresServerOptions = {}) => {
  const url = configuredDatabaseUrl(options)
  if (url !== undefined) {
    return checkReachable(url, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS).pipe(
      Effect.as<PostgresServer>({ url, redactedUrl: redactConnectionString(url), source: "DATABASE_URL", startupMs: 0 })
    )
  }
  return Effect.acquireRelease(
    Effect.tryPromise({
      try: () => startEmbeddedPostgres(embeddedOptions(options.embedded)),
      catch: (cause) =>
        new AdapterError({
          adapter: ADAPTER,
          message: `could not start an embedded Postgres server: ${describeCause(cause)}`,
          hint: "set DATABASE_URL to a Postgres server you run yourself",
          cause
        })
    }),
    (server) => Effect.promise(() => server.stop())
  ).pipe(
    Effect.map((server): PostgresServer => ({
      url: server.url,
      redactedUrl: redactConnectionString(server.url),
      source: "embedded",
      startupMs: server.initMs + server.startMs
    }))
  )
}
