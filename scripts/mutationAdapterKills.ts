/**
 * Kills made on another adapter than a subject's default, kept across reruns (`npm run mutation`).
 *
 * The gate runs every adapter, so a mutant only postgres detects (pg-only SQL) is detected by the gate.
 * A later run on the default adapter (sqlite) would report it as a survivor again and overwrite the
 * kill in the incremental file. So every kill a non-default run adds is recorded in
 * `mutation/<subject>.adapter-kills.json`, and a later run of any other adapter that reports the same
 * mutant (same file, location, mutator and replacement) undetected gets the recorded status back.
 * A run of the recording adapter itself that no longer detects it drops the record: that adapter's
 * verdict is the newest. The other way round, a non-default run never turns a mutant detected before
 * it (on the default adapter: sqlite-only code) into a survivor. And no run turns a detected mutant it
 * never reached (`NoCoverage`: code only another adapter runs) into an undetected one, recorded or not:
 * the pg-only kills made before the record existed (2026-12-02) were lost that way on the first
 * whole-subject rerun after a test-side change (content, 2026-12-06: 53 of them).
 */
import { type MutationReport, mutantKey, type ReportMutant } from "./mutationReport.ts"

/** One recorded kill: the adapter that made it, Stryker's status, and the day. */
export interface AdapterKill {
  readonly adapter: string
  readonly status: string
  readonly date: string
}

/** Recorded kills by `mutantKey` (`mutationReport.ts`, the key `equivalents.md` uses too). */
export type AdapterKills = Readonly<Record<string, AdapterKill>>

const DETECTED: ReadonlySet<string> = new Set(["Killed", "Timeout"])
const UNDETECTED: ReadonlySet<string> = new Set(["Survived", "NoCoverage"])

const statusesOf = (report: MutationReport): ReadonlyMap<string, string> =>
  new Map(Object.entries(report.files).flatMap(([file, entry]) => entry.mutants.map((mutant) => [mutantKey(file, mutant), mutant.status] as const)))

/** What `reconcileAdapterKills` returns: the report to keep, the kills to record, and the restored keys. */
export interface Reconciled {
  readonly report: MutationReport
  readonly kills: AdapterKills
  readonly restored: ReadonlyArray<string>
}

/**
 * Reconciles the report of a run on `adapter` (`after`) with the one before it and the recorded kills:
 * a non-default run records the mutants it newly detected, and those `retested` says it tested again
 * (a `--force` run retests every mutant in its scope, so a kill it reuses from before is its own too);
 * any run restores a recorded kill of another adapter that it reports undetected; records of mutants no
 * longer in the report are dropped.
 */
export const reconcileAdapterKills = (
  before: MutationReport | undefined,
  after: MutationReport,
  recorded: AdapterKills,
  run: { readonly adapter: string; readonly defaultAdapter: string; readonly date: string },
  retested: (file: string, mutant: ReportMutant) => boolean = () => false
): Reconciled => {
  const previous = before === undefined ? new Map<string, string>() : statusesOf(before)
  const kills: Record<string, AdapterKill> = {}
  const restored: Array<string> = []
  const files = Object.fromEntries(Object.entries(after.files).map(([file, entry]) => {
    const mutants = entry.mutants.map((mutant): ReportMutant => {
      const key = mutantKey(file, mutant)
      const kill = recorded[key]
      if (DETECTED.has(mutant.status)) {
        const newlyDetected = !DETECTED.has(previous.get(key) ?? "") || retested(file, mutant)
        if (run.adapter !== run.defaultAdapter && newlyDetected) kills[key] = { adapter: run.adapter, status: mutant.status, date: run.date }
        else if (kill !== undefined) kills[key] = kill
        return mutant
      }
      if (!UNDETECTED.has(mutant.status)) return mutant
      if (kill !== undefined && kill.adapter !== run.adapter) {
        kills[key] = kill
        restored.push(key)
        return { ...mutant, status: kill.status, statusReason: `detected on ${kill.adapter} (${kill.date}); not on ${run.adapter}` } as ReportMutant
      }
      const earlier = previous.get(key)
      if (kill !== undefined || earlier === undefined || !DETECTED.has(earlier)) return mutant
      // On the default adapter a detection that no longer holds is lost, unless this run never reached the code.
      if (run.adapter === run.defaultAdapter && mutant.status !== "NoCoverage") return mutant
      restored.push(key)
      const reason = run.adapter === run.defaultAdapter ? `detected before (on another adapter); ${run.adapter} never runs this code` : `detected on ${run.defaultAdapter} before; not on ${run.adapter}`
      return { ...mutant, status: earlier, statusReason: reason } as ReportMutant
    })
    return [file, { ...entry, mutants }]
  }))
  return { report: { ...after, files }, kills, restored }
}
