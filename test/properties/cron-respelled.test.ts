/**
 * N1's "equivalent spellings are one entry", as the appended duplicate-key declarations check it
 * (`CronScenario.respelledDeclarations`): every spelling the generators draw has a respelling
 * (`properties/cron/spellings.ts`) with another text and the model's same timer key; and the shipped
 * runtime refuses a declaration holding an entry as written and respelled, naming the key, as the
 * model does.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Json } from "../../harness/Property.ts"
import { executeScenario } from "../../harness/Runner.ts"
import { parseSchedule, timerKeyOf } from "../../models/cron/index.ts"
import { cronScenario } from "../../properties/cron/arbitraries.ts"
import { cronSuite } from "../../properties/cron/index.ts"
import { ALL_MONTHS, DAYS, EVERY, HOURS, MINUTES, MONTHS, neighbour, respelled, WEEKDAYS } from "../../properties/cron/spellings.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"
import { propertyById } from "../../harness/Suite.ts"

const adapters = useNodeAdapters()
const keyOf = (spec: string) => {
  const parsed = parseSchedule(spec, "Europe/Berlin")
  return parsed === null ? null : timerKeyOf(parsed)
}

describe("respelled cron specs", () => {
  it("keep their meaning and change their text, for every drawn spelling", () => {
    const specs = [
      ...EVERY.flat(),
      ...MINUTES.flat().map((minute) => `${minute} 2 * * *`),
      ...HOURS.flat().map((hour) => `0 ${hour} * * *`),
      ...DAYS.flat().map((day) => `0 2 ${day} * *`),
      ...[ALL_MONTHS, ...MONTHS].flat().map((month) => `0 2 * ${month} *`),
      ...WEEKDAYS.flat().map((weekday) => `0\t2  * * ${weekday}`)
    ]
    for (const spec of specs) {
      expect(keyOf(spec), spec).not.toBeNull()
      expect(respelled(spec), spec).not.toBe(spec)
      expect(keyOf(respelled(spec)), spec).toBe(keyOf(spec))
    }
    expect(respelled("0 2 * * SUN")).toBe("00\t02\t*\t1-12\t0")
  })

  it("have neighbours one field apart: a star, or another meaning, the other fields as written", () => {
    expect(neighbour("0 0 1 * 1", { field: 2, toStar: true, step: 0 })).toBe("0 0 * * 1")
    expect(neighbour("0 0 1 * 1", { field: 4, toStar: true, step: 3 })).toBe("0 0 1 * *")
    // Already a star: another meaning instead.
    expect(neighbour("0 2 * * *", { field: 2, toStar: true, step: 0 })).toBe("0 2 1-31 * *")
    expect(neighbour("30 2 * * *", { field: 0, toStar: false, step: 0 })).toBe("15 2 * * *")
    expect(neighbour("@every 90s", { field: 2, toStar: true, step: 0 })).toBe("@every 15m")
    expect(neighbour("61 * * * *", { field: 0, toStar: false, step: 0 })).toBe("61 * * * *")
    expect(neighbour("* * *", { field: 2, toStar: true, step: 0 })).toBe("* * *")
    // N1 decides the keys: a restricted pair joins by OR, so starring one changes the key; 1-31 beside a star weekday is every day, as a star is.
    expect(keyOf(neighbour("0 0 1 * 1", { field: 2, toStar: true, step: 0 }))).not.toBe(keyOf("0 0 1 * 1"))
    expect(keyOf("0 2 1-31 * *")).toBe(keyOf("0 2 * * *"))
    for (const group of DAYS) expect(neighbour(`0 2 ${group[0]} * 1`, { field: 2, toStar: false, step: 1 })).not.toBe(`0 2 ${group[0]} * 1`)
  })

  it("make the shipped runtime refuse one key declared twice, naming it, as the model does", async () => {
    const [scenario] = fc.sample(
      cronScenario({ faults: false, maxEpisodes: 2 }).filter((drawn) =>
        (drawn.respelledDeclarations ?? []).some((declared) => keyOf(drawn.pool[declared.index]!.spec) !== null && drawn.pool[declared.index]!.zone === null)
      ),
      { numRuns: 1, seed: 7 }
    )
    const property = propertyById(cronSuite(), "cron/model")
    // Without the neighbour declarations appended after it, so the respelled one is the last step.
    const trace = await Effect.runPromise(executeScenario(property, adapters.sqlite!, { ...scenario, neighbourDeclarations: [] } as unknown as Json))
    expect(trace.divergence?.explanation ?? null).toBeNull()
    const last = trace.steps.at(-1)!
    expect(last.operation).toBe("declare")
    expect(JSON.stringify(last.implementation)).toMatch(/DuplicateCronKey/)
    expect(last.implementation).toEqual(last.model)
  }, 120_000)
})
