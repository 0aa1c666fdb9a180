/**
 * No rule of cron.md fixes the order a claim returns its rows in (a `RETURNING` list has none; the
 * shipped relay sorts them by actor and key). Until 2026-12-04 the harness compared and settled them in
 * the implementation's order, so a relay returning them in another order failed CRN-006 on sqlite. Now
 * the harness, as the runner's loop, takes them by actor and key (`inSettlingOrder`): such a relay passes.
 */
import { describe, expect, it } from "vitest"
import { inSettlingOrder } from "../../properties/cron/runner.ts"
import type { ClaimedTick } from "../../subjects/cron/api.ts"
import { cronAllowedVariants } from "../allowed/cron/variants.ts"

const tick = (actorId: string, timerKey: string): ClaimedTick => ({ actor_id: actorId, timer_key: timerKey }) as ClaimedTick

describe("a claim's row order", () => {
  it("is the implementation's own: a relay returning claims in reverse is an allowed variant (run by test/allowed/cron/passes.test.ts)", () => {
    expect(cronAllowedVariants.map((variant) => variant.name)).toContain("claims-reversed")
  })

  it("the harness takes claimed ticks by actor, then timer key", () => {
    const claimed = [tick("b", "$cron:x"), tick("a", "$cron:y"), tick("a", "$cron:x")]
    expect(inSettlingOrder(claimed).map((entry) => `${entry.actor_id} ${entry.timer_key}`)).toEqual(["a $cron:x", "a $cron:y", "b $cron:x"])
  })
})
