/**
 * Requirement catalog of the `cron` subject (reference page `cron.md`: rules N1-N8, the four
 * invariants and five historical bugs). The page does not number its invariants and bugs, so this
 * catalog cites them by their order on the page: I1 one pending row per (actor, entry), I2 at most one
 * delivery per instant, I3 missed instants collapse, I4 no retarget double-fire; B1 retarget
 * double-fire, B2 first tick timed from admission, B3 tick id expiry counted from now, B4 UTC-only
 * schedules, B5 unfenced settling writes.
 *
 * CRN-001..008 follow N1..N8, CRN-009..012 the four invariants, CRN-013..016 the historical bugs that
 * are not already an invariant (B1 is I4), and CRN-017 the persisted layout of the page's Rows section
 * (cited as `Rows`).
 */
import { type Attributor, makeAttributor } from "../harness/Attribution.ts"
import type { Requirement } from "./Requirement.ts"

const SINCE = "0.2.0"

const cron = (id: string, title: string, text: string, rules: ReadonlyArray<string>, since: string = SINCE): Requirement => ({
  id,
  subject: "cron",
  title,
  text,
  rules,
  since,
  needs: []
})

/** Every requirement of the cron subject. */
export const cronRequirements: ReadonlyArray<Requirement> = [
  cron("CRN-001", "canonical timer keys",
    "A cron entry's timer key MUST be \"$cron:\" followed by its IANA zone and canonical fields, or \"$cron:@every <ms>ms\" with at least 1000 ms; equivalent spellings MUST share one key and different schedules MUST NOT, two entries of one schedule with one key MUST be rejected, and an invalid pattern or zone MUST be rejected. The text of the canonical fields is the implementation's: keys are compared by the schedules they stand for.",
    ["N1"]),
  cron("CRN-002", "next instant after",
    "next(after) MUST be the first scheduled instant strictly after `after`: a wall time skipped by a DST gap fires once at the first instant after the gap, a wall time repeated by a DST fold fires only at its first occurrence, and @every fires at multiples of the interval since the epoch.",
    ["N2"]),
  cron("CRN-003", "tick ids",
    "A tick id MUST be v1.<now>.<max(dueAt, now) + retryWindow>.<uuid>, with a fresh uuid for every written or rewritten tick.",
    ["N3"]),
  cron("CRN-004", "writeTicks",
    "writeTicks MUST write, in the actor's committed turn only, one row per entry with due_at = scheduled_at = next(now), the entry's command and payload, caller System{source: \"cron\"}, and insert-or-ignore on the timer-key index, so an entry that already ticks keeps its row.",
    ["N4"]),
  cron("CRN-005", "bootstrapTicks",
    "bootstrapTicks MUST write a singleton's missing ticks at startup in one transaction, and keep one row per entry however many runners bootstrap at once.",
    ["N5"]),
  cron("CRN-006", "claims only for declared actor types",
    "A runner MUST claim due $cron: rows only for actor types whose schedules it declares, and a claim MUST hold the row until its lease ends (due_at = claimed_until).",
    ["N6"]),
  cron("CRN-007", "decisions before delivery",
    "Before delivery a claimed tick MUST be deleted when its entry is not declared here and it is stale, released with backoff when not declared and not stale, rewritten to the next tick without delivery when stale, delivered when its command is the entry's, and when the command differs rewritten without delivery if a receipt exists for the tick id, else delivered with the entry's current command under the same id.",
    ["N7"]),
  cron("CRN-008", "rewrite after the receipt",
    "After the receipt commits the row MUST be deleted when its entry is gone and otherwise rewritten in place with a fresh id, the current command and payload, due_at = scheduled_at = next(now), attempts 0, no error and not ambiguous; every settling write MUST be fenced on the claim.",
    ["N8"]),
  cron("CRN-009", "one pending row per (actor, entry)",
    "There MUST never be more than one pending row per (tenant, actor, timer key), whatever order turns, bootstraps and settling writes run in.",
    ["I1", "N4", "N5"]),
  cron("CRN-010", "at most one delivery per instant",
    "Each tick MUST be delivered at most once (a receipt replays a redelivery), and a crash between the receipt and the rewrite MUST lead to exactly one rewrite after the lease.",
    ["I2", "N8"]),
  cron("CRN-011", "missed instants collapse",
    "Missed instants MUST collapse into at most one delivery, and a tick older than the skip window MUST never be delivered.",
    ["I3", "N7", "N8"]),
  cron("CRN-012", "no retarget double-fire",
    "A retargeted tick MUST NOT fire twice (old command then new command) for one instant: a receipt for its id means rewrite without delivering.",
    ["I4", "N7", "B1"]),
  cron("CRN-013", "first tick timed from the write",
    "The first tick of a turn MUST be next(time of the write), not next(time the turn was admitted).",
    ["B2", "N4"]),
  cron("CRN-014", "tick id expiry from the scheduled time",
    "A tick id's expiry MUST be counted from max(dueAt, now), not from now.",
    ["B3", "N3"]),
  cron("CRN-015", "schedules follow their zone across DST",
    "A zoned schedule MUST fire at its wall times in its own zone across DST gaps and folds (including 30-minute shifts and zones that are not a whole hour off UTC), never at UTC wall times.",
    ["B4", "N2"]),
  cron("CRN-016", "settling writes fenced on the claim",
    "A runner whose lease has passed MUST change nothing: every settling write (delete, backoff, rewrite) MUST be fenced on due_at = claimed_until.",
    ["B5", "N8"]),
  cron("CRN-017", "upstream's persisted layout",
    "The outbox and generation tables MUST keep upstream's names and columns, so upstream's own statements (those the seed gives) run on them: its tick insert (attempts, last_error and ambiguous left to their defaults 0, NULL and false, conflicting on the timer-key unique index), its rewrite (`ambiguous = false`, which Postgres takes only in a BOOLEAN column) and its generation insert. Declared types are the implementation's where upstream's statements do not decide them.",
    ["Rows"], "0.12.0")
]

/** Attribution over the cron catalog; CRN-009 (stored rows) when no rule matches. */
export const cronAttributor: Attributor = makeAttributor(cronRequirements, "CRN-009")
