/**
 * Requirement catalog of the `pool` subject (reference page `pool.md`: rules P1-P7 and five
 * invariants). The invariants are unnumbered on the page; this catalog cites them in page order as
 * I1 (waiters never exceed the bound), I2 (refusals never send a statement), I3 (grants are FIFO),
 * I4 (no slot leaks under interruption at any point) and I5 (no statement is retried after it reached
 * the server). POL-001..007 follow P1..P7; POL-008..012 follow I1..I5. POL-013 cites the seed's
 * `bounded.d.ts` ("apart from the gates it is `PgClient.make`: the same compiler, transforms, span
 * attributes, ..."), on which the reference page has no rule.
 *
 * Every requirement needs `independentConnections`: the subject is a pool of real server sessions,
 * so on a single-connection engine (pglite, sqlite, do-sqlite) it is not applicable.
 */
import { type Attributor, makeAttributor } from "../harness/Attribution.ts"
import type { Requirement } from "./Requirement.ts"

const SINCE = "0.2.0"

const pool = (id: string, title: string, text: string, rules: ReadonlyArray<string>): Requirement => ({
  id,
  subject: "pool",
  title,
  text,
  rules,
  since: SINCE,
  needs: ["independentConnections"]
})

/** Every requirement of the pool subject. */
export const poolRequirements: ReadonlyArray<Requirement> = [
  pool("POL-001", "admission bound and refusal",
    "Every checkout (acquire, transaction, borrowed statement, listen, notify) MUST first take an admission slot; while maxConnections + 64 are held a further checkout MUST be refused at once with an error isPoolRefusal recognises, and a checkout below the bound MUST NOT be refused.",
    ["P1"]),
  pool("POL-002", "fair gate hands freed slots over",
    "After admission a checkout MUST pass a first-come-first-served gate with one slot per connection; a freed slot MUST go to the oldest waiter, never back to a free count that the releasing fiber could take again.",
    ["P2"]),
  pool("POL-003", "the driver pool never waits",
    "A checkout MUST reach the driver pool only after the gate, so the pool MUST NOT open more than maxConnections server sessions and never has waiters of its own. Observed on the wire: the server sessions open when the system is quiet. A driver-pool waiter that changes nothing on the wire (a gate slot released a moment before its connection is back in the driver pool) is outside what this requirement can observe.",
    ["P3"]),
  pool("POL-004", "slots are scoped; transaction statements take none",
    "Both slots MUST belong to the checkout's scope (or the borrowed statement) and return when it ends; a statement inside a transaction MUST reuse the transaction's connection and take no slot.",
    ["P4"]),
  pool("POL-005", "a COMMIT answered with ROLLBACK fails",
    "When the server answers COMMIT with ROLLBACK (the transaction had aborted), the transaction MUST fail: the unknown outcome is surfaced, never reported as success.",
    ["P5"]),
  pool("POL-006", "notify on its own checkout",
    "notify MUST use a checkout of its own, outside the caller's transaction, and MUST reject a channel name longer than 63 UTF-8 bytes before sending anything.",
    ["P6"]),
  pool("POL-007", "retry helper for pool refusals",
    "retryPoolRefusal MUST retry only pre-statement pool refusals, with delays growing exponentially from 10 ms and capped at 250 ms, measured on Effect's Clock.",
    ["P7"]),
  pool("POL-008", "waiters never exceed the bound",
    "The pool MUST NOT admit more than maxConnections + 64 checkouts at once (holding or waiting); the checkout past the bound MUST be refused rather than queued.",
    ["I1", "P1"]),
  pool("POL-009", "a refusal never sends a statement",
    "A refused checkout MUST NOT send any statement to the server.",
    ["I2", "P1"]),
  pool("POL-010", "grants are FIFO",
    "Checkouts waiting at the gate MUST be granted in the order they arrived; a later checkout (including a second checkout of a fiber that just released) MUST NOT be granted before an earlier one.",
    ["I3", "P2"]),
  pool("POL-011", "no slot leaks under interruption",
    "Interrupting a checkout at any point (while admitted and waiting, at the moment its slot is handed over, or while holding) MUST return every slot it held or was handed, so later checkouts are granted as if it had never been.",
    ["I4", "P4", "P2"]),
  pool("POL-012", "no retry after a statement reached the server",
    "The retry helper MUST NOT send again a statement that reached the server: a failed statement or an unknown commit MUST be surfaced, not retried.",
    ["I5", "P7"]),
  {
    ...pool("POL-013", "the client is PgClient.make apart from the gates",
      "Apart from its gates the bounded pool MUST be PgClient.make for the same config: its statements MUST carry the same span attributes, in the same order (the caller's spanAttributes, then db.system.name, db.namespace, server.address and server.port derived from the config), and reach the server the same way: each statement and transaction control prepared as a named statement on its session, and the unprepared entry points and streams through the unnamed statement.",
      ["seed bounded.d.ts"]),
    since: "0.5.0"
  }
]

/** Attribution over the pool catalog (`POL-002` when a prediction carries no rule: a model bug). */
export const poolAttributor: Attributor = makeAttributor(poolRequirements, "POL-002")
