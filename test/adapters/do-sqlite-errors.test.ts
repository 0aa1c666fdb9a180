/**
 * Pure parts of the do-sqlite adapter that run in Node: reading SQLite codes out of workerd's error
 * messages (so effect/sql classifies unique violations), and the message/hint encoding that crosses RPC.
 */
import { describe, expect, it } from "vitest"
import { classifySqliteError } from "effect/sql/SqlError"
import { DurableObjectSqliteError, sqliteCodeFromMessage, withSqliteCode } from "../../adapters/do-sqlite/classifyingStorage.ts"
import { decodeHostedError, encodeHostedError } from "../../hosts/do-sqlite/hostedErrors.ts"

describe("workerd SQLite error codes", () => {
  it("reads unique, primary-key and other constraint codes from the message", () => {
    expect(sqliteCodeFromMessage("UNIQUE constraint failed: t.k: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_PRIMARYKEY)")).toBe("SQLITE_CONSTRAINT_UNIQUE")
    expect(sqliteCodeFromMessage("UNIQUE constraint failed: t.u: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_UNIQUE)")).toBe("SQLITE_CONSTRAINT_UNIQUE")
    expect(sqliteCodeFromMessage("NOT NULL constraint failed: t.v: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_NOTNULL)")).toBe("SQLITE_CONSTRAINT_NOTNULL")
    expect(sqliteCodeFromMessage("near \"SELEC\": syntax error at offset 0: SQLITE_ERROR")).toBe("SQLITE_ERROR")
    expect(sqliteCodeFromMessage("something else")).toBeUndefined()
  })

  it("gives effect/sql a code it classifies, keeping the original error as cause", () => {
    const original = new Error("UNIQUE constraint failed: t.k: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_PRIMARYKEY)")
    const coded = withSqliteCode(original)
    expect(coded).toBeInstanceOf(DurableObjectSqliteError)
    expect((coded as DurableObjectSqliteError).cause).toBe(original)
    expect(classifySqliteError(coded)._tag).toBe("UniqueViolation")
    expect(classifySqliteError(withSqliteCode(new Error("NOT NULL constraint failed: t.v: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_NOTNULL)")))._tag).toBe("ConstraintError")
    // Without the rewrite, effect/sql sees no code at all.
    expect(classifySqliteError(original)._tag).toBe("UnknownError")
  })

  it("leaves errors that already carry a code, and non-errors, untouched", () => {
    const withCode = Object.assign(new Error("x: SQLITE_BUSY"), { code: "SQLITE_BUSY" })
    expect(withSqliteCode(withCode)).toBe(withCode)
    expect(withSqliteCode("text")).toBe("text")
  })
})

describe("hosted error messages", () => {
  it("carry message and hint across RPC, and fall back when there is no hint", () => {
    expect(decodeHostedError(encodeHostedError("no property x", "run list"), "fallback")).toEqual({ message: "no property x", hint: "run list" })
    expect(decodeHostedError("internal error; reference = abc", "fallback")).toEqual({ message: "internal error; reference = abc", hint: "fallback" })
  })
})
