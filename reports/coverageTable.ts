/**
 * The situation coverage table of a report: for each subject, each situation its model names and how
 * many scenarios reached it on each adapter (`null` where the subject did not apply to the adapter).
 * Markdown and HTML render the same rows.
 */
import { SITUATION_FLAG_BELOW } from "../harness/Coverage.ts"
import type { AdapterResult } from "../harness/RunResult.ts"

/** One situation of one subject, with its count per adapter in the report's adapter order. */
export interface CoverageRow {
  readonly situation: string
  readonly scenariosByAdapter: ReadonlyArray<number | null>
}

/** One subject's table. */
export interface SubjectCoverageTable {
  readonly subject: string
  readonly rows: ReadonlyArray<CoverageRow>
  /** Cells reached at least once but fewer than `SITUATION_FLAG_BELOW` times. */
  readonly rareCells: number
  /** Cells no scenario reached (where the subject applied). */
  readonly unreachedCells: number
}

/** How a count reads in a cell: `rare` below the flag, `unreached` at 0, `na` when not applicable. */
export type CoverageCellKind = "ok" | "rare" | "unreached" | "na"

/** The kind of one cell. */
export const cellKind = (scenarios: number | null): CoverageCellKind =>
  scenarios === null ? "na" : scenarios === 0 ? "unreached" : scenarios < SITUATION_FLAG_BELOW ? "rare" : "ok"

/** The tables of every subject some adapter has coverage for, subjects in first-seen order. */
export const coverageTables = (adapters: ReadonlyArray<AdapterResult>): ReadonlyArray<SubjectCoverageTable> => {
  const subjects = [...new Set(adapters.flatMap((adapter) => (adapter.coverage ?? []).map((coverage) => coverage.subject)))]
  return subjects.map((subject) => {
    const perAdapter = adapters.map((adapter) => adapter.coverage?.find((coverage) => coverage.subject === subject))
    const situations = [...new Set(perAdapter.flatMap((coverage) => (coverage?.situations ?? []).map((count) => count.situation)))]
    const rows = situations.map((situation) => ({
      situation,
      scenariosByAdapter: perAdapter.map((coverage) =>
        coverage === undefined ? null : coverage.situations.find((count) => count.situation === situation)?.scenarios ?? 0)
    }))
    const cells = rows.flatMap((row) => row.scenariosByAdapter.map(cellKind))
    return {
      subject,
      rows,
      rareCells: cells.filter((kind) => kind === "rare").length,
      unreachedCells: cells.filter((kind) => kind === "unreached").length
    }
  })
}
