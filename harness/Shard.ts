/**
 * Shards of a property run: `run --shard k/n` executes only the generated scenarios whose position
 * `i` (from 0, fast-check's path) has `i mod n == k - 1`, and answers the others as holding without
 * executing them. fast-check derives scenario `i` from (seed, i) alone, so every shard generates the
 * same scenarios as the unsharded run and executes a disjoint part of them; together the n shards
 * execute exactly the unsharded run's scenarios.
 *
 * A shard records, per property run, the facts `ShardMerge.ts` needs to rebuild the unsharded run:
 * for each executed scenario what it reached and the requirement it diverged on (run-length encoded
 * over a table of distinct signatures, so a deep soak stays small), and the position of an
 * infrastructure error. Counterexamples need no extra facts: the shrink of a failure depends only on
 * (seed, position, requirement), so the shard owning a requirement's earliest failing position
 * minimized exactly the counterexample the unsharded run reports.
 *
 * @example
 * ```ts
 * const shard = parseShard("2/4") // { index: 2, count: 4 }
 * inShard(shard, 5)               // true: 5 mod 4 == 1
 * shardRunCount(shard, 10)        // 3 (positions 1, 5, 9)
 * ```
 */
import type { ExecutionTrace } from "./Property.ts"

/** Most shards one run may be split into. */
export const MAX_SHARDS = 1_000

/** One shard of a run: `index` from 1 to `count`. */
export interface Shard {
  readonly index: number
  readonly count: number
}

/** Why a `--shard` value is wrong, in words that say what to type instead; `undefined` when valid. */
export const shardProblem = (shard: Shard): string | undefined => {
  if (!Number.isSafeInteger(shard.count) || shard.count < 1 || shard.count > MAX_SHARDS) return `the shard count must be an integer from 1 to ${MAX_SHARDS}, got ${shard.count}`
  if (!Number.isSafeInteger(shard.index) || shard.index < 1 || shard.index > shard.count) return `the shard number must be an integer from 1 to ${shard.count}, got ${shard.index}`
  return undefined
}

/** Parses `k/n` (`3/4`); `undefined` when the text is not of that form or out of range. */
export const parseShard = (text: string): Shard | undefined => {
  const match = /^\s*(\d{1,7})\s*\/\s*(\d{1,7})\s*$/.exec(text)
  if (match === null) return undefined
  const shard = { index: Number(match[1]), count: Number(match[2]) }
  return shardProblem(shard) === undefined ? shard : undefined
}

/** `k/n`. */
export const formatShard = (shard: Shard): string => `${shard.index}/${shard.count}`

/** True when the scenario at `position` (from 0) belongs to `shard`. */
export const inShard = (shard: Shard, position: number): boolean => position % shard.count === shard.index - 1

/** How many of the first `runs` positions belong to `shard`. */
export const shardRunCount = (shard: Shard, runs: number): number =>
  runs < shard.index ? 0 : Math.floor((runs - shard.index) / shard.count) + 1

/** The global position of the shard's `ordinal`-th executed scenario (from 0). */
export const shardPosition = (shard: Shard, ordinal: number): number => ordinal * shard.count + shard.index - 1

/** What one executed scenario contributed: the requirements and situations it reached, and its divergence. */
export interface RunSignature {
  /** Requirement IDs reached, sorted (the divergent one included). */
  readonly covered: ReadonlyArray<string>
  /** Situations reached, sorted. */
  readonly situations: ReadonlyArray<string>
  /** The requirement the scenario diverged on, when it did. */
  readonly divergence?: string
}

/** The per-scenario facts of one shard's property run. */
export interface ShardRunFacts {
  /** Distinct signatures, in order of first appearance. */
  readonly signatures: ReadonlyArray<RunSignature>
  /**
   * Run-length encoded signature of each executed scenario, in position order: pairs
   * `[signatureIndex, repeat]`. The n-th scenario listed is at `shardPosition(shard, n)`.
   */
  readonly runs: ReadonlyArray<readonly [number, number]>
  /** Position of the scenario whose execution broke the adapter (the search stopped there). */
  readonly errorAt?: number
}

/** Collects `ShardRunFacts` as the search executes scenarios, in position order. */
export interface ShardFactsRecorder {
  /** Records an executed scenario: its trace, or `undefined` when it broke the adapter. */
  readonly record: (position: number, trace: ExecutionTrace | undefined) => void
  readonly facts: () => ShardRunFacts
}

/** Most distinct signatures kept: a property whose scenarios differ more than this is not sharded sensibly. */
export const MAX_SIGNATURES = 100_000

/** A fresh recorder. */
export const shardFactsRecorder = (): ShardFactsRecorder => {
  const signatures: Array<RunSignature> = []
  const byKey = new Map<string, number>()
  const runs: Array<[number, number]> = []
  let errorAt: number | undefined
  const signatureIndex = (trace: ExecutionTrace): number => {
    const divergence = trace.divergence?.requirementId
    const covered = [...new Set([...trace.covered, ...(divergence === undefined ? [] : [divergence])])].sort()
    const signature: RunSignature = { covered, situations: [...new Set(trace.situations ?? [])].sort(), ...(divergence === undefined ? {} : { divergence }) }
    const key = JSON.stringify(signature)
    const known = byKey.get(key)
    if (known !== undefined) return known
    if (signatures.length >= MAX_SIGNATURES) throw new Error(`shard facts: more than ${MAX_SIGNATURES} distinct scenario signatures`)
    signatures.push(signature)
    byKey.set(key, signatures.length - 1)
    return signatures.length - 1
  }
  return {
    record: (position, trace) => {
      if (trace === undefined) {
        errorAt ??= position
        return
      }
      const index = signatureIndex(trace)
      const last = runs[runs.length - 1]
      if (last !== undefined && last[0] === index) last[1]++
      else runs.push([index, 1])
    },
    facts: () => ({ signatures, runs: runs.map(([index, repeat]) => [index, repeat] as const), ...(errorAt === undefined ? {} : { errorAt }) })
  }
}

/** The `shard` section of a shard's report: which shard, of how many, of which budget, and its digest. */
export interface ShardSection {
  readonly index: number
  readonly count: number
  /** The whole budget the shards split (`--runs`); each property run's `runsRequested` is its share. */
  readonly runs: number
  /** SHA-256 of the canonical JSON of the report without this digest (`reports/shardSection.ts`). */
  readonly digest: string
}
