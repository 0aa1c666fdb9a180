/**
 * `says`: the words of an error are found in its message or in the errors it wraps, and nowhere else.
 * `causeChainText`: a generic wrapper's message is followed by the words of what it wraps.
 */
import { Data } from "effect"
import { describe, expect, it } from "vitest"
import { causeChainText, MAX_CAUSE_DEPTH, says } from "../../harness/ErrorText.ts"
import { OWN_STATEMENT_HINT, ownWorkFailure } from "../../harness/errors.ts"

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

describe("causeChainText", () => {
  it("follows a generic wrapper to the database's words, once each", () => {
    const database = new Error('column "ambiguous" is of type boolean but expression is of type integer')
    const wrapped = new Wrapper({ cause: new Error("PgConnection: Query failed", { cause: database }) })
    expect(causeChainText(wrapped)).toBe('PgConnection: Query failed: column "ambiguous" is of type boolean but expression is of type integer')
    expect(causeChainText(new Error("same", { cause: new Error("same") }))).toBe("same")
    expect(causeChainText("plain words")).toBe("plain words")
  })

  it("names the subject, the work and the causes in a harness failure", () => {
    const failure = ownWorkFailure("cron", OWN_STATEMENT_HINT)("seeding the foreign rows")(new Error("Query failed", { cause: new Error("no such column") }))
    expect(failure.message).toBe("cron property: seeding the foreign rows failed: Query failed: no such column")
    expect(failure.hint).toContain("persisted layout")
  })
})
