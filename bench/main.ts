/**
 * `npm run bench`: every number is measured in this one run, so ratios compare like with like.
 *
 * 1. Per adapter: raw driver statements/s vs the adapter's effect/sql client on the same workload
 *    (upsert + select by key), and the cost of a fresh isolated database.
 * 2. Per adapter, the alarms subject: model-checked commands/s (implementation + model + comparison
 *    of every observable) vs the same commands through the implementation alone, and simulated time
 *    per wall second.
 * 3. Per known-bad alarms implementation and adapter: runs and wall time to detect it.
 * 4. Per adapter, the storage faults `alarms/faults` really injects per scenario, by kind.
 * 9. Mutants killed per minute of gate time (known-bads measured here; Stryker's recorded by `npm run mutation`).
 * 5-8. The content, clocks, cron and pool subjects (`bench/subjects.ts`): checked vs implementation-only
 *    throughput, time to detect each known-bad, content's sweep cost by candidates on postgres, cron's
 *    model `next` vs croner, the bounded pool vs the driver's pool.
 *
 * Options: `--quick` (smaller workloads), `--adapters sqlite,pglite,postgres`, `--skip-known-bad`.
 */
import { Effect } from "effect"
import { PGlite } from "@electric-sql/pglite"
import type { StorageAdapter } from "../adapters/contract.ts"
import { makeSqliteAdapter } from "../adapters/sqlite/index.ts"
import { makePgliteAdapterFromSession } from "../adapters/pglite/PgliteAdapter.ts"
import { makePgliteSession } from "../adapters/pglite/PgliteClient.ts"
import { makePostgresAdapter } from "../adapters/postgres/index.ts"
import { acquirePostgresServer } from "../adapters/postgres/server.ts"
import { benchAdapters, rawPgliteWorkload, rawSqliteWorkload, type AdapterBenchResult, type BenchTarget, type RawWorkload } from "./adapters.ts"
import { rawPostgresWorkload } from "./postgres.ts"
import { phaseSplitLines } from "./phaseSplit.ts"
import { benchAlarmsThroughput, type ThroughputResult } from "./throughput.ts"
import { detectKnownBad, type DetectionResult } from "./knownBad.ts"
import { benchFaultCoverage, type FaultCoverage } from "./faults.ts"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { makeDoSqliteAdapterDefinition } from "../hosts/do-sqlite/host.ts"
import { benchSubjects } from "./subjects.ts"

/** The known-bad suites, bundled into the do-sqlite worker so they run inside the Durable Object. */
const KNOWN_BAD_SUITES_MODULE = fileURLToPath(new URL("../test/workerd/knownBadSuites.ts", import.meta.url))

const argv = process.argv.slice(2)
const quick = argv.includes("--quick")
const adapterArg = argv.find((arg, index) => argv[index - 1] === "--adapters")
const chosen = new Set((adapterArg ?? "sqlite,pglite,postgres,do-sqlite").split(","))
const skipKnownBad = argv.includes("--skip-known-bad")
const pairs = quick ? 500 : 2_000

const fmt = (value: number | null, digits = 0) => (value === null ? "n/a" : value.toLocaleString("en-US", { maximumFractionDigits: digits }))
const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? "n/a" : `${(a / b).toFixed(2)}x`)

const printAdapters = (results: ReadonlyArray<AdapterBenchResult>) => {
  console.log("\n1. Storage: raw driver vs effect/sql client (statements/s, upsert + select by key), fresh database cost")
  console.log("   goal: sqlite client/raw at least 0.18x; 'no spans' is the client with Effect's tracer disabled (runs keep it on)")
  console.log("adapter    raw stmts/s   client stmts/s   client/raw   no spans/raw   fresh db ms")
  for (const r of results) {
    console.log(`${r.adapter.padEnd(10)} ${fmt(r.rawStatementsPerSecond).padStart(11)}   ${fmt(r.clientStatementsPerSecond).padStart(14)}   ${ratio(r.clientStatementsPerSecond, r.rawStatementsPerSecond).padStart(10)}   ${ratio(r.clientWithoutSpansStatementsPerSecond, r.rawStatementsPerSecond).padStart(12)}   ${fmt(r.openMeanMs, 2).padStart(11)}`)
  }
}

const printThroughput = (results: ReadonlyArray<ThroughputResult>) => {
  console.log("\n2. alarms: model-checked commands/s vs implementation alone, simulated time per wall second")
  console.log("   goal: checked/impl at least 0.5x (the model, the comparison and reading every observable cost the rest)")
  console.log("adapter    scenarios  commands   checked cmd/s   impl-only cmd/s   checked/impl   simulated s per wall s")
  for (const r of results) {
    console.log(`${r.adapter.padEnd(10)} ${String(r.scenarios).padStart(9)}  ${String(r.commands).padStart(8)}   ${fmt(r.checkedCommandsPerSecond).padStart(13)}   ${fmt(r.implementationCommandsPerSecond).padStart(15)}   ${ratio(r.checkedCommandsPerSecond, r.implementationCommandsPerSecond).padStart(12)}   ${fmt(r.simulatedSecondsPerWallSecond).padStart(22)}`)
  }
  for (const line of phaseSplitLines(results)) console.log(line)
}

const printDetection = (results: ReadonlyArray<DetectionResult>) => {
  console.log("\n3. Time to detect each known-bad alarms implementation (default budget and seed)")
  console.log("known-bad                          adapter    caught  requirement  runs  steps  wall ms  property")
  for (const r of results) {
    console.log(`${r.knownBad.padEnd(34)} ${r.adapter.padEnd(10)} ${(r.caught ? "yes" : "NO").padEnd(6)}  ${(r.requirementId ?? "-").padEnd(11)}  ${String(r.runsToDetect ?? "-").padStart(4)}  ${String(r.counterexampleSteps ?? "-").padStart(5)}  ${String(r.wallMs).padStart(7)}  ${r.propertyId ?? "-"}`)
  }
}

const printFaults = (results: ReadonlyArray<FaultCoverage>) => {
  console.log("\n4. Storage faults per alarms/faults scenario (gate seed): faults that reached their transaction, by kind")
  console.log("adapter    scenarios  steps  crash inside  crash after commit  lost reply  alarm write fails  refused commit  failed statement  failed read  not reached  per scenario")
  for (const r of results) {
    const struck = r.crashesInside + r.crashesAfterCommit + r.lostReplies + r.platformAlarmFailures + r.refusedCommits + r.failedStatements + r.failedReads
    console.log(`${r.adapter.padEnd(10)} ${String(r.scenarios).padStart(9)}  ${String(r.steps).padStart(5)}  ${String(r.crashesInside).padStart(12)}  ${String(r.crashesAfterCommit).padStart(18)}  ${String(r.lostReplies).padStart(10)}  ${String(r.platformAlarmFailures).padStart(17)}  ${String(r.refusedCommits).padStart(14)}  ${String(r.failedStatements).padStart(16)}  ${String(r.failedReads).padStart(11)}  ${String(r.notReached).padStart(11)}  ${(struck / Math.max(1, r.scenarios)).toFixed(2).padStart(12)}`)
  }
}

/**
 * Mutants killed per minute of gate time: the hand-seeded ones (the alarms known-bads of section 3,
 * measured in this run) and Stryker's, as the last `npm run mutation` of each subject recorded them
 * (`mutation/<subject>.rate.json`, with its date: a mutation run takes hours, so the bench does not repeat it).
 */
const printKillRates = (detections: ReadonlyArray<DetectionResult>) => {
  console.log("\n9. Mutants killed per minute of gate time")
  const caught = detections.filter((detection) => detection.caught).length
  const minutes = detections.reduce((sum, detection) => sum + detection.wallMs, 0) / 60_000
  console.log(`known-bad alarms (this run):  ${caught} of ${detections.length} caught in ${minutes.toFixed(2)} min of searching: ${minutes === 0 ? "n/a" : (caught / minutes).toFixed(1)} per minute`)
  const folder = fileURLToPath(new URL("../mutation/", import.meta.url))
  for (const file of existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(".rate.json")).sort() : []) {
    const rate = JSON.parse(readFileSync(join(folder, file), "utf8")) as { date: string; detectedThisRun: number; wallMinutes: number; killedPerMinute: number }
    console.log(`Stryker, ${file.replace(".rate.json", "").padEnd(8)} (recorded ${rate.date}): ${rate.detectedThisRun} killed in ${rate.wallMinutes} min: ${rate.killedPerMinute} per minute`)
  }
}

const main = Effect.scoped(Effect.gen(function*() {
  const started = performance.now()
  const adapters: Array<StorageAdapter> = []
  let postgres: StorageAdapter | undefined
  const targets: Array<BenchTarget> = []
  if (chosen.has("sqlite")) {
    const adapter = makeSqliteAdapter()
    adapters.push(adapter)
    targets.push({ adapter, raw: rawSqliteWorkload })
  }
  if (chosen.has("pglite")) {
    const pg = yield* Effect.acquireRelease(Effect.promise(() => PGlite.create()), (instance) => Effect.promise(() => instance.close()))
    const adapter = makePgliteAdapterFromSession(makePgliteSession(pg))
    adapters.push(adapter)
    targets.push({ adapter, raw: rawPgliteWorkload(pg) })
  }
  if (chosen.has("postgres")) {
    const server = yield* acquirePostgresServer()
    const adapter = yield* makePostgresAdapter({ databaseUrl: server.url }).make
    const raw: RawWorkload = async (count) => (await rawPostgresWorkload(server.url, count)).elapsedMs
    postgres = adapter
    adapters.push(adapter)
    targets.push({ adapter, raw })
  }
  printAdapters(yield* Effect.promise(() => benchAdapters(targets, { pairs, opens: quick ? 5 : 20 })))
  const throughput: Array<ThroughputResult> = []
  for (const adapter of adapters) throughput.push(yield* benchAlarmsThroughput(adapter, { scenarios: quick ? 10 : 40 }))
  printThroughput(throughput)
  const faults: Array<FaultCoverage> = []
  for (const adapter of adapters) faults.push(yield* benchFaultCoverage(adapter, { scenarios: quick ? 20 : 60 }))
  printFaults(faults)
  if (chosen.has("do-sqlite")) {
    console.log("\n(do-sqlite: its SQL runs inside workerd, so sections 1 and 2 have no raw-driver or in-process numbers for it; section 3 runs it through the Miniflare host)")
  }
  const detections: Array<DetectionResult> = []
  if (!skipKnownBad) {
    for (const adapter of adapters) detections.push(...(yield* detectKnownBad(adapter)))
    if (chosen.has("do-sqlite")) {
      const hosted = yield* makeDoSqliteAdapterDefinition({ extraSuitesModule: KNOWN_BAD_SUITES_MODULE }).make
      detections.push(...(yield* detectKnownBad(hosted)))
    }
    printDetection(detections)
  }
  yield* benchSubjects({ adapters, postgres, quick, skipKnownBad })
  if (!skipKnownBad) printKillRates(detections)
  console.log(`\nbench finished in ${((performance.now() - started) / 1000).toFixed(1)} s (${process.version}, ${process.platform}/${process.arch})`)
}))

Effect.runPromise(main).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
