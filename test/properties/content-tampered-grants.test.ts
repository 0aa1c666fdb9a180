/**
 * Tampered grants (CNT-005): the harness changes a signed grant's text without knowing its encoding
 * (`properties/content/tamper.ts`), and the store must refuse it as `malformed` or `invalid`. Each
 * edit differs from the signed text and keeps a replaced character off a segment's last position; the
 * shipped store refuses every edit of a real grant; a store whose parser ignores trailing parts is
 * caught by the gate's `content/model` under CNT-005.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { catchKnownBad } from "../../harness/knownBad.ts"
import { contentSuite } from "../../properties/content/index.ts"
import { TAMPERS } from "../../properties/content/scenario.ts"
import { tamperedGrant } from "../../properties/content/tamper.ts"
import { grantTrailingPartsIgnored } from "../known-bad/content/grant-trailing-parts-ignored.ts"
import { useNodeAdapters } from "../support/nodeAdapters.ts"

const adapters = useNodeAdapters()

describe("tampered grants", () => {
  it("every edit makes another text, and a replaced character is never next to a '.'", () => {
    for (const grant of ["v1.eyJ0ZW5hbnQiOiJ0MSJ9.bWFjLW9mLXRoZS1ncmFudA", "abc.d", "x", "", "Zz9-_"]) {
      for (const tamper of TAMPERS) expect(tamperedGrant(grant, tamper), `${tamper} of ${grant}`).not.toBe(grant)
    }
    expect(tamperedGrant("v1.abcd.efgh", "flipped")).toBe("v1.abcd.ffgh")
    expect(tamperedGrant("v1.ab.cd", "appendedPart")).toBe("v1.ab.cd.x")
    expect(tamperedGrant("v1.ab.cd", "truncated")).toBe("v1.ab.c")
    expect(tamperedGrant("z9Z", "flipped")).toBe("z0Z")
  })

  it("catches a store that ignores a grant's trailing parts, under CNT-005, in content/model", async () => {
    const result = await Effect.runPromise(catchKnownBad({ suite: contentSuite(grantTrailingPartsIgnored.implementation), adapter: adapters.sqlite!, propertyOrder: ["content/model"] }))
    expect(result.caught).toBe(true)
    expect(result.counterexamples.map((counterexample) => counterexample.divergence.requirementId)).toEqual(["CNT-005"])
    // The model weighs both refusals K5 allows and, when neither agrees, the witness names them both.
    const divergence = result.counterexamples[0]!.divergence
    expect(divergence.explanation).toMatch(/model expected \{"_tag":"Failure","error":"malformed"\} \(or \{"_tag":"Failure","error":"invalid"\}, by another choice the rules allow\)/)
    expect(divergence.alsoExpected).toEqual([{ _tag: "Failure", error: "invalid" }])
  }, 120_000)
})
