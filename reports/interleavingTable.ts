/**
 * The interleaving guarantee of a report: for each step-scheduled property run (one that declares an
 * interleaving shape, `PropertyDefinition.interleaving`), n, k and per depth d the PCT bound and the
 * miss probability over the PCT runs of that depth. Markdown, HTML and the run summary render the same
 * rows; the numbers come from `harness/PctBound.ts`, recomputed from the run's situations.
 */
import { describeDepthBound, type DepthBound, GUARANTEE_SCOPE, interleavingGuarantee, type InterleavingGuarantee } from "../harness/PctBound.ts"
import type { AdapterResult } from "../harness/RunResult.ts"

/** One step-scheduled property on one adapter. */
export interface InterleavingRow {
  readonly propertyId: string
  readonly adapter: string
  readonly guarantee: InterleavingGuarantee
}

/** The scope sentence every format prints above the rows. */
export const INTERLEAVING_SCOPE = `PCT (Burckhardt et al., ASPLOS 2010): ${GUARANTEE_SCOPE}.`

/** Rows of every applicable property run that declares an interleaving shape, in report order. */
export const interleavingRows = (adapters: ReadonlyArray<AdapterResult>): ReadonlyArray<InterleavingRow> =>
  adapters.flatMap((adapter) =>
    adapter.properties.flatMap((run) =>
      run.interleaving === undefined || run.verdict === "not-applicable"
        ? []
        : [{ propertyId: run.propertyId, adapter: adapter.fingerprint.name, guarantee: interleavingGuarantee(run.interleaving, run.situations) }]))

/** One depth's cell: `p ≥ 1/8 (12.5%) per PCT run; 10 runs; miss ≤ 26.3%`. */
export const depthCell = (guarantee: InterleavingGuarantee, bound: DepthBound): string =>
  describeDepthBound(guarantee, bound).replace(/^d=\d+: /, "")

const percent = (value: number): string => `${(value * 100).toPrecision(3)}%`

/** One summary line per row: `INTERLEAVING content/races on sqlite: n=2 k=4, PCT runs 6/6/9 (d=1/2/3), miss ≤ 1.56%/44.9%/75.1%`. */
export const interleavingSummaryLines = (adapters: ReadonlyArray<AdapterResult>): ReadonlyArray<string> =>
  interleavingRows(adapters).map(({ propertyId, adapter, guarantee }) => {
    const depths = guarantee.bounds.map((bound) => bound.depth).join("/")
    return `INTERLEAVING ${propertyId} on ${adapter}: n=${guarantee.operations} k=${guarantee.steps}, PCT runs ${guarantee.bounds.map((bound) => bound.pctRuns).join("/")} (d=${depths}), miss ≤ ${guarantee.bounds.map((bound) => percent(bound.missProbability)).join("/")}`
  })
