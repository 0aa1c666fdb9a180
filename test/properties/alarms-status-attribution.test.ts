/**
 * R28's attribution (`properties/alarms/checks.ts` `readsRowsRight`): a `getAlarmStatus` answer that
 * differs from the model's while the alarm's rows are stored exactly as predicted is R28's alone (the
 * API misreads right rows); when the rows are wrong too, the rule that decided the rows keeps it. A
 * blind bug (`blind-bugs/alarms.ts`, `status-retry-at-effective-wake`) was named ALM-015 before.
 */
import { describe, expect, it } from "vitest"
import type { Check } from "../../harness/ModelBased.ts"
import { readsRowsRight } from "../../properties/alarms/checks.ts"

const expected = { attempts: 2, parked: false, runAtMs: 1_000, retryAtMs: 500 }
const api: Check = { observable: "getAlarmStatus(a:1)", expected, actual: { ...expected, retryAtMs: 1_000 }, rules: ["R15", "R28"], why: "retry_at from attempts" }

describe("getAlarmStatus attribution", () => {
  it("names R28 alone when the rows are right", () => {
    const named = readsRowsRight(api, expected)
    expect(named.rules).toEqual(["R28"])
    expect(named.expected).toEqual(api.expected)
    expect(named.actual).toEqual(api.actual)
  })

  it("keeps the deciding rule when the rows are wrong too", () => {
    expect(readsRowsRight(api, { ...expected, retryAtMs: 1_000 })).toBe(api)
  })
})
