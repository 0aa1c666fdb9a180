/**
 * The pool's probes on a pool of their own (`config`, `multiplexGate`, `fractionalBound`): the shipped
 * pool passes each, and each tells a pool broken in its rule's way from the shipped one (span
 * attributes not PgClient.make's, a gate that lets every checkout through to a driver that shares its
 * sessions, a fractional `maxConnections` rounded up), run as a scenario's own-pool prefix.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { poolSuite, truncatePoolScenario } from "../../properties/pool/index.ts"
import type { PoolScenario } from "../../properties/pool/scenario.ts"
import type { SurfaceProbe } from "../../properties/pool/surfaceScenario.ts"
import type { PoolImplementation } from "../../subjects/pool/api.ts"
import { shippedPool } from "../../subjects/pool/index.ts"
import { makePoolImplementation } from "../../subjects/pool/make.ts"
import { defaultPoolPieces } from "../../subjects/pool/pieces.ts"
import { usePostgresAdapter } from "../support/nodeAdapters.ts"

const postgres = usePostgresAdapter()

const acquire = { op: "start", kind: "acquire", retry: false, failing: false, longChannel: false, inside: null } as const

/** The first divergence of `probes` run as a scenario's own-pool prefix on `implementation`, or null. */
const divergenceOf = async (implementation: PoolImplementation | undefined, probes: ReadonlyArray<SurfaceProbe>, maxConnections = 1) => {
  const property = poolSuite(implementation).properties[0]!
  const scenario: PoolScenario = { maxConnections, transformNames: false, surface: [], ownPool: probes, commands: [acquire] }
  const trace = await Effect.runPromise(executeScenario(property, postgres(), scenario as unknown as Json))
  return trace.divergence
}

/** The shipped pool with its config changed by `change` before it is built (a pool that mishandles its config). */
const configChanged = (name: string, change: (options: Parameters<PoolImplementation["boundedPool"]>[0]) => Parameters<PoolImplementation["boundedPool"]>[0]): PoolImplementation => ({
  ...shippedPool,
  name,
  boundedPool: (options) => shippedPool.boundedPool(change(options))
})

describe("pool probes on a pool of their own", () => {
  it("a failing scenario is truncated to the surface probes, own-pool probes and commands that ran", () => {
    const surface: Array<SurfaceProbe> = [{ probe: "refusal" }]
    const ownPool: Array<SurfaceProbe> = [{ probe: "fractionalBound" }]
    const scenario: PoolScenario = { maxConnections: 1, surface, ownPool, commands: [acquire, acquire] }
    const ran = (steps: number) => ({ steps: Array.from({ length: steps }, () => ({}) as never), divergence: null, covered: [] })
    expect(truncatePoolScenario(scenario, ran(0))).toEqual({ ...scenario, surface: [], ownPool: [], commands: [] })
    expect(truncatePoolScenario(scenario, ran(1))).toEqual({ ...scenario, ownPool: [], commands: [] })
    expect(truncatePoolScenario(scenario, ran(2))).toEqual({ ...scenario, commands: [] })
    expect(truncatePoolScenario(scenario, ran(3))).toEqual({ ...scenario, commands: [acquire] })
    expect(truncatePoolScenario(scenario, ran(5))).toEqual(scenario)
  })

  it("the shipped pool passes every own-pool probe, on 1 and on 2 connections", async () => {
    const probes: Array<SurfaceProbe> = [
      { probe: "config", config: {} },
      { probe: "config", config: { spanAttributes: { "db.namespace": "caller_ns" }, username: "app_user", host: "db.internal" } },
      { probe: "config", config: { database: "app_db", port: 6543 } },
      { probe: "multiplexGate", interrupt: "none" },
      { probe: "multiplexGate", interrupt: "b" },
      { probe: "multiplexGate", interrupt: "c" },
      { probe: "fractionalBound" }
    ]
    for (const maxConnections of [1, 2]) expect(await divergenceOf(undefined, probes, maxConnections)).toBeNull()
  }, 120_000)

  it("seed: a pool that drops the caller's host and port from its config is caught by its span attributes (POL-013)", async () => {
    const dropped = configChanged("drops-host-and-port", ({ host: _host, port: _port, ...rest }) => rest)
    const divergence = await divergenceOf(dropped, [{ probe: "config", config: { host: "db.internal", port: 6543 } }])
    expect(divergence?.requirementId).toBe("POL-013")
  })

  it("P2/I3: a gate that lets every checkout through is caught once the driver shares its sessions", async () => {
    const noGate = makePoolImplementation("no-gate", { ...defaultPoolPieces, gate: () => ({ take: Effect.void }) })
    expect(["POL-002", "POL-010"]).toContain((await divergenceOf(noGate, [{ probe: "multiplexGate", interrupt: "none" }]))?.requirementId)
    expect(["POL-002", "POL-010", "POL-011"]).toContain((await divergenceOf(noGate, [{ probe: "multiplexGate", interrupt: "c" }]))?.requirementId)
  }, 60_000)

  it("P1: a pool that rounds a fractional maxConnections up holds more than maxConnections + 64 checkouts (POL-001)", async () => {
    const roundedUp = configChanged("bound-rounded-up", (options) => ({ ...options, maxConnections: Math.ceil(options.maxConnections ?? 10) }))
    const divergence = await divergenceOf(roundedUp, [{ probe: "fractionalBound" }])
    expect(["POL-001", "POL-008"]).toContain(divergence?.requirementId)
  }, 60_000)
})
