/**
 * Own, found only by generated fire races: the fire's CAS of completedAt is fenced to the process that
 * owns the clock row (the one that scheduled it), and the fence is read outside the CAS. A second
 * process's fire completes the deferred but never the clock, so when the second process fires first
 * and the owner's fire comes later (held at `clocks.fire.begin`), completedAt and clock-completed carry
 * the later fire's time, not the first winning fire's. In the other order, or with both fires at the
 * same instant, nothing differs from the shipped engine.
 * Breaks C10 (the CAS completes the clock only while null, whoever fires): CLK-012; IG1 (completedAt is
 * the first winning CAS's): CLK-016.
 */
import { Effect } from "effect"
import { CLOCKS_TABLE } from "../../../subjects/clocks/schema.ts"
import { knownBadClock } from "./kit.ts"

/** Owner-fenced CAS known-bad variant. */
export const casOwnerFenced = knownBadClock({
  name: "cas-owner-fenced",
  bug: "only the process that scheduled a clock may complete it; another process's fire leaves it pending",
  breaks: ["CLK-012", "CLK-016"],
  pieces: {
    fireOrder: (runtime, steps) => {
      const clocks = runtime.sql.literal(CLOCKS_TABLE)
      const { flowName, executionId, clockName } = steps.clock
      const owner = runtime.sql<{ readonly owner: string }>`SELECT owner FROM ${clocks}
        WHERE flow_name = ${flowName} AND execution_id = ${executionId} AND clock_name = ${clockName}`
      const fencedCas = Effect.flatMap(owner, (rows) => (rows[0]?.owner === runtime.environment.owner ? steps.casAndRecord : Effect.void))
      return steps.complete(fencedCas)
    }
  }
})
