/**
 * The core's fault-voiding rule: only a failed statement is voided, and only where the transaction's
 * body fails on its own; a voided fault is removed from the command the harness runs.
 */
import { describe, expect, it } from "vitest"
import { STORAGE_FAULT_PHASES, voidsStorageFault, withoutStorageFault } from "../../harness/Faults.ts"

describe("fault voiding", () => {
  it("voids a failed statement only where the body fails on its own", () => {
    for (const phase of STORAGE_FAULT_PHASES) {
      expect(voidsStorageFault(phase, false)).toBe(false)
      expect(voidsStorageFault(phase, true)).toBe(phase === "statementFails")
    }
  })

  it("removes the fault and keeps every other field, leaving a command without one unchanged", () => {
    const command = { op: "cancel", id: "a", fault: { transaction: 1, phase: "statementFails" as const, statement: 3 } }
    expect(withoutStorageFault(command)).toEqual({ op: "cancel", id: "a" })
    expect(command.fault.statement).toBe(3)
    const plain = { op: "cancel", id: "a" }
    expect(withoutStorageFault(plain)).toBe(plain)
  })
})
