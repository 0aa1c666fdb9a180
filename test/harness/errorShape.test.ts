/**
 * `harness/ErrorShape.ts`: an error with the right tag but without a field upstream's error carries is
 * named with its defects, so it differs from the model's error.
 */
import { Data } from "effect"
import { describe, expect, it } from "vitest"
import { type ErrorFieldCatalog, errorShapeDefects, namedWithDefects } from "../../harness/ErrorShape.ts"

class StorageFailed extends Data.TaggedError("StorageFailed")<{ readonly operation?: unknown; readonly cause?: unknown }> {}
class Invalid extends Data.TaggedError("Invalid")<{ readonly cause?: unknown; readonly text: string }> {
  override get message(): string {
    return this.text
  }
}
class Explained extends Data.TaggedError("Explained")<{ readonly text: string }> {
  override get message(): string {
    return this.text
  }
}

const catalog: ErrorFieldCatalog = {
  StorageFailed: { operation: "text", cause: "present" },
  Explained: { message: "text" },
  Invalid: { cause: "explained", message: "quotesCause" }
}

describe("error shape", () => {
  it("finds nothing wrong with an error carrying every field its catalog names", () => {
    expect(errorShapeDefects(new StorageFailed({ operation: "alarm.readRow", cause: new Error("gone") }), catalog)).toEqual([])
    expect(errorShapeDefects(new Explained({ text: "say what to do" }), catalog)).toEqual([])
  })

  it("names each missing, empty or mistyped field in the catalog's order", () => {
    expect(errorShapeDefects(new StorageFailed({}), catalog)).toEqual(["operation: missing", "cause: missing"])
    expect(errorShapeDefects(new StorageFailed({ operation: "", cause: null }), catalog)).toEqual(["operation: empty"])
    expect(errorShapeDefects(new StorageFailed({ operation: 7, cause: 0 }), catalog)).toEqual(["operation: not a string (number)"])
  })

  it("reads a message getter, and an empty message is a defect", () => {
    expect(errorShapeDefects(new Explained({ text: "" }), catalog)).toEqual(["message: empty"])
  })

  it("checks nothing of a tag outside the catalog, of untagged values, or of inherited catalog keys", () => {
    expect(errorShapeDefects(new Error("plain"), catalog)).toEqual([])
    expect(errorShapeDefects("StorageFailed", catalog)).toEqual([])
    expect(errorShapeDefects(null, catalog)).toEqual([])
    expect(errorShapeDefects({ _tag: "toString" }, catalog)).toEqual([])
  })

  it("an explained cause says something, and a message quoting its cause contains the cause's words", () => {
    const cause = new Error("limit must be a positive safe integer, got 0")
    expect(errorShapeDefects(new Invalid({ cause, text: `Invalid options: ${cause.message}. Pass a positive limit.` }), catalog)).toEqual([])
    expect(errorShapeDefects(new Invalid({ cause: "limit is 0", text: "Invalid options: limit is 0" }), catalog)).toEqual([])
    expect(errorShapeDefects(new Invalid({ cause, text: "Invalid options. Pass a positive limit." }), catalog))
      .toEqual(["message: does not say its cause's message"])
    expect(errorShapeDefects(new Invalid({ cause: new Error(""), text: "Invalid options" }), catalog)).toEqual(["cause: says nothing (no message)"])
    expect(errorShapeDefects(new Invalid({ cause: 42, text: "Invalid options" }), catalog)).toEqual(["cause: says nothing (no message)"])
  })

  it("namedWithDefects appends the defects to the model's name only when there are any", () => {
    expect(namedWithDefects("StorageFailed", new StorageFailed({ operation: "x", cause: 1 }), catalog)).toBe("StorageFailed")
    expect(namedWithDefects("StorageFailed", new StorageFailed({ cause: 1 }), catalog)).toBe("StorageFailed (operation: missing)")
  })
})
