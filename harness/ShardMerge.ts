/**
 * Merging shard reports (`run --shard k/n`, `Shard.ts`) into the report the unsharded run with the
 * same seed and budget writes: byte-identical apart from wall-clock fields (`startedAt`, `finishedAt`,
 * `durationMs`).
 *
 * Per adapter and property, the shards' per-scenario facts are laid out by position again and tallied
 * the way the search does (`FailureSearch.ts`): coverage and situation counts over the scenarios the
 * unsharded run executes (up to its first infrastructure error), each failed requirement's first
 * failing position, the known failures after it and those beyond the bound of counterexamples. A
 * failed requirement's counterexample is the one minimized by the shard owning its first failing
 * position: a shrink depends only on (seed, position, requirement), so it is the unsharded run's.
 * Requirement verdicts and situation coverage are then derived exactly as `Conformance.ts` does.
 *
 * Every inconsistency (another seed, budget, suite or shard count, a missing or duplicate shard, facts
 * that do not add up) is a `ShardMergeError` saying what to do; nothing is merged then.
 */
import { Data } from "effect"
import { situationCoverage } from "./Coverage.ts"
import { interleavingGuarantee } from "./PctBound.ts"
import {
  type AdapterResult,
  type ConformanceReport,
  type Counterexample,
  MAX_COUNTEREXAMPLES_PER_RUN,
  type PropertyRun,
  type PropertyRunBase,
  type RequirementResult
} from "./RunResult.ts"
import { formatShard, type RunSignature, type Shard, shardPosition, shardProblem, shardRunCount } from "./Shard.ts"
import { requirementsByProperty, type SubjectSuite } from "./Suite.ts"
import { countVerdicts, requirementResults } from "./Verdicts.ts"
import { withSortedKeys } from "./CodeUnitOrder.ts"

/** The shard reports cannot be merged; `hint` says what to do. */
export class ShardMergeError extends Data.TaggedError("ShardMergeError")<{ readonly message: string; readonly hint: string }> {}

/** One shard report and where it came from (shown in errors). */
export interface ShardInput {
  readonly source: string
  readonly report: ConformanceReport
}

const fail = (message: string, hint: string): never => {
  throw new ShardMergeError({ message, hint })
}

const REGENERATE = "rerun the shards with the same durable-conformance version, --seed, --runs, --subject and --adapter, and merge their report.json files"

/** Checks that the inputs are the n shards of one run, each exactly once; returns them ordered by shard. */
export const orderShards = (inputs: ReadonlyArray<ShardInput>): ReadonlyArray<ShardInput> => {
  if (inputs.length === 0) fail("merge-reports needs the shard reports", "pass each shard's report.json: merge-reports --out DIR shard-1/report.json shard-2/report.json ...")
  const [first] = inputs
  for (const input of inputs) {
    const shard = input.report.shard
    if (shard === undefined) fail(`${input.source} is not a shard report (it has no shard section)`, "pass the report.json written by run --shard k/n")
    const problem = shardProblem(shard!)
    if (problem !== undefined) fail(`${input.source}: ${problem}`, REGENERATE)
    if (input.report.kind !== "run") fail(`${input.source} is a ${input.report.kind} report, not a run's`, "merge only reports of run --shard k/n")
    const same = (what: string, a: unknown, b: unknown) => {
      if (JSON.stringify(a) !== JSON.stringify(b)) fail(`${input.source} and ${first!.source} differ in ${what} (${JSON.stringify(b)} vs ${JSON.stringify(a)})`, REGENERATE)
    }
    same("the suite", first!.report.suite, input.report.suite)
    same("the harness version", first!.report.harnessVersion, input.report.harnessVersion)
    same("the options (subjects, adapters, runs, seed)", first!.report.options, input.report.options)
    same("the shard count", first!.report.shard!.count, shard!.count)
    same("the budget split", first!.report.shard!.runs, shard!.runs)
    if (shard!.runs !== input.report.options.runs) fail(`${input.source}: its shard section splits ${shard!.runs} runs but its options say ${input.report.options.runs}`, "the file was edited; rerun the shard")
  }
  const count = first!.report.shard!.count
  const bySlot = new Map<number, ShardInput>()
  for (const input of inputs) {
    const index = input.report.shard!.index
    const taken = bySlot.get(index)
    if (taken !== undefined) fail(`shard ${index}/${count} is given twice (${taken.source} and ${input.source})`, "pass each shard's report.json once")
    bySlot.set(index, input)
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !bySlot.has(index))
  if (missing.length > 0) fail(`shard${missing.length === 1 ? "" : "s"} ${missing.map((index) => `${index}/${count}`).join(", ")} ${missing.length === 1 ? "is" : "are"} missing`, `pass all ${count} shard reports; run the missing ones with run --shard k/${count}`)
  return Array.from({ length: count }, (_, i) => bySlot.get(i + 1)!)
}

/** One shard's executed scenarios, with positions, checked against its property run. */
const expandFacts = (source: string, shard: Shard, run: PropertyRun): ReadonlyArray<{ readonly position: number; readonly signature: RunSignature }> => {
  const facts = run.shardFacts!
  const out: Array<{ position: number; signature: RunSignature }> = []
  for (const [signatureIndex, repeat] of facts.runs) {
    const signature = facts.signatures[signatureIndex]
    if (signature === undefined || repeat < 1 || out.length + repeat > run.runsRequested) fail(`${source}: the shard facts of ${run.propertyId} on ${run.adapter} are corrupt`, "rerun this shard")
    for (let i = 0; i < repeat; i++) out.push({ position: shardPosition(shard, out.length), signature: signature! })
  }
  const executed = out.length + (facts.errorAt === undefined ? 0 : 1)
  const errorPlaced = facts.errorAt === undefined || facts.errorAt === shardPosition(shard, out.length)
  if (executed !== run.runsExecuted || !errorPlaced) fail(`${source}: the shard facts of ${run.propertyId} on ${run.adapter} do not match its ${run.runsExecuted} executed scenarios`, "the file was edited or truncated; rerun this shard")
  return out
}

const increment = (counts: Map<string, number>, key: string): void => void counts.set(key, (counts.get(key) ?? 0) + 1)

const sortedRecord = (counts: ReadonlyMap<string, number>): Readonly<Record<string, number>> => withSortedKeys(Object.fromEntries(counts))

/** The tallies of `FailureSearch.ts`'s `record`, over signatures in position order. */
const tally = (runs: ReadonlyArray<{ readonly position: number; readonly signature: RunSignature }>) => {
  const covered = new Map<string, number>()
  const situations = new Map<string, number>()
  const firstFailures: Array<{ readonly requirementId: string; readonly position: number }> = []
  const knownFailures = new Map<string, number>()
  const beyondBound = new Map<string, number>()
  for (const { position, signature } of runs) {
    for (const id of signature.covered) increment(covered, id)
    for (const situation of signature.situations) increment(situations, situation)
    const requirementId = signature.divergence
    if (requirementId === undefined) continue
    if (firstFailures.some((failure) => failure.requirementId === requirementId)) increment(knownFailures, requirementId)
    else if (firstFailures.length < MAX_COUNTEREXAMPLES_PER_RUN) firstFailures.push({ requirementId, position })
    else increment(beyondBound, requirementId)
  }
  return { covered, situations, firstFailures, knownFailures, beyondBound }
}

const VERDICT_FIELDS = ["counterexamples", "knownFailures", "failuresBeyondBound", "error", "missingCapabilities", "situations", "shardFacts"] as const

/** A part's fields common to every verdict (and any field a later version adds), without the shard facts. */
const commonFields = (run: PropertyRun, runs: number, durationMs: number): PropertyRunBase => {
  const copy: Record<string, unknown> = { ...run, runsRequested: runs, durationMs }
  for (const field of VERDICT_FIELDS) delete copy[field]
  delete copy["verdict"]
  return copy as unknown as PropertyRunBase
}

/** The counterexample the owning shard minimized for a first failure; refuses one that does not add up. */
const counterexampleAt = (shards: ReadonlyArray<ShardInput>, parts: ReadonlyArray<PropertyRun>, requirementId: string, position: number): Counterexample => {
  const slot = position % parts.length
  const owner = parts[slot]!
  const found = owner.verdict === "fail" ? owner.counterexamples.find((cx) => cx.divergence.requirementId === requirementId) : undefined
  if (found === undefined || found.runsToDetect !== position + 1) {
    return fail(`${shards[slot]!.source}: no counterexample of ${requirementId} at scenario ${position + 1} of ${owner.propertyId} on ${owner.adapter}, though its facts say it failed there`, "the file was edited or comes from another run; rerun this shard")
  }
  return found
}

/** Merges one property's runs on one adapter, one per shard in shard order. */
const mergePropertyRun = (shards: ReadonlyArray<ShardInput>, parts: ReadonlyArray<PropertyRun>, runs: number): PropertyRun => {
  const [first] = parts
  const durationMs = parts.reduce((sum, part) => sum + part.durationMs, 0)
  const common = (runsExecuted: number, covered: Readonly<Record<string, number>>, situations: ReadonlyMap<string, number>): PropertyRunBase => ({
    ...commonFields(first!, runs, durationMs),
    runsExecuted,
    covered,
    ...(situations.size === 0 ? {} : { situations: sortedRecord(situations) }),
    // The PCT bound counts runs per depth: recomputed from the merged situations, not copied from a shard.
    ...(first!.interleaving === undefined ? {} : { interleaving: interleavingGuarantee(first!.interleaving, Object.fromEntries(situations)) })
  })
  const notApplicable = parts.find((part) => part.verdict === "not-applicable")
  if (notApplicable !== undefined) return { ...commonFields(notApplicable, runs, 0), verdict: "not-applicable", missingCapabilities: notApplicable.missingCapabilities }
  // An error outside any scenario (the adapter did not start, hung earlier, a host broke, a shrink was
  // non-deterministic): there is nothing to lay out; the merged run is that error.
  const whole = parts.find((part) => part.verdict === "error" && part.shardFacts?.errorAt === undefined)
  const expanded = parts.map((part, slot) => {
    if (part.shardFacts === undefined) return []
    return expandFacts(shards[slot]!.source, shards[slot]!.report.shard!, part)
  })
  const errorAts = parts.flatMap((part) => (part.shardFacts?.errorAt === undefined ? [] : [part.shardFacts.errorAt]))
  const cut = errorAts.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...errorAts)
  const ordered = expanded.flat().filter((run) => run.position < cut).sort((a, b) => a.position - b.position)
  const counts = tally(ordered)
  const executed = ordered.length + (Number.isFinite(cut) ? 1 : 0)
  const base = common(executed, sortedRecord(counts.covered), counts.situations)
  if (whole !== undefined && whole.verdict === "error") return { ...base, verdict: "error", error: whole.error }
  if (Number.isFinite(cut)) {
    const broken = parts[cut % parts.length]!
    if (broken.verdict !== "error") return fail(`${shards[cut % parts.length]!.source}: ${broken.propertyId} on ${broken.adapter} records an adapter error but its verdict is ${broken.verdict}`, "the file was edited; rerun this shard")
    return { ...base, verdict: "error", error: broken.error }
  }
  const [firstFailure, ...more] = counts.firstFailures
  if (firstFailure === undefined) return { ...base, verdict: executed < runs ? "unknown" : "pass" }
  const counterexamples = [firstFailure, ...more].map((failure) => counterexampleAt(shards, parts, failure.requirementId, failure.position))
  return {
    ...base,
    verdict: "fail",
    counterexamples: [counterexamples[0]!, ...counterexamples.slice(1)],
    knownFailures: sortedRecord(new Map(counterexamples.map((cx) => [cx.divergence.requirementId, counts.knownFailures.get(cx.divergence.requirementId) ?? 0]))),
    ...(counts.beyondBound.size === 0 ? {} : { failuresBeyondBound: sortedRecord(counts.beyondBound) })
  }
}

/** Requirement verdicts as `Conformance.ts` derives them, keeping an `error` a shard recorded (an adapter that could not start or close). */
const mergedRequirements = (suites: ReadonlyArray<SubjectSuite>, adapters: ReadonlyArray<AdapterResult>, runs: ReadonlyArray<PropertyRun>): ReadonlyArray<RequirementResult> => {
  const [first] = adapters
  const derived = requirementResults(suites.flatMap((suite) => suite.requirements), runs, requirementsByProperty(suites), first!.fingerprint.capabilities)
  return derived.map((requirement) => {
    if (requirement.verdict === "fail" || requirement.verdict === "error") return requirement
    const recorded = adapters.map((adapter) => adapter.requirements.find((r) => r.requirementId === requirement.requirementId)).find((r) => r?.verdict === "error")
    return recorded ?? requirement
  })
}

/** Merges one adapter's results, one per shard in shard order. */
const mergeAdapter = (shards: ReadonlyArray<ShardInput>, suites: ReadonlyArray<SubjectSuite>, adapters: ReadonlyArray<AdapterResult>, runs: number): AdapterResult => {
  const [first] = adapters
  adapters.forEach((adapter, slot) => {
    if (JSON.stringify(adapter.fingerprint) !== JSON.stringify(first!.fingerprint)) {
      fail(`${shards[slot]!.source} ran ${adapter.fingerprint.name} on another engine (${adapter.fingerprint.engine} ${adapter.fingerprint.engineVersion}) than ${shards[0]!.source} (${first!.fingerprint.engine} ${first!.fingerprint.engineVersion})`, "run every shard against the same adapter and engine versions")
    }
    const ids = (result: AdapterResult) => JSON.stringify(result.properties.map((run) => [run.propertyId, run.seed]))
    if (ids(adapter) !== ids(first!)) fail(`${shards[slot]!.source} ran other properties or seeds on ${adapter.fingerprint.name} than ${shards[0]!.source}`, REGENERATE)
    adapter.properties.forEach((run) => {
      const share = shardRunCount(shards[slot]!.report.shard!, runs)
      if (run.verdict !== "not-applicable" && run.runsRequested !== share) fail(`${shards[slot]!.source}: ${run.propertyId} on ${run.adapter} asked for ${run.runsRequested} scenarios, but shard ${formatShard(shards[slot]!.report.shard!)} of ${runs} runs has ${share}`, REGENERATE)
    })
  })
  const properties = first!.properties.map((_, index) => mergePropertyRun(shards, adapters.map((adapter) => adapter.properties[index]!), runs))
  const coverage = situationCoverage(suites, properties, first!.fingerprint.capabilities)
  const merged: Record<string, unknown> = { ...first!, fingerprint: first!.fingerprint, properties, requirements: mergedRequirements(suites, adapters, properties) }
  delete merged["coverage"]
  return { ...(merged as unknown as AdapterResult), ...(coverage.length === 0 ? {} : { coverage }) }
}

/**
 * The report the unsharded run writes, from its n shard reports (any order) and the suites of its
 * subjects. Throws `ShardMergeError` when the reports are not the n shards of one run.
 *
 * @example
 * const merged = mergeShardReports(inputs, suitesOf(inputs[0].report.options.subjects))
 */
export const mergeShardReports = (inputs: ReadonlyArray<ShardInput>, suites: ReadonlyArray<SubjectSuite>): ConformanceReport => {
  const shards = orderShards(inputs)
  const [first] = shards
  const runs = first!.report.options.runs
  const adapterCount = first!.report.adapters.length
  for (const shard of shards) {
    const names = (report: ConformanceReport) => JSON.stringify(report.adapters.map((adapter) => adapter.fingerprint.name))
    if (names(shard.report) !== names(first!.report)) fail(`${shard.source} has results for other adapters than ${first!.source}`, REGENERATE)
  }
  const adapters = Array.from({ length: adapterCount }, (_, index) => mergeAdapter(shards, suites, shards.map((shard) => shard.report.adapters[index]!), runs))
  const times = shards.map((shard) => shard.report)
  const merged: Record<string, unknown> = {
    ...first!.report,
    startedAt: times.map((report) => report.startedAt).sort()[0]!,
    finishedAt: times.map((report) => report.finishedAt).sort().at(-1)!,
    adapters,
    summary: countVerdicts(adapters.flatMap((adapter) => adapter.requirements.map((requirement) => requirement.verdict)))
  }
  delete merged["shard"]
  return merged as unknown as ConformanceReport
}
