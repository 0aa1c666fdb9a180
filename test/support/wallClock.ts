/**
 * Reports compared apart from their wall-clock fields (`durationMs`, `startedAt`, `finishedAt`): the
 * determinism promise is "same seed, same report bytes apart from wall-clock fields".
 */
import type { ConformanceReport } from "../../harness/RunResult.ts"

/** The names of the fields that measure wall-clock time. */
export const WALL_CLOCK_FIELDS: ReadonlySet<string> = new Set(["durationMs", "startedAt", "finishedAt"])

/** The report as plain JSON without its wall-clock fields. */
export const withoutWallClock = (report: ConformanceReport): unknown =>
  JSON.parse(JSON.stringify(report, (key, value) => (WALL_CLOCK_FIELDS.has(key) ? undefined : value)))
