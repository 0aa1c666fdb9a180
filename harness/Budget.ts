/**
 * Default budgets. The gate's defaults are chosen so every known-bad implementation is caught on every
 * built-in adapter (the test suite checks this); the certification budget is fixed and cannot be
 * overridden, so two certificates of the same suite version mean the same thing.
 */

/** Seed of the gate when none is given: fixed, so the gate is deterministic run to run. */
export const DEFAULT_SEED = 20_261_129

/** Generated scenarios per property per adapter in `run` when `--runs` is not given. */
export const DEFAULT_RUNS = 60

/** Fixed scenarios per property per adapter in `certify` (no override). */
export const CERTIFY_RUNS = 100

/** Fixed seed of `certify` (no override). */
export const CERTIFY_SEED = 1
