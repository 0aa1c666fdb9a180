/**
 * What the tests expect of each known-bad cron implementation, shared by the in-process adapters'
 * test (`caught.test.ts`) and the Durable Object test (`caught-do-sqlite.test.ts`): a bound on the
 * steps of every minimized counterexample (measured on all adapters, then set a little above; re-measured
 * when the generator gained races of runners, 2026-12-01). What
 * the bug breaks is declared with the bug itself (`breaks`), not here.
 */

/** The cron properties, by id, in the order the caught-loop tries them. */
export const CRON_PROPERTY_ORDER: ReadonlyArray<string> = ["cron/model", "cron/faults"]

/** Bound on the steps of each known-bad's minimized counterexamples, by name. */
export const MAX_STEPS: Readonly<Record<string, number>> = {
  "b1-retarget-without-receipt": 12,
  "b2-tick-from-admission": 5,
  "b3-expiry-from-now": 5,
  "b4-utc-only": 14,
  "b5-unfenced-settle": 12,
  "claims-undeclared-types": 12,
  "stale-from-claim": 22,
  "catch-up-rewrite": 15,
  "croner-interval-dst": 15,
  // Caught by the dated probes (`datedProbes`) on the step of the first declaration.
  "first-transition-only": 6,
  // Caught either by two spellings in one opening deploy (3 steps) or, since 2026-12-03, by the appended
  // respelled declaration (`respelledDeclarations`), after the opening and the one episode a scenario
  // keeps at least: measured 7 steps on pglite.
  "raw-spelling-keys": 8,
  // Only a refused COMMIT of a claim shows it (cron/faults' refusedCommits, the runner polling again
  // after it): measured 6 steps on sqlite, pglite, postgres and do-sqlite (2026-12-02).
  "claim-marks-before-commit": 10,
  // Only a failed statement of a claim shows it (cron/faults' failedStatements).
  "claim-swallows-statement-failure": 12,
  // Upstream's statements run with the first step of every scenario (properties/cron/upstreamStatements.ts).
  "ambiguous-without-default": 1
}
