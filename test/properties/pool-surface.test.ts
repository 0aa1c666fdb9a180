/**
 * The pool's surface probes (`properties/pool/surface*.ts`): the shipped pool passes every probe,
 * and each probe tells a pool broken in its rule's way from the shipped one (P1 refusal value, P4 on
 * every client entry point, P5 error value, P6 channel boundary on listen and notify, P7 foreign
 * failures), each run as the scenario prefix a generated pool scenario has.
 */
import { Effect } from "effect"
import { SqlError } from "effect/sql/SqlError"
import { describe, expect, it } from "vitest"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { poolSuite, truncatePoolScenario } from "../../properties/pool/index.ts"
import type { PoolScenario } from "../../properties/pool/scenario.ts"
import { channelOfBytes } from "../../properties/pool/surfaceChannels.ts"
import type { SurfaceProbe } from "../../properties/pool/surfaceScenario.ts"
import type { PoolImplementation } from "../../subjects/pool/api.ts"
import { makePoolImplementation } from "../../subjects/pool/make.ts"
import { defaultPoolPieces, type PoolPieces } from "../../subjects/pool/pieces.ts"
import { usePostgresAdapter } from "../support/nodeAdapters.ts"

const postgres = usePostgresAdapter()

const acquire = { op: "start", kind: "acquire", retry: false, failing: false, longChannel: false, inside: null } as const

/** The first divergence of `probes` run as a scenario's surface prefix on `implementation`, or null. */
const divergenceOf = async (implementation: PoolImplementation | undefined, probes: ReadonlyArray<SurfaceProbe>, maxConnections = 1, transformNames = false) => {
  const property = poolSuite(implementation).properties[0]!
  const scenario: PoolScenario = { maxConnections, transformNames, surface: probes, commands: [acquire] }
  const trace = await Effect.runPromise(executeScenario(property, postgres(), scenario as unknown as Json))
  return trace.divergence
}

const broken = (name: string, pieces: Partial<PoolPieces>): PoolImplementation => makePoolImplementation(name, { ...defaultPoolPieces, ...pieces })

const smoke = (entry: Extract<SurfaceProbe, { probe: "smoke" }>["entry"], inTransaction: boolean, failing = false): SurfaceProbe => ({ probe: "smoke", entry, inTransaction, failing })

describe("pool surface probes", () => {
  it("builds channel names of an exact UTF-8 length, ending in a 2-byte character when wide", () => {
    for (const bytes of [62, 63, 64]) {
      expect(new TextEncoder().encode(channelOfBytes("pool-ch1-", bytes, false)).byteLength).toBe(bytes)
      const wide = channelOfBytes("pool-ch1-", bytes, true)
      expect(new TextEncoder().encode(wide).byteLength).toBe(bytes)
      expect([...wide].length).toBe(bytes - 1)
    }
  })

  it("a failing scenario is truncated to the surface probes and commands that ran", () => {
    const probes: Array<SurfaceProbe> = [{ probe: "refusal" }, { probe: "foreign", error: "string" }]
    const scenario: PoolScenario = { maxConnections: 1, surface: probes, commands: [acquire, acquire] }
    const ran = (steps: number) => ({ steps: Array.from({ length: steps }, () => ({}) as never), divergence: null, covered: [] })
    expect(truncatePoolScenario(scenario, ran(1))).toEqual({ ...scenario, surface: [probes[0]], commands: [] })
    expect(truncatePoolScenario(scenario, ran(3))).toEqual({ ...scenario, commands: [acquire] })
    expect(truncatePoolScenario(scenario, ran(5))).toEqual(scenario)
  })

  it("the shipped pool passes every probe, on 1 connection (inside a transaction nothing may take a slot) and with the row-name transform", async () => {
    const probes: Array<SurfaceProbe> = [
      { probe: "foreign", error: "tagged" },
      { probe: "foreign", error: "string" },
      { probe: "foreign", error: "object" },
      { probe: "foreign", error: "connection" },
      { probe: "refusal" },
      ...[62, 63, 64].flatMap((bytes) => [true, false].flatMap((wide) => (["listen", "notify"] as const).map((entry): SurfaceProbe => ({ probe: "channel", entry, bytes, wide })))),
      ...(["values", "valuesUnprepared", "unprepared", "stream", "json", "savepoint", "abortedCommit"] as const).flatMap((entry) => [smoke(entry, false, true), smoke(entry, true, false)])
    ]
    for (const transformNames of [false, true]) {
      for (let from = 0; from < probes.length; from += 6) {
        expect(await divergenceOf(undefined, probes.slice(from, from + 6), 1, transformNames)).toBeNull()
      }
    }
  }, 120_000)

  it("P7: a refusal predicate that reads a reason every failure is assumed to have is caught on a foreign failure (POL-007)", async () => {
    const unguarded = broken("unguarded-refusal", { isPoolRefusal: (cause) => (cause as SqlError).reason.cause?.constructor?.name === "PoolRefused" })
    const divergence = await divergenceOf(unguarded, [{ probe: "foreign", error: "string" }])
    expect(divergence?.requirementId).toBe("POL-007")
  })

  it("P7/I5: a refusal predicate that ignores the reason's class is caught on a failed statement wrapping a refusal's cause", async () => {
    const anyReason = broken("any-reason-refusal", { isPoolRefusal: (cause) => cause instanceof SqlError && (cause.reason as { readonly cause?: unknown }).cause?.constructor?.name === "PoolRefused" })
    const divergence = await divergenceOf(anyReason, [{ probe: "refusal" }])
    expect(["POL-007", "POL-012"]).toContain(divergence?.requirementId)
  })

  it("P6: a channel check off by one byte is caught at exactly 63 bytes, on listen and on notify", async () => {
    const offByOne = broken("channel-off-by-one", { channelFits: (channel) => new TextEncoder().encode(channel).byteLength < 63 })
    for (const entry of ["listen", "notify"] as const) {
      const divergence = await divergenceOf(offByOne, [{ probe: "channel", entry, bytes: 63, wide: true }])
      expect(divergence?.requirementId).toBe("POL-006")
    }
  })

  it("P5: an aborted commit failing with something other than a SqlError is caught (POL-005)", async () => {
    const untyped = broken("untyped-commit-failure", {
      commit: (connection) => Effect.flatMap(connection.executeRaw("COMMIT", []), (result) => (result as { readonly command?: string }).command === "ROLLBACK" ? Effect.fail(undefined as unknown as SqlError) : Effect.void)
    })
    const divergence = await divergenceOf(untyped, [smoke("abortedCommit", false)])
    expect(divergence?.requirementId).toBe("POL-005")
  })
})
