/** Instants (UTC ms) of the 2026 DST transitions of the zones the cron suite uses (N2): gaps and folds. */
export const DST_TRANSITIONS_2026: ReadonlyArray<readonly [zone: string, atMs: number]> = [
  ["America/New_York", Date.UTC(2026, 2, 8, 7)],
  ["America/New_York", Date.UTC(2026, 10, 1, 6)],
  ["Europe/London", Date.UTC(2026, 2, 29, 1)],
  ["Europe/London", Date.UTC(2026, 9, 25, 1)],
  ["Australia/Lord_Howe", Date.UTC(2026, 3, 4, 15)],
  ["Australia/Lord_Howe", Date.UTC(2026, 9, 3, 15, 30)]
]
