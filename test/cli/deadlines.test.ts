/**
 * In-process deadlines (the path the built-in adapters take): every hang that waits, interruptible or
 * not, in `make`, `open`, a scenario's close or the adapter's close, ends as verdict `error` naming the
 * adapter and the phase, and the run goes on to the next adapter; after one hang the adapter's other
 * properties end at once; a `make` that throws or fails is an adapter error with a hint for its author.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type AdapterDefinition, AdapterError, type StorageAdapter } from "../../adapters/contract.ts"
import { makeSqliteAdapter } from "../../adapters/sqlite/index.ts"
import { type ConformanceEvent, runConformance } from "../../harness/Conformance.ts"
import type { AdapterResult, ConformanceReport } from "../../harness/RunResult.ts"
import { adapterSuite } from "../../properties/registry.ts"

const RUN_TIMEOUT_MS = 150

type Kind = "interruptible" | "uninterruptible"

const hang = (kind: Kind): Effect.Effect<never> => (kind === "interruptible" ? Effect.never : Effect.uninterruptible(Effect.never))

/** The sqlite adapter under `name`, hanging in `phase` the `kind` way. */
const hangingDefinition = (phase: "make" | "open" | "close" | "release", kind: Kind): AdapterDefinition => {
  const name = `hang-${phase}-${kind}`
  const base = makeSqliteAdapter()
  const adapter: StorageAdapter = {
    ...base,
    name,
    fingerprint: Effect.map(base.fingerprint, (fingerprint) => ({ ...fingerprint, name })),
    open: (options) =>
      phase === "open" ? hang(kind) : phase === "close" ? Effect.tap(base.open(options), () => Effect.addFinalizer(() => hang(kind))) : base.open(options)
  }
  const make = phase === "make" ? hang(kind) : phase === "release" ? Effect.as(Effect.addFinalizer(() => hang(kind)), adapter) : Effect.succeed(adapter)
  return { name, description: `hangs in ${phase}`, make }
}

const healthy: AdapterDefinition = { name: "sqlite", description: "sqlite", make: Effect.succeed(makeSqliteAdapter()) }

const conformance = (adapters: ReadonlyArray<AdapterDefinition>, events: Array<ConformanceEvent> = []): Promise<ConformanceReport> =>
  Effect.runPromise(runConformance({
    kind: "run",
    adapters,
    suites: [adapterSuite],
    runs: 2,
    seed: 1,
    suiteHash: "unhashed",
    runTimeoutMs: RUN_TIMEOUT_MS,
    onEvent: (event) => void events.push(event)
  }))

const errorMessages = (result: AdapterResult): ReadonlyArray<string> =>
  result.properties.flatMap((run) => (run.verdict === "error" ? [run.error.message] : []))

const PHASE_WORDS = { make: "hung in make", open: "hung in open", close: "hung in close", release: "hung in close" } as const

describe("in-process deadlines", () => {
  for (const phase of ["make", "open", "close", "release"] as const) {
    for (const kind of ["interruptible", "uninterruptible"] as const) {
      it(`ends a${kind === "interruptible" ? "n" : ""} ${kind} hang in ${phase} as error naming the phase, and runs the next adapter`, async () => {
        const startedMs = Date.now()
        const report = await conformance([hangingDefinition(phase, kind), healthy])
        const [hung, next] = report.adapters
        expect(hung!.fingerprint.name).toBe(`hang-${phase}-${kind}`)
        expect(hung!.requirements.filter((requirement) => requirement.verdict !== "not-applicable").every((requirement) => requirement.verdict === "error")).toBe(true)
        expect(hung!.requirements.some((requirement) => requirement.reason.includes(`adapter hang-${phase}-${kind} ${PHASE_WORDS[phase]}`))).toBe(true)
        expect(next!.requirements.some((requirement) => requirement.verdict === "pass")).toBe(true)
        expect(report.summary.error).toBeGreaterThan(0)
        // One deadline (the lifecycle one for make and release, six run timeouts), not one per property.
        expect(Date.now() - startedMs).toBeLessThan(15_000)
      })
    }
  }

  it("ends the remaining properties at once after a hang in open, saying so", async () => {
    const startedMs = Date.now()
    const report = await conformance([hangingDefinition("open", "interruptible")])
    const messages = errorMessages(report.adapters[0]!)
    expect(messages[0]).toContain("hung in open")
    expect(messages.length).toBeGreaterThan(5)
    for (const message of messages.slice(1)) expect(message).toMatch(/^not run: adapter hang-open-interruptible already hung in open during adapter\/transactions/)
    expect(Date.now() - startedMs).toBeLessThan(RUN_TIMEOUT_MS * 10)
  })

  it("bounds a hosted property run whose host never answers, and ends the adapter's other properties at once", async () => {
    const base = makeSqliteAdapter()
    const hosted: StorageAdapter = { ...base, name: "silent-host", host: { runProperty: () => Effect.never } }
    const startedMs = Date.now()
    const report = await conformance([{ name: "silent-host", description: "never answers", make: Effect.succeed(hosted) }])
    const messages = errorMessages(report.adapters[0]!)
    // Backstop: 2 x 2 runs x 150 ms + 4 x 150 ms = 1.2 s, once.
    expect(messages[0]).toContain("adapter silent-host hung in a scenario (its statements): no result within 1200 ms")
    for (const message of messages.slice(1)) expect(message).toMatch(/^not run: adapter silent-host already hung/)
    expect(Date.now() - startedMs).toBeLessThan(5_000)
  })

  it("reports a make that throws as an adapter error for its author", async () => {
    const throwing: AdapterDefinition = { name: "thrower", description: "throws", make: Effect.sync(() => { throw new TypeError("no settings") }) }
    const events: Array<ConformanceEvent> = []
    const report = await conformance([throwing, healthy], events)
    const error = events.find((event) => event.type === "adapter-error")
    expect(error).toMatchObject({ adapter: "thrower", phase: "make" })
    if (error?.type !== "adapter-error") throw new Error("no adapter-error event")
    expect(error.error.message).toBe("adapter thrower: its make threw TypeError: no settings")
    expect(error.error.hint).toContain("fail with an AdapterError")
    expect(report.adapters.map((adapter) => adapter.fingerprint.name)).toEqual(["thrower", "sqlite"])
  })

  it("keeps an AdapterError's own message and hint, and the other adapters' results", async () => {
    const failing: AdapterDefinition = { name: "down", description: "down", make: Effect.fail(new AdapterError({ adapter: "down", message: "cannot reach the server", hint: "start it" })) }
    const events: Array<ConformanceEvent> = []
    const report = await conformance([failing, healthy], events)
    expect(events.find((event) => event.type === "adapter-error")).toMatchObject({ error: { message: "adapter down could not start: cannot reach the server", hint: "start it" } })
    expect(report.adapters[1]!.requirements.filter((requirement) => requirement.verdict === "pass").length).toBeGreaterThan(5)
  })
})
