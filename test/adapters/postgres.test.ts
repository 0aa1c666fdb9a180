/**
 * The `postgres` adapter against a real server (the run's server from `test/setup/postgres-global.ts`,
 * or `DATABASE_URL`): lifecycle, isolation, independent connections, types, errors, and the
 * unreachable-server error.
 */
import { createServer, type Server, type Socket } from "node:net"
import { Effect, Exit, Scope } from "effect"
import type { SqlClient } from "effect/sql"
import { describe, expect, inject, it } from "vitest"
import { AdapterError } from "../../adapters/contract.ts"
import { makePostgresAdapter, MAX_CONNECTIONS_PER_OPEN, redactConnectionString } from "../../adapters/postgres/index.ts"
import { pickFreeLoopbackPort } from "../../adapters/postgres/embedded.ts"
import { usePostgresAdapter } from "../support/nodeAdapters.ts"

const postgres = usePostgresAdapter()

/** Runs `effect` with live services and its own scope. */
const run = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>): Promise<A> => Effect.runPromise(Effect.scoped(effect))

const currentSchema = (sql: SqlClient.SqlClient) =>
  sql<{ readonly name: string }>`SELECT current_schema() AS name`.pipe(Effect.map((rows) => rows[0]!.name))

const schemaExists = (sql: SqlClient.SqlClient, name: string) =>
  sql<{ readonly n: number }>`SELECT count(*) AS n FROM pg_namespace WHERE nspname = ${name}`.pipe(
    Effect.map((rows) => rows[0]!.n === 1)
  )

describe("postgres adapter: identity", () => {
  it("uses the run's server from the global setup (DATABASE_URL is handed to the workers)", () => {
    const provided = inject("postgresUrl")
    expect(provided).toMatch(/^postgres(ql)?:\/\//)
    expect(process.env["DATABASE_URL"]).toBe(provided)
  })

  it("fingerprints the live engine and declares every capability", async () => {
    const fingerprint = await Effect.runPromise(postgres().fingerprint)
    expect(fingerprint.name).toBe("postgres")
    expect(fingerprint.engine).toBe("postgres")
    expect(fingerprint.dialect).toBe("postgres")
    expect(fingerprint.engineVersion).toMatch(/^\d+(\.\d+)?/)
    expect(fingerprint.adapterVersion).toMatch(/^\d+\.\d+\.\d+/)
    expect(fingerprint.capabilities).toEqual({
      independentConnections: true,
      rowLocks: true,
      snapshotReads: true,
      savepoints: true,
      platformAlarm: "emulated"
    })
  })
})

describe("postgres adapter: open and close", () => {
  it("opens an empty database with the platform alarm table, and drops it when the scope closes", async () => {
    const name = await run(Effect.gen(function*() {
      const db = yield* postgres().open()
      const tables = yield* db.sql<{ readonly table_name: string }>`
        SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`
      expect(tables.map((row) => row.table_name)).toEqual(["dc_platform_alarm"])
      expect(db.connections).toHaveLength(1)
      expect(db.connections[0]).toBe(db.sql)
      return yield* currentSchema(db.sql)
    }))
    const stillThere = await run(Effect.flatMap(postgres().open(), (db) => schemaExists(db.sql, name)))
    expect(stillThere).toBe(false)
  })

  it("isolates concurrent opens from each other and from earlier ones", async () => {
    await run(Effect.gen(function*() {
      const first = yield* postgres().open()
      const second = yield* postgres().open()
      expect(yield* currentSchema(first.sql)).not.toBe(yield* currentSchema(second.sql))
      yield* first.sql`CREATE TABLE items (id INTEGER PRIMARY KEY)`
      yield* first.sql`INSERT INTO items VALUES (1)`
      const seen = yield* second.sql<{ readonly t: string | null }>`SELECT to_regclass('items')::text AS t`
      expect(seen[0]!.t).toBeNull()
      yield* second.platformAlarm.set(42)
      expect(yield* first.platformAlarm.get).toBeNull()
    }))
    await run(Effect.gen(function*() {
      const later = yield* postgres().open()
      const seen = yield* later.sql<{ readonly t: string | null }>`SELECT to_regclass('items')::text AS t`
      expect(seen[0]!.t).toBeNull()
      expect(yield* later.platformAlarm.get).toBeNull()
    }))
  })

  it("refuses a connection count outside 1..MAX_CONNECTIONS_PER_OPEN with a clear error", async () => {
    const error = await run(Effect.flip(postgres().open({ connections: MAX_CONNECTIONS_PER_OPEN + 1 })))
    expect(error).toBeInstanceOf(AdapterError)
    expect(error.hint).toContain(String(MAX_CONNECTIONS_PER_OPEN))
  })

  it("isolates whole databases too (isolation: database)", async () => {
    await run(Effect.gen(function*() {
      const databaseAdapter = yield* makePostgresAdapter({ isolation: "database" }).make
      const name = yield* Effect.scoped(Effect.gen(function*() {
        const db = yield* databaseAdapter.open({ connections: 2 })
        const rows = yield* db.connections[1]!<{ readonly name: string }>`SELECT current_database() AS name`
        expect(rows[0]!.name).toMatch(/^dc_/)
        yield* db.platformAlarm.set(7)
        expect(yield* db.platformAlarm.get).toBe(7)
        return rows[0]!.name
      }))
      const other = yield* postgres().open()
      const left = yield* other.sql<{ readonly n: number }>`SELECT count(*) AS n FROM pg_database WHERE datname = ${name}`
      expect(left[0]!.n).toBe(0)
    }))
  })
})

describe("postgres adapter: independent connections", () => {
  it("runs transactions on separate sessions: uncommitted writes are invisible to the other connection", async () => {
    await run(Effect.gen(function*() {
      const db = yield* postgres().open({ connections: 2 })
      const [writer, reader] = [db.connections[0]!, db.connections[1]!]
      yield* writer`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`
      const count = reader<{ readonly n: number }>`SELECT count(*) AS n FROM notes`.pipe(Effect.map((rows) => rows[0]!.n))
      const pids = yield* Effect.all([
        writer<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`,
        reader<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`
      ])
      expect(pids[0][0]!.pid).not.toBe(pids[1][0]!.pid)

      const seenInside = yield* writer.withTransaction(Effect.gen(function*() {
        yield* writer`INSERT INTO notes VALUES (1, 'draft')`
        // The writer's own session sees its write; the other session must not, until commit.
        const own = yield* writer<{ readonly n: number }>`SELECT count(*) AS n FROM notes`
        expect(own[0]!.n).toBe(1)
        return yield* count
      }))
      expect(seenInside).toBe(0)
      expect(yield* count).toBe(1)
    }))
  })

  it("rolls back a failed transaction and supports savepoints", async () => {
    await run(Effect.gen(function*() {
      const db = yield* postgres().open()
      yield* db.sql`CREATE TABLE kv (k TEXT PRIMARY KEY, v BIGINT NOT NULL)`
      const failed = yield* db.sql.withTransaction(Effect.gen(function*() {
        yield* db.sql`INSERT INTO kv VALUES ('a', 1)`
        yield* db.platformAlarm.set(1_000)
        return yield* Effect.fail("abort" as const)
      })).pipe(Effect.flip)
      expect(failed).toBe("abort")
      expect(yield* db.sql`SELECT * FROM kv`).toEqual([])
      expect(yield* db.platformAlarm.get).toBeNull()

      yield* db.sql.withTransaction(Effect.gen(function*() {
        yield* db.sql`INSERT INTO kv VALUES ('outer', 1)`
        yield* db.sql.withTransaction(db.sql`INSERT INTO kv VALUES ('inner', 2)`.pipe(Effect.andThen(Effect.fail("inner")))).pipe(
          Effect.ignore
        )
      }))
      expect(yield* db.sql<{ readonly k: string }>`SELECT k FROM kv ORDER BY k`).toEqual([{ k: "outer" }])
    }))
  })
})

describe("postgres adapter: types and errors", () => {
  it("round-trips BIGINT as exact numbers within ±(2^53-1), and as bigint beyond", async () => {
    await run(Effect.gen(function*() {
      const db = yield* postgres().open()
      yield* db.sql`CREATE TABLE big (id INTEGER PRIMARY KEY, v BIGINT NOT NULL)`
      const values = [0, 1, -1, 2 ** 31, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1_767_225_600_000]
      for (const [index, value] of values.entries()) yield* db.sql`INSERT INTO big VALUES (${index}, ${value})`
      const rows = yield* db.sql<{ readonly v: unknown }>`SELECT v FROM big ORDER BY id`
      expect(rows.map((row) => row.v)).toStrictEqual(values)
      const beyond = yield* db.sql<{ readonly v: unknown; readonly n: unknown; readonly a: unknown }>`
        SELECT 9223372036854775807::int8 AS v, count(*) AS n, ARRAY[1, ${Number.MAX_SAFE_INTEGER}]::int8[] AS a FROM big`
      expect(beyond[0]!.v).toBe(9223372036854775807n)
      expect(beyond[0]!.n).toBe(values.length)
      expect(beyond[0]!.a).toStrictEqual([1, Number.MAX_SAFE_INTEGER])
      yield* db.platformAlarm.set(Number.MAX_SAFE_INTEGER)
      expect(yield* db.platformAlarm.get).toBe(Number.MAX_SAFE_INTEGER)
    }))
  })

  it("surfaces unique violations as the UniqueViolation reason", async () => {
    const error = await run(Effect.gen(function*() {
      const db = yield* postgres().open()
      yield* db.sql`CREATE TABLE u (k TEXT PRIMARY KEY)`
      yield* db.sql`INSERT INTO u VALUES ('x')`
      return yield* Effect.flip(db.sql`INSERT INTO u VALUES ('x')`)
    }))
    expect(error._tag).toBe("SqlError")
    expect(error.reason._tag).toBe("UniqueViolation")
  })
})

describe("postgres adapter: unreachable DATABASE_URL", () => {
  const secret = "sup3r-s3cret-pw"

  const expectQuickRedactedError = async (url: string) => {
    const startedAt = performance.now()
    const exit = await Effect.runPromiseExit(Effect.scoped(makePostgresAdapter({ databaseUrl: url, connectTimeoutMs: 1_000 }).make))
    const elapsedMs = performance.now() - startedAt
    expect(elapsedMs).toBeLessThan(4_000)
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error : undefined
    expect(error).toBeInstanceOf(AdapterError)
    const adapterError = error as AdapterError
    expect(adapterError.message).toContain("cannot reach the Postgres server at postgres://app:***@127.0.0.1:")
    expect(adapterError.hint).toBe("start the server or unset DATABASE_URL to use an embedded one")
    expect(JSON.stringify({ message: adapterError.message, hint: adapterError.hint, cause: String(adapterError.cause) })).not.toContain(secret)
    return adapterError
  }

  it("fails fast when nothing listens on the port", async () => {
    const port = await pickFreeLoopbackPort()
    const error = await expectQuickRedactedError(`postgres://app:${secret}@127.0.0.1:${port}/app`)
    expect(error.message).toContain(`127.0.0.1:${port}/app`)
  })

  it("fails within the connect timeout when the server accepts but never answers", async () => {
    const sockets = new Set<Socket>()
    const silent: Server = createServer((socket) => {
      sockets.add(socket)
      socket.on("error", () => {})
    })
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    const address = silent.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    try {
      await expectQuickRedactedError(`postgres://app:${secret}@127.0.0.1:${port}/app`)
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    }
  })
})

describe("redactConnectionString", () => {
  it("hides passwords and secret parameters but keeps what identifies the server", () => {
    expect(redactConnectionString("postgres://app:pa%3Ass@db.internal:6543/main?sslmode=require")).toBe(
      "postgres://app:***@db.internal:6543/main?sslmode=require"
    )
    expect(redactConnectionString("postgresql://db.internal/main?password=hunter2")).not.toContain("hunter2")
    expect(redactConnectionString("postgres://app@localhost/db")).toBe("postgres://app@localhost/db")
    expect(redactConnectionString("not a url with hunter2")).not.toContain("hunter2")
  })
})
