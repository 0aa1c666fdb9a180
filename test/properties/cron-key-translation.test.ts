/**
 * `keyTranslation.ts`: the implementation's timer keys are learned from declarations one to one and
 * only in N1's shape, so a different canonical text passes while a key that stands for two schedules,
 * two keys for one, or a key of another shape still differ from the model's.
 */
import { describe, expect, it } from "vitest"
import { makeKeyTranslation, observationToModel, resultToModel } from "../../properties/cron/keyTranslation.ts"

const success = (keys: ReadonlyArray<string>) => ({ _tag: "Success", value: [...keys] })
const MODEL_A = "$cron:UTC 0 1-2 * * *"
const MODEL_B = "$cron:UTC 0 5 * * *"
const EVERY = "$cron:@every 60000ms"

describe("key translation", () => {
  it("reads another canonical text as the model's key, in results and observations", () => {
    const keys = makeKeyTranslation()
    keys.learn(success(["$cron:UTC 0 1,2 * * *", EVERY]), success([MODEL_A, EVERY]))
    expect(resultToModel(success(["$cron:UTC 0 1,2 * * *", EVERY]), keys, true)).toEqual(success([MODEL_A, EVERY]))
    expect(resultToModel({ _tag: "Success", value: [{ timerKey: "$cron:UTC 0 1,2 * * *", intentId: "x" }] }, keys, false))
      .toEqual({ _tag: "Success", value: [{ timerKey: MODEL_A, intentId: "x" }] })
    expect(resultToModel({ _tag: "Failure", error: `DuplicateCronKey ${JSON.stringify({ key: "$cron:UTC 0 1,2 * * *" })}` }, keys, true))
      .toEqual({ _tag: "Failure", error: `DuplicateCronKey ${JSON.stringify({ key: MODEL_A })}` })
    expect(keys.toImplementation(MODEL_A)).toBe("$cron:UTC 0 1,2 * * *")
    const row = { timerKey: "$cron:UTC 0 1,2 * * *" } as never
    expect(observationToModel({ rows: [row], fired: [], receipts: [] } as never, keys).rows[0]!.timerKey).toBe(MODEL_A)
  })

  it("learns nothing that breaks one key per schedule, or a key of another shape", () => {
    const oneForTwo = makeKeyTranslation()
    oneForTwo.learn(success(["$cron:UTC x", "$cron:UTC x"]), success([MODEL_A, MODEL_B]))
    expect(resultToModel(success(["$cron:UTC x", "$cron:UTC x"]), oneForTwo, true)).toEqual(success([MODEL_A, MODEL_A]))
    const twoForOne = makeKeyTranslation()
    twoForOne.learn(success(["$cron:UTC x", "$cron:UTC y"]), success([MODEL_A, MODEL_A]))
    expect(resultToModel(success(["$cron:UTC x", "$cron:UTC y"]), twoForOne, true)).toEqual(success([MODEL_A, "$cron:UTC y"]))
    const shapes = makeKeyTranslation()
    shapes.learn(success(["$cron:utc 0 1,2 * * *", "$cron:@every 1m", "cron:UTC 0 5 * * *"]), success([MODEL_A, EVERY, MODEL_B]))
    expect(resultToModel(success(["$cron:utc 0 1,2 * * *", "$cron:@every 1m", "cron:UTC 0 5 * * *"]), shapes, true))
      .toEqual(success(["$cron:utc 0 1,2 * * *", "$cron:@every 1m", "cron:UTC 0 5 * * *"]))
  })

  it("leaves a refusal whose details are not its JSON as it is, and learns nothing from it", () => {
    const keys = makeKeyTranslation()
    for (const error of ["DuplicateCronKey {not json", "DuplicateCronKey null", "DuplicateCronKey {\"key\": 7}"]) {
      keys.learn({ _tag: "Failure", error }, { _tag: "Failure", error: `DuplicateCronKey ${JSON.stringify({ key: MODEL_A })}` })
      expect(resultToModel({ _tag: "Failure", error }, keys, true)).toEqual({ _tag: "Failure", error })
    }
    expect(keys.toImplementation(MODEL_A)).toBe(MODEL_A)
  })
})
