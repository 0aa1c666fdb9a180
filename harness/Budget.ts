/**
 * Default budgets. The gate's defaults are chosen so every known-bad implementation is caught on every
 * built-in adapter (the test suite checks this); the certification budget (`reports/certificate.ts`,
 * `CERTIFICATION_BUDGET`) and seeds are fixed and cannot be overridden, so two certificates of the same suite version mean the same thing.
 */

/** Seed of the gate when none is given: fixed, so the gate is deterministic run to run. */
export const DEFAULT_SEED = 20_261_129

/** Generated scenarios per property per adapter in `run` when `--runs` is not given. */
export const DEFAULT_RUNS = 60

/** The fixed seeds `certify` runs with: the first `seedCount` of these (no override). */
export const CERTIFY_SEEDS: ReadonlyArray<number> = [1, 2, 3, 4, 5]
