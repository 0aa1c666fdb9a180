/**
 * The statement-level fault for content (`statementFails`, `harness/StatementFault.ts`), drawn after a
 * fault scenario's commands (`harness/StatementFaultDraws.ts`) so every command draw of the property
 * stays as it was: up to three of the drawn calls that run transactions get one, and a short targeted
 * timeline is appended to every scenario: a grant or an attach of content just uploaded, a grant a
 * minute after the upload (its raise moves the horizon: K4's raise either side of "already there"),
 * an upload, or a forced sweep after the deletion horizons passed, its transaction failing at one
 * statement (K2, K4, K6: what a failed transaction wrote is gone, and the caller sees the storage
 * error). Where a failed statement leaves its transaction open (SQLite), a store that swallows a failed
 * raise commits a grant whose horizon never moved; only the later grant shows it.
 */
import * as fc from "fast-check"
import { type DrawnStatementFaults, drawnStatementFaults, statementFault, statementOrdinalArbitrary } from "../../harness/StatementFaultDraws.ts"
import { DRAWN_PAYLOADS, TENANTS } from "./config.ts"
import type { Command } from "./scenario.ts"

/** Past every deletion horizon of the properties' settings, so a forced sweep deletes. */
const PAST_HORIZONS_MS = 3 * 24 * 3_600_000

/** Virtual time between the upload and a later grant: within the grant lifetime L (1 h), so the raise moves a live row's horizon. */
const LATER_GRANT_MS = 60_000

/** A grant at once or a minute later, an attach, an upload or a sweep, with one statement of its transaction failing. */
const targetedTimeline: fc.Arbitrary<ReadonlyArray<Command>> = fc.tuple(
  fc.constantFrom("grant", "grantLater", "attach", "upload", "sweep"),
  fc.nat({ max: TENANTS.length - 1 }),
  fc.nat({ max: DRAWN_PAYLOADS - 1 }),
  statementOrdinalArbitrary
).map(([kind, tenant, payload, statement]): ReadonlyArray<Command> => {
  const fault = statementFault(1, statement)
  const upload: Command = { op: "upload", tenant, payload, stream: false }
  switch (kind) {
    case "grant":
      return [upload, { op: "grant", tenant, payload, sizeDelta: 0, fault }]
    case "grantLater":
      return [upload, { op: "advance", ms: LATER_GRANT_MS }, { op: "grant", tenant, payload, sizeDelta: 0, fault }]
    case "attach":
      return [upload, { op: "attach", tenant, actor: 0, blob: 0, name: 0, wallet: 0, misuse: "none", fault }]
    case "upload":
      return [{ ...upload, fault }, { op: "read", tenant, payload, sizeDelta: 0 }]
    default:
      return [{ op: "advance", ms: PAST_HORIZONS_MS }, { op: "sweep", force: true, fault }]
  }
})

/** The statement faults of one content fault scenario, drawn after its commands. */
export const contentStatementFaults: fc.Arbitrary<DrawnStatementFaults<Command>> = drawnStatementFaults(targetedTimeline, 3, 3)
