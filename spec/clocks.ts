/**
 * Requirement catalog of the `clocks` subject (reference page `clocks.md`: rules C1-C13, the
 * "idempotent clock fire" guarantee, historical bugs B1a-B9; seed 003, engine-store 1.0.0-rc.4).
 *
 * CLK-001..015 follow C1..C13 (C3 and C12 have two clauses each). CLK-016..019 are the clauses of
 * the idempotence guarantee, cited as `IG1`..`IG4` (the page's bullets in order; its fifth bullet,
 * "at least one resume once the fire has committed", is the liveness requirement CLK-021).
 * CLK-020..022 are the liveness requirements the harness checks after a scenario's fault window
 * (`harness/Liveness.ts`), cited as `L1`..`L3` (issue 11's list). `B*` are the page's bug numbers,
 * cited where a requirement is exactly what the bug broke. CLK-023 cites the seed (upstream's
 * `DeferredPersistence.ts` traces each operation under its own span name), on which the reference page
 * has no rule, as POL-013 does for the pool.
 */
import { type Attributor, makeAttributor } from "../harness/Attribution.ts"
import type { Requirement } from "./Requirement.ts"

const SINCE = "0.2.0"

/** The rule CLK-023 cites: the seed's span names (no rule of the reference page fixes them). */
export const CLOCKS_SPAN_RULE = "seed DeferredPersistence.ts"

const clock = (id: string, title: string, text: string, rules: ReadonlyArray<string>): Requirement => ({
  id,
  subject: "clocks",
  title,
  text,
  rules,
  since: SINCE,
  needs: []
})

/** Every requirement of the clocks subject. */
export const clockRequirements: ReadonlyArray<Requirement> = [
  clock("CLK-001", "addresses",
    "A deferred MUST be addressed by (flowName, executionId, deferredName) and a clock by (flowName, executionId, clockName); a clock MUST complete exactly the deferred it names and no other.",
    ["C1"]),
  clock("CLK-002", "journal duplicates and conflicts",
    "Re-admitting a journal record with the same (runId, sourceId, sourceSeq) and byte-equal type, payload and meta MUST answer Duplicate and write nothing; the same key with different content MUST fail with idempotency_conflict and the transaction holding it MUST keep nothing.",
    ["C2"]),
  clock("CLK-003", "lifecycle records are durable",
    "Schedule, completion and consumption records MUST go on the durable channel inside the state transaction, never on the lossy queue.",
    ["C3", "B4"]),
  clock("CLK-004", "a lossy flush failure is ignored",
    "A failure of the lossy flush after commit (including a latched sink failure) MUST be logged and ignored: the call still succeeds, the resume still happens, and a fire is not failed by it.",
    ["C3", "B5"]),
  clock("CLK-005", "state and journal commit together",
    "The engine state transaction MUST hold the journal write: a failure or crash anywhere inside MUST roll back both the rows and their records, and a row MUST never commit without its record.",
    ["C4", "B8"]),
  clock("CLK-006", "first writer wins",
    "deferredDone MUST insert the completion only when absent; otherwise the stored row stands (outcome Existing), and the deferred-completed record MUST be emitted from the stored row in the same transaction (a repeat is a journal Duplicate).",
    ["C5"]),
  clock("CLK-007", "every completion call resumes",
    "After the commit, every completion call (duplicates included) MUST flush the lossy queue and then call scheduleResume for the run, never before the commit and never running flow code.",
    ["C5", "B1b"]),
  clock("CLK-008", "deferredDoneIfWaiting",
    "deferredDoneIfWaiting MUST complete only when the run is waiting with exactly the given reason and token, checked in the same transaction; otherwise it MUST answer NotWaiting, write nothing and resume nothing.",
    ["C6"]),
  clock("CLK-009", "first consumption",
    "deferredResult MUST return the stored exit unchanged on every read and record the first consumption (consumedAt and one deferred-consumed record) in one transaction; later reads MUST change nothing.",
    ["C7"]),
  clock("CLK-010", "absolute deadlines",
    "scheduleClock MUST compute dueAt = now + duration once: a replay returns the stored row unchanged (same deadline) and emits clock-scheduled from the stored row; after commit it MUST flush and arm the clock.",
    ["C8"]),
  clock("CLK-011", "arming",
    "A pending clock MUST be armed; a fired clock MUST be armed again only when its deferred completion no longer exists; one live timer per clock key (re-arming a live key is a no-op).",
    ["C9"]),
  clock("CLK-012", "one fire transaction, in order",
    "A fire MUST, in one transaction, complete the clock's deferred first-writer-wins with exit void and metadata {clockName, dueAtMs, completedAtMs}, emit deferred-completed, compare-and-set completedAt only if still null, and emit clock-completed only when that CAS won; after commit flush and scheduleResume(..., \"clock\").",
    ["C10", "B1a"]),
  clock("CLK-013", "failed fires are retried with backoff",
    "A failed fire MUST NOT kill the timer: it MUST be retried with backoff (exponential from 100 ms, capped at 30 s, forever) until durably acknowledged.",
    ["C11", "B3"]),
  clock("CLK-014", "sweepDue",
    "sweepDue MUST re-emit clock-scheduled for every pending clock and arm it at its stored deadline, future deadlines included; with a flow name it MUST also scheduleResume every completed, unconsumed deferred of that flow with the wake identity src:wake:K, stable across sweeps.",
    ["C12", "B1c", "B1d"]),
  clock("CLK-015", "effect-boundary records",
    "Before an irreversible effect begins, one durable intended record MUST be committed; afterwards a succeeded or unknown record; each (effect, status) pair has its own identity <sourceId>:effect:<id>:<status> seq 0, so a re-emitted status is a journal Duplicate.",
    ["C13"]),
  clock("CLK-016", "exactly one completedAt",
    "However often and however a clock fires (sequentially, concurrently, after crashes or failed attempts), its completedAt MUST be set exactly once, by the first winning CAS, and never changed afterwards.",
    ["IG1"]),
  clock("CLK-017", "one completion, the first writer's value",
    "A deferred MUST have at most one completion, holding the first writer's exit, metadata and completedAt, whatever later writers, fires or retries attempt.",
    ["IG2"]),
  clock("CLK-018", "at most one record per identity",
    "The journal MUST hold at most one record per identity: one clock-scheduled and one clock-completed per clock, one deferred-completed and one deferred-consumed per deferred.",
    ["IG3"]),
  clock("CLK-019", "tables equal the fold of the journal",
    "After every operation and crash, the clock and completion rows MUST equal the fold of the journal's records: replaying the journal rebuilds the same rows (a completed clock never comes back as pending).",
    ["IG4", "B9"]),
  clock("CLK-020", "every due clock eventually fires",
    "Once the fault window has closed and the live process runs to quiescence under virtual time, every clock whose deadline has passed MUST have fired (completedAt set and its deferred completed).",
    ["L1", "B1c", "B3"]),
  clock("CLK-021", "every committed completion is eventually resumed",
    "Once the fault window has closed and the system runs to quiescence (callers retrying calls whose reply was lost, restarted processes sweeping), every committed completion MUST have at least one resume of its run after its commit.",
    ["L2", "B1b", "B1d"]),
  clock("CLK-022", "no timer left spinning",
    "At quiescence no timer may keep firing: with every due clock acknowledged, letting virtual time run on MUST start no storage transaction and emit no record.",
    ["L3", "B5"]),
  {
    ...clock("CLK-023", "operations keep upstream's span names",
      "Each operation of the service MUST run in a span named as upstream names it: DeferredPersistence.deferredResult, .deferredDone, .deferredDoneIfWaiting, .scheduleClock and .sweepDue (an operator's traces, dashboards and alerts key on these names).",
      [CLOCKS_SPAN_RULE]),
    since: "0.7.0"
  }
]

/** The rules-to-requirement attributor of the clocks catalog (fallback: the fold requirement). */
export const clocksAttributor: Attributor = makeAttributor(clockRequirements, "CLK-019")
