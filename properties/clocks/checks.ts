/**
 * What the clocks properties compare after each step, finest first, and the rules deciding each
 * observable: the call's result, the resumes of the step (any order; the model names the ones that
 * may or may not happen), the completion rows, the clock rows, the journal's records by identity
 * (then their meta and digests, `recordChecks.ts`), what went to the lossy channel, and the executions
 * of irreversible effects. Pure.
 */
import { canonical, type Check } from "../../harness/ModelBased.ts"
import { toJson } from "../../harness/ToJson.ts"
import type { Json } from "../../harness/Property.ts"
import { type FaultedCommand, observableOf, type Resume, type StepOutcome } from "../../models/clocks/index.ts"
import type { ObservedRows } from "./observe.ts"
import { recordChecks } from "./recordChecks.ts"
import type { LoggedResume } from "./session.ts"

/** A resume as compared (no step number). */
const resumeJson = (resume: Resume | LoggedResume): Json => ({
  process: resume.process,
  executionId: resume.executionId,
  reason: resume.reason,
  sourceId: resume.sourceId
})

const sortedJson = (values: ReadonlyArray<Json>): ReadonlyArray<Json> => [...values].sort((a, b) => (canonical(a) < canonical(b) ? -1 : 1))

/** The observed resumes without the ones the model allows but does not require (each removed once). */
export const withoutOptional = (observed: ReadonlyArray<Json>, optional: ReadonlyArray<Json>): ReadonlyArray<Json> => {
  const remaining = [...observed]
  for (const allowed of optional) {
    const index = remaining.findIndex((entry) => canonical(entry) === canonical(allowed))
    if (index >= 0) remaining.splice(index, 1)
  }
  return remaining
}

/**
 * C3's "a flush failure is logged": a step during which the lossy sink failed `flushFailures` flushes
 * wrote at least one log entry at a failure level (whatever its text: the reference fixes none).
 */
const flushLoggedCheck = (flushFailures: number, failureLogs: number): Check => ({
  observable: "warnings logged for failed lossy flushes",
  expected: { failedFlushes: flushFailures, loggedAtWarnOrAbove: true },
  actual: { failedFlushes: flushFailures, loggedAtWarnOrAbove: failureLogs > 0 },
  rules: ["C3", "B5"],
  why: "a lossy flush failure is logged and ignored"
})

/** Everything one step's comparison reads. */
export interface StepComparison {
  readonly outcome: StepOutcome
  readonly actualResult: Json
  readonly resumes: ReadonlyArray<LoggedResume>
  readonly observed: ObservedRows
  readonly lossyRecords: ReadonlyArray<string>
  readonly effectRuns: number
  /** Lossy flushes the latched sink failed during the step. */
  readonly flushFailures: number
  /** Parts of the records handed to the journal during the step that were not JSON values. */
  readonly nonJsonRecordParts: ReadonlyArray<string>
  /** Log entries at a failure level written during the step. */
  readonly failureLogs: number
}

/** The `_tag` of a result as the model or the driver writes it (`Success`, `Crashed`, ...), if it has one. */
const tag = (value: Json): unknown => (value as { readonly _tag?: unknown } | null)?._tag

/** The checks of one step, finest first. */
export const clocksChecks = (c: StepComparison): ReadonlyArray<Check> => {
  const expected = observableOf(c.outcome.state)
  const rules = c.outcome.rules
  // A crash the model did not expect: the implementation ran transactions where the rules put none (C4).
  const crashMismatch = tag(c.outcome.result) !== "Crashed" && tag(c.actualResult) === "Crashed"
  // The latched lossy sink's error reaching the caller: C3 says a flush failure is ignored.
  const flushFailure = (c.actualResult as { readonly error?: unknown } | null)?.error === "JournalError:sink_failed"
  return [
    { observable: "result", expected: c.outcome.result, actual: c.actualResult, rules: crashMismatch ? ["C4", "B8"] : flushFailure ? ["C3", "B5"] : rules.result, why: c.outcome.why },
    {
      observable: "resumes",
      expected: sortedJson(c.outcome.resumes.map(resumeJson)) as Json,
      actual: sortedJson(withoutOptional(c.resumes.map(resumeJson), c.outcome.optionalResumes.map(resumeJson))) as Json,
      // As many failed flushes as the model's flushes (or more: retries): the commits happened and their
      // flushes failed, so a missing resume is C3's "a flush failure is ignored".
      rules: c.outcome.flushes > 0 && c.flushFailures >= c.outcome.flushes ? [...rules.resumes, "C3", "B5"] : rules.resumes,
      why: "every committed completion call and fire resumes its run once, after the commit; sweeps wake unconsumed completions"
    },
    { observable: "completion rows", expected: toJson(expected.deferreds), actual: c.observed.deferreds as Json, rules: rules.deferreds, why: "completions are first-writer-wins and commit with their records" },
    { observable: "clock rows", expected: toJson(expected.clocks), actual: c.observed.clocks as Json, rules: rules.clocks, why: "deadlines are absolute and completedAt is set once by the winning CAS" },
    { observable: "lossy channel", expected: [], actual: [...c.lossyRecords], rules: ["C3", "B4"], why: "lifecycle records never take the droppable lossy queue" },
    { observable: "journal records", expected: expected.journal as Json, actual: c.observed.journal as Json, rules: rules.journal, why: "each record commits with its row, once per identity" },
    ...recordChecks(c.observed.records, c.outcome.state),
    {
      observable: "parts of handed records that are not JSON values",
      expected: [],
      actual: [...c.nonJsonRecordParts],
      rules: ["C2"],
      why: "a record's payload and meta are JSON values: the journal compares them as JSON text, which drops an undefined field or a non-finite number"
    },
    { observable: "effect executions", expected: expected.effectRuns, actual: c.effectRuns, rules: ["C13"], why: "an effect runs only after its intended record committed" },
    ...(c.flushFailures === 0 ? [] : [flushLoggedCheck(c.flushFailures, c.failureLogs)])
  ]
}

/**
 * C12: a sweep re-announces every pending clock (re-emits its clock-scheduled record, a `Duplicate`).
 * The journal keeps one record per identity, so the re-announcement changes nothing stored; the harness
 * sees it where it hands the journal over (`journalHarness.ts`). Only the pending clocks the model
 * names are compared (another record announced as well is not C12's business), and only in a sweep or
 * restart no fault struck: a fault may end the sweep before any announcement. A failed read strikes no
 * announcement: a sweep judged to have run whole after one (it read again) must have made them all.
 */
export const announcementChecks = (command: FaultedCommand, outcome: StepOutcome, handed: ReadonlyArray<string>): ReadonlyArray<Check> => {
  const sweeps = command.op === "sweep" || command.op === "restart"
  const writeFaulted = (command.fault !== undefined && command.fault.phase !== "readFails") || command.journalFault !== undefined
  const succeeded = tag(outcome.result) === "Success"
  if (!sweeps || writeFaulted || outcome.crashed || (command.fault?.phase === "readFails" && !succeeded)) return []
  const seen = new Set(handed)
  return [{
    observable: "pending clocks whose clock-scheduled record the sweep re-emitted",
    expected: [...outcome.announced],
    actual: outcome.announced.filter((identity) => seen.has(identity)),
    rules: ["C12"],
    why: "sweepDue re-emits clock-scheduled for every pending clock (a Duplicate) and arms it at its stored deadline, whichever process scheduled it"
  }]
}
