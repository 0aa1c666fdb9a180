/**
 * The seal of a shard report: its `shard` section carries a SHA-256 over the canonical JSON of the
 * rest of the report, so `merge-reports` refuses a shard file that was edited, truncated or assembled
 * by hand after `run --shard k/n` wrote it (a consistency check, not a signature: anyone can reseal).
 *
 * @example
 * const sealed = sealShardReport(report, { index: 2, count: 4 })
 * shardSealProblem(sealed) // undefined
 */
import type { ConformanceReport } from "../harness/RunResult.ts"
import type { Shard } from "../harness/Shard.ts"
import { canonicalSha256 } from "./canonical.ts"

/** The digest of a shard report: everything but the digest itself. */
export const shardDigest = (report: ConformanceReport): string => {
  const { digest: _digest, ...section } = report.shard ?? { digest: "" }
  return canonicalSha256({ ...report, shard: section })
}

/**
 * `report` (already redacted: the seal covers the bytes written) with its `shard` section: which shard,
 * of how many, of which budget, and the digest.
 */
export const sealShardReport = (report: ConformanceReport, shard: Shard): ConformanceReport => {
  const unsealed: ConformanceReport = { ...report, shard: { index: shard.index, count: shard.count, runs: report.options.runs, digest: "" } }
  return { ...unsealed, shard: { ...unsealed.shard!, digest: shardDigest(unsealed) } }
}

/** Why a shard report's seal does not hold, or `undefined` when it does. */
export const shardSealProblem = (report: ConformanceReport): string | undefined => {
  if (report.shard === undefined) return "it has no shard section (it is not the report of run --shard k/n)"
  return shardDigest(report) === report.shard.digest ? undefined : "its digest does not match its content (the file was edited or corrupted after run --shard wrote it)"
}
