/**
 * `says`: the words of an error are found in its message or in the errors it wraps, and nowhere else.
 */
import { Data } from "effect"
import { describe, expect, it } from "vitest"
import { MAX_CAUSE_DEPTH, says } from "../../harness/ErrorText.ts"

class Wrapper extends Data.TaggedError("Wrapper")<{ readonly cause: unknown }> {}

describe("says", () => {
  it("finds the words in the message, in a wrapped cause, or in a string cause, ignoring case", () => {
    expect(says(new Error("Cannot schedule detached work"), "cannot schedule")).toBe(true)
    expect(says(new Wrapper({ cause: new Error("cannot schedule detached work after their pass ends") }), "pass ends")).toBe(true)
    expect(says(new Wrapper({ cause: "a plain CANNOT" }), "cannot")).toBe(true)
  })

  it("answers false when no link of the chain says them", () => {
    expect(says(new Wrapper({ cause: new Error("") }), "pass ends")).toBe(false)
    expect(says(undefined, "x")).toBe(false)
    expect(says({ message: 42 }, "42")).toBe(false)
  })

  it("stops after MAX_CAUSE_DEPTH links, so a cycle ends", () => {
    const cyclic: { message: string; cause?: unknown } = { message: "a" }
    cyclic.cause = cyclic
    expect(says(cyclic, "b")).toBe(false)
    let deep: unknown = new Error("deep words")
    for (let i = 0; i <= MAX_CAUSE_DEPTH; i++) deep = new Wrapper({ cause: deep })
    expect(says(deep, "deep words")).toBe(false)
  })
})
