/**
 * Runs one surface probe (`surfaceScenario.ts`) as a step of a pool scenario, on the scenario's pool,
 * before its commands: no model state, each probe's expectation follows from the rules alone
 * (`surfaceRefusal.ts`, `surfaceChannels.ts`, `surfaceSmoke.ts`, `surfaceConfig.ts`, `surfaceMultiplex.ts`, `surfaceBound.ts`). Its statements carry tags of their
 * own (`pool-smoke-`, `pool-ch`), never a checkout's, so the model's statement counts are untouched.
 */
import { Effect } from "effect"
import { type ExecutedStep } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import { nowMs } from "../../harness/VirtualClock.ts"
import type { HarnessError } from "../../harness/errors.ts"
import { channelProbe } from "./surfaceChannels.ts"
import { configProbe } from "./surfaceConfig.ts"
import { fractionalBoundProbe } from "./surfaceBound.ts"
import { multiplexGateProbe } from "./surfaceMultiplex.ts"
import { foreignProbe, refusalProbe } from "./surfaceRefusal.ts"
import type { ProbeResult, SurfaceContext } from "./surfaceRuntime.ts"
import type { SurfaceProbe } from "./surfaceScenario.ts"
import { surfaceSituations } from "./surfaceSituations.ts"
import { smokeProbe } from "./surfaceSmoke.ts"

const runProbe = (context: SurfaceContext, probe: SurfaceProbe, index: number): Effect.Effect<ProbeResult, HarnessError> => {
  switch (probe.probe) {
    case "foreign":
      return foreignProbe(context, probe.error)
    case "refusal":
      return refusalProbe(context)
    case "channel":
      return channelProbe(context, index, probe.entry, probe.bytes, probe.wide)
    case "smoke":
      return smokeProbe(context, index, probe.entry, probe.inTransaction, probe.failing)
    case "config":
      return configProbe(context, probe.config)
    case "multiplexGate":
      return multiplexGateProbe(context, index, probe.interrupt)
    case "fractionalBound":
      return fractionalBoundProbe(context)
  }
}

/** One line saying what `probe` does. */
export const describeSurfaceProbe = (probe: SurfaceProbe): string => {
  switch (probe.probe) {
    case "foreign":
      return `retry a ${probe.error} failure`
    case "refusal":
      return "fill admission and check the refusal"
    case "channel":
      return `${probe.entry} on a ${probe.bytes}-byte channel${probe.wide ? " ending in a 2-byte character" : ""}`
    case "smoke":
      return `client ${probe.entry}${probe.inTransaction ? " inside a transaction" : ""}`
    case "config":
      return `span attributes for a config with ${Object.keys(probe.config).join(", ") || "no caller fields"}`
    case "multiplexGate":
      return `three borrowers and a late fourth on a multiplexed 1-connection pool${probe.interrupt === "none" ? "" : `, ${probe.interrupt} interrupted while queued`}`
    case "fractionalBound":
      return "a pool with a fractional maxConnections: refused, or bounded by floor + 64"
  }
}

/**
 * Runs surface probe number `index` and returns it as an executed step.
 *
 * @example const executed = yield* surfaceStep(context, { probe: "refusal" }, 0)
 */
export const surfaceStep = (context: SurfaceContext, probe: SurfaceProbe, index: number): Effect.Effect<ExecutedStep, HarnessError> =>
  Effect.gen(function*() {
    const atMs = yield* nowMs
    const result = yield* runProbe(context, probe, index)
    return {
      record: { operation: `surface ${probe.probe}`, args: toJson(probe), virtualTimeMs: atMs, implementation: result.implementation, model: result.model },
      checks: result.checks,
      covered: result.covered,
      situations: surfaceSituations(probe),
      described: describeSurfaceProbe(probe)
    }
  })
