/**
 * The core's fault-voiding rule: only a failed statement is voided, and only where the transaction's
 * body fails on its own; a voided fault is removed from the command the harness runs. And how a drawn
 * fault struck (`faultAsStruck`): the fault a model is told, and the step's words, from what the
 * storage boundary saw.
 */
import { describe, expect, it } from "vitest"
import { type StorageFault, STORAGE_FAULT_PHASES, voidsStorageFault, withoutStorageFault, withStorageFault } from "../../harness/Faults.ts"
import type { StatementFaultOutcome, StorageBoundary } from "../../harness/StorageBoundary.ts"
import { faultAsStruck, struckFault } from "../../harness/StruckFault.ts"

/** A boundary that only answers what `faultAsStruck` reads. */
const sawBoundary = (transactionsStarted: number, outcome: StatementFaultOutcome | null, readFailed = false): StorageBoundary =>
  ({ transactionsStarted: () => transactionsStarted, statementFaultOutcome: () => outcome, readsOutside: () => ({ started: readFailed ? 1 : 0, failed: readFailed }) }) as unknown as StorageBoundary

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

  it("replaces a drawn fault by the one that struck, and removes it when none did", () => {
    const command = { op: "claim", fault: { transaction: 1, phase: "statementFails" as const, statement: 9 } }
    const refused: StorageFault = { transaction: 1, phase: "commitRefused" }
    expect(withStorageFault(command, refused)).toEqual({ op: "claim", fault: refused })
    expect(withStorageFault(command, undefined)).toEqual({ op: "claim" })
    const plain = { op: "claim" }
    expect(withStorageFault(plain, refused)).toBe(plain)
  })
})

describe("a fault as it struck", () => {
  const failed: StorageFault = { transaction: 2, phase: "statementFails", statement: 9 }

  it("is none when the operation ran fewer transactions, whatever the phase (of those that strike a transaction)", () => {
    for (const phase of STORAGE_FAULT_PHASES.filter((each) => each !== "readFails")) {
      const met = faultAsStruck({ transaction: 2, phase, statement: 1 }, sawBoundary(1, null), "grant")
      expect(met.struck).toBeUndefined()
      expect(met.words).toMatch(/storage transaction 2 \(not reached\)/)
    }
  })

  it("a failed read struck only when the boundary failed a read, however many transactions ran", () => {
    const read: StorageFault = { transaction: 1, phase: "readFails", statement: 2 }
    expect(faultAsStruck(read, sawBoundary(3, null, false), "read")).toEqual({ struck: undefined, words: expect.stringMatching(/read 2 outside any transaction \(not reached\)/) })
    expect(faultAsStruck(read, sawBoundary(0, null, true), "read").struck).toEqual(read)
  })

  it("is the drawn fault for every other phase once reached", () => {
    const crash: StorageFault = { transaction: 2, phase: "inside" }
    expect(faultAsStruck(crash, sawBoundary(2, null), "grant")).toEqual({ struck: crash, words: "crash inside storage transaction 2 (grant), before it committed" })
  })

  it("tells a failed statement by what the boundary saw", () => {
    expect(faultAsStruck(failed, sawBoundary(3, "statementFailed"), "grant").struck).toEqual(failed)
    const refused = faultAsStruck(failed, sawBoundary(2, "commitRefusedInstead"), "grant")
    expect(refused.struck).toEqual({ transaction: 2, phase: "commitRefused" })
    expect(refused.words).toMatch(/^statement 9 of storage transaction 2 \(grant\) fails .*: it ran fewer statements, so its COMMIT was refused$/)
    const first = faultAsStruck(failed, sawBoundary(2, "bodyFailedFirst"), "grant")
    expect(first.struck).toBeUndefined()
    expect(first.words).toMatch(/: not struck, the transaction failed on its own first$/)
    expect(faultAsStruck(failed, sawBoundary(2, null), "grant").struck).toBeUndefined()
    expect(struckFault(undefined, sawBoundary(2, "statementFailed"))).toBeUndefined()
  })
})
