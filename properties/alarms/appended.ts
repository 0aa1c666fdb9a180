/**
 * Targeted units appended after every other command of an alarms scenario, drawn after every other
 * field (`alarmsScenario`), so every earlier draw of a seed, and every earlier counterexample, keeps its
 * bytes; only the appended commands are new.
 *
 * - `parkLost` (fault scenarios only): a fresh alarm parks on its first charge (budget 1), by a failure
 *   (R25) or by its handler's self-rearm (R13, R14), and the process crashes right after the commit that
 *   queued its park report: the report may be lost, never duplicated (R27, situation `parkReportLost`).
 * - `illTyped`: a JavaScript caller's input outside the static types, only where the reference decides
 *   the outcome: a number tag or id given to `scheduleAlarm` or `scheduleAlarmEarlier` (R8, and R29 for
 *   typed definitions: `InvalidAlarmRefError`, nothing written), an `onFailure` object with an unknown
 *   `mode` and no `retryFailedAfter` (R24: anything but `skip-and-advance-repeat` reschedules, with the
 *   base delay).
 *
 * Left out because the reference leaves the outcome open: a `runAt` that is not a `DateTime` (R8 does
 * not validate it), an unknown `mode` carrying a `retryFailedAfter` (R24 does not say whether such an
 * object has an "own" delay), and a `null` or non-object ref given to `cancelAlarm` or
 * `getAlarmStatus` (R8 decides refs for scheduling only; an upstream-shaped implementation,
 * `examples/third-party-alarms`, reads `ref.tag` and fails with a TypeError, which no rule forbids). `onFailure` returning `null` is drawn by `arbitraries.ts` already (`returnsNull`).
 */
import * as fc from "fast-check"
import type { Command, InputSpec, RefSpec } from "./scenario.ts"
import { IDS, TAGS } from "./scenario.ts"

const DAY_MS = 86_400_000

/**
 * Deadline of the appended parking alarm: a month overdue, earlier than every other row a scenario
 * stores, so its failure or self-rearm is the dispatch's first transaction (R21: by wake_at).
 */
const PARK_LOST_RUN_IN_MS = -30 * DAY_MS

/** A value a JavaScript caller may pass where the static type says `A` (the scenario stays JSON). */
const outsideType = <A>(value: unknown): A => value as A

/** What parks the appended alarm. */
export type ParkLostCause = "failure" | "selfRearm"

/** The drawn part of a `parkLost` unit; the tag comes from the scenario (a declared one). */
export interface ParkLostDraw {
  readonly parkedBy: ParkLostCause
  readonly id: string
  readonly reporterFails: boolean
}

/** Draws of the `parkLost` unit. */
export const parkLostDraw: fc.Arbitrary<ParkLostDraw> = fc.record({
  parkedBy: fc.constantFrom<ParkLostCause>("failure", "selfRearm"),
  id: fc.constantFrom(...IDS),
  reporterFails: fc.boolean()
}, { noNullPrototype: true })

/**
 * The `parkLost` commands for tag `tag`: budget 1, an overdue external enrollment (attempts 0, R13),
 * then a dispatch whose first transaction parks the alarm (the failure write, or the handler's own
 * re-arm) and crashes right after its commit (R27: the report may be lost).
 */
export const parkLostCommands = (draw: ParkLostDraw, tag: string): ReadonlyArray<Command> => {
  const own: RefSpec = { tag, id: draw.id }
  const rearm: InputSpec = { ...own, payload: null, runInMs: 0, copyOfOwnRow: true }
  return [
    { op: "configure", configuration: { unchangedAttemptBudget: 1 } },
    { op: "schedule", input: { ...own, payload: null, runInMs: PARK_LOST_RUN_IN_MS } },
    {
      op: "dispatch",
      handlers: [{ ...own, script: draw.parkedBy === "failure" ? { outcome: "fail" } : { writes: [{ kind: "scheduleAlarm", input: rearm }] } }],
      fault: { transaction: 1, phase: "afterCommit" },
      ...(draw.reporterFails ? { reporterFails: true } : {})
    },
    { op: "status", ref: own }
  ]
}

/** The kinds of ill-typed input a unit passes. */
export type IllTypedKind = "numberTag" | "numberId" | "unknownMode"

/** The drawn part of an `illTyped` unit. */
export interface IllTypedDraw {
  readonly kind: IllTypedKind
  readonly id: string
  /** `numberTag`/`numberId`: through `scheduleAlarmEarlier` instead of `scheduleAlarm`. */
  readonly variant: boolean
}

/** Draws of the `illTyped` unit. */
export const illTypedDraw: fc.Arbitrary<IllTypedDraw> = fc.record({
  kind: fc.constantFrom<IllTypedKind>("numberTag", "numberId", "unknownMode"),
  id: fc.constantFrom(...IDS),
  variant: fc.boolean()
}, { noNullPrototype: true })

/** The `illTyped` commands for tag `tag` (a declared one). */
export const illTypedCommands = (draw: IllTypedDraw, tag: string): ReadonlyArray<Command> => {
  const op = draw.variant ? { op: "schedule" as const, earlier: true } : { op: "schedule" as const }
  switch (draw.kind) {
    case "numberTag":
      return [{ ...op, input: { tag: outsideType<string>(Number(draw.id)), id: draw.id, payload: null, runInMs: 0 } }]
    case "numberId":
      return [{ ...op, input: { tag, id: outsideType<string>(Number(draw.id)), payload: null, runInMs: 0 } }]
    case "unknownMode":
      return [
        { op: "schedule", input: { tag, id: draw.id, payload: null, runInMs: 0 } },
        { op: "dispatch", handlers: [{ tag, id: draw.id, script: { outcome: "fail", onFailure: { kind: "unknownMode" } } }] },
        { op: "status", ref: { tag, id: draw.id } }
      ]
  }
}

/** The tags declared at the end of `commands` (null: untyped), starting from the scenario's `knownTags`. */
export const finalKnownTags = (initial: ReadonlyArray<string> | undefined, commands: ReadonlyArray<Command>): ReadonlyArray<string> | null => {
  let known: ReadonlyArray<string> | null = initial ?? null
  for (const command of commands) {
    if (command.op === "restart" && command.knownTags !== undefined) known = command.knownTags
  }
  return known
}

/** A tag the final definitions declare (any tag of the id space when untyped), picked by the drawn id. */
export const declaredTag = (known: ReadonlyArray<string> | null, id: string): string => {
  const tags = known === null || known.length === 0 ? TAGS : known
  return tags[IDS.indexOf(id as typeof IDS[number]) % tags.length]!
}
