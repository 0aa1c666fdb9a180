import { describe, expect, it } from "vitest"
import type { AdapterCapabilities, AdapterFingerprint } from "../../adapters/contract.ts"
import type { Divergence, ExecutionTrace, StepRecord } from "../../harness/Property.ts"
import { type AdapterResult, type ConformanceReport, type Counterexample, MAX_COUNTEREXAMPLES_PER_RUN, type PropertyRun, type RequirementResult, type VerdictCounts } from "../../harness/RunResult.ts"
import { readReport, renderJson, ReportReadError, reportSchemaV2, validateReport } from "../../reports/json.ts"
import { counterexample, makeReport, PLANTED_PASSWORD, REPLAY_TOKEN, withAlsoExpected } from "./fixtures.ts"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type KeysOfUnion<T> = T extends unknown ? keyof T : never
const clone = <T>(value: T): Mutable<T> => JSON.parse(JSON.stringify(value)) as Mutable<T>

interface SchemaObject {
  readonly properties: Readonly<Record<string, unknown>>
  readonly required?: ReadonlyArray<string>
}
const schema = reportSchemaV2 as SchemaObject & { readonly $defs: Readonly<Record<string, SchemaObject>> }
const def = (name: string): SchemaObject => {
  const found = schema.$defs[name]
  if (found === undefined) throw new Error(`no $defs.${name}`)
  return found
}

describe("report JSON schema", () => {
  it("accepts the realistic fixture", () => {
    const result = validateReport(JSON.parse(renderJson(makeReport())))
    expect(result.valid ? [] : result.errors).toEqual([])
  })

  it("accepts the values another allowed choice expected, placed after the model's, and refuses an empty list", () => {
    const text = renderJson(withAlsoExpected(makeReport(), [{ handled: 2 }]))
    expect(validateReport(JSON.parse(text)).valid).toBe(true)
    expect(text).toMatch(/"expected": \{[^}]*\},\s*"alsoExpected": \[/)
    expect(validateReport(JSON.parse(renderJson(withAlsoExpected(makeReport(), [])))).valid).toBe(false)
  })

  it("rejects a missing field, an unknown field, a bad verdict and a not-applicable without capabilities", () => {
    const missingSeed = clone(makeReport()) as unknown as { options: Record<string, unknown> }
    delete missingSeed.options["seed"]
    const r1 = validateReport(missingSeed)
    expect(r1.valid).toBe(false)
    if (!r1.valid) expect(r1.errors).toContainEqual({ pointer: "/options", keyword: "required", message: "must have required property 'seed'" })

    const extra = { ...clone(makeReport()), surprise: 1 }
    const r2 = validateReport(extra)
    expect(r2.valid).toBe(false)
    if (!r2.valid) expect(r2.errors[0]?.message).toContain("'surprise'")

    const badVerdict = JSON.parse(JSON.stringify(makeReport()).replace('"verdict":"unknown"', '"verdict":"maybe"'))
    const r3 = validateReport(badVerdict)
    expect(r3.valid).toBe(false)
    if (!r3.valid) expect(r3.errors.some((e) => e.pointer === "/adapters/1/requirements/2/verdict" && e.keyword === "enum")).toBe(true)

    const naWithout = clone(makeReport()) as unknown as { adapters: Array<{ requirements: Array<Record<string, unknown>> }> }
    delete naWithout.adapters[0]!.requirements[3]!["missingCapabilities"]
    expect(validateReport(naWithout).valid).toBe(false)

    expect(validateReport(null).valid).toBe(false)
    expect(validateReport({ ...makeReport(), schemaVersion: 1 }).valid).toBe(false)
  })

  it("keys a property run by its verdict: each verdict carries its own fields and no other's", () => {
    const postgresRuns = (report: Mutable<ConformanceReport>) =>
      (report as unknown as { adapters: Array<{ properties: Array<Record<string, unknown>> }> }).adapters[1]!.properties
    const valid = (mutate: (runs: Array<Record<string, unknown>>) => void): boolean => {
      const report = clone(makeReport())
      mutate(postgresRuns(report))
      return validateReport(report).valid
    }
    expect(valid(() => {})).toBe(true)
    expect(valid((runs) => delete runs[0]!["counterexamples"])).toBe(false)
    expect(valid((runs) => (runs[0]!["counterexamples"] = []))).toBe(false)
    expect(valid((runs) => delete runs[0]!["knownFailures"])).toBe(false)
    expect(valid((runs) => (runs[0]!["counterexample"] = runs[0]!["counterexamples"]))).toBe(false)
    expect(valid((runs) => (runs[0]!["verdict"] = "pass"))).toBe(false)
    expect(valid((runs) => (runs[0]!["failuresBeyondBound"] = { "ALM-009": 2 }))).toBe(true)
    expect(valid((runs) => delete runs[1]!["error"])).toBe(false)
    expect(valid((runs) => (runs[1]!["missingCapabilities"] = ["rowLocks"]))).toBe(false)
    expect(valid((runs) => {
      delete runs[1]!["error"]
      Object.assign(runs[1]!, { verdict: "not-applicable", missingCapabilities: ["rowLocks"] })
    })).toBe(true)
    const counterexamples = (def("propertyRun").properties["counterexamples"] as { readonly maxItems: number }).maxItems
    expect(counterexamples).toBe(MAX_COUNTEREXAMPLES_PER_RUN)
  })

  it("declares exactly the fields of the TypeScript types (checked both ways by tsc and at run time)", () => {
    // `satisfies Record<keyof T, true>` fails to compile when a key is missing or unknown, so these
    // lists track the types; the expectations tie them to the schema.
    const step = { index: true, operation: true, args: true, virtualTimeMs: true, implementation: true, model: true, fault: true, implementationState: true, modelState: true } satisfies Record<keyof StepRecord, true>
    const divergence = { requirementId: true, alsoRequirementIds: true, stepIndex: true, observable: true, rules: true, explanation: true, expected: true, alsoExpected: true, actual: true } satisfies Record<keyof Divergence, true>
    const trace = { steps: true, divergence: true, covered: true, situations: true } satisfies Record<keyof ExecutionTrace, true>
    const cx = { propertyId: true, scenario: true, trace: true, divergence: true, seed: true, path: true, replayToken: true, runsToDetect: true, shrinkSteps: true } satisfies Record<keyof Counterexample, true>
    // PropertyRun is a union keyed by verdict: the schema declares the keys of every variant.
    const run = { propertyId: true, subject: true, adapter: true, seed: true, runsRequested: true, runsExecuted: true, verdict: true, durationMs: true, covered: true, situations: true, counterexamples: true, knownFailures: true, failuresBeyondBound: true, error: true, missingCapabilities: true, shardFacts: true, interleaving: true } satisfies Record<KeysOfUnion<PropertyRun>, true>
    const requirement = { requirementId: true, subject: true, title: true, verdict: true, reason: true, propertyIds: true, coveredRuns: true, missingCapabilities: true, counterexample: true } satisfies Record<keyof RequirementResult, true>
    const adapter = { fingerprint: true, requirements: true, properties: true, coverage: true } satisfies Record<keyof AdapterResult, true>
    const fingerprint = { name: true, adapterVersion: true, engine: true, engineVersion: true, dialect: true, capabilities: true } satisfies Record<keyof AdapterFingerprint, true>
    const capabilities = { independentConnections: true, rowLocks: true, snapshotReads: true, savepoints: true, platformAlarm: true } satisfies Record<keyof AdapterCapabilities, true>
    const counts = { pass: true, fail: true, "not-applicable": true, unknown: true, error: true } satisfies Record<keyof VerdictCounts, true>
    const report = { schemaVersion: true, kind: true, suite: true, harnessVersion: true, startedAt: true, finishedAt: true, environment: true, options: true, adapters: true, summary: true, shard: true } satisfies Record<keyof ConformanceReport, true>
    const pairs: ReadonlyArray<readonly [SchemaObject, object]> = [
      [def("step"), step],
      [def("divergence"), divergence],
      [def("trace"), trace],
      [def("counterexample"), cx],
      [def("propertyRun"), run],
      [def("requirementResult"), requirement],
      [def("adapterResult"), adapter],
      [def("fingerprint"), fingerprint],
      [def("capabilities"), capabilities],
      [def("verdictCounts"), counts],
      [schema, report]
    ]
    for (const [node, keys] of pairs) expect(Object.keys(node.properties).sort()).toEqual(Object.keys(keys).sort())
  })
})

describe("renderJson", () => {
  it("gives identical bytes for two renders and for two equal reports built separately", () => {
    const a = renderJson(makeReport())
    expect(renderJson(makeReport())).toBe(a)
    // Same content with every object's keys inserted in reverse order: still the same bytes.
    const reverseKeys = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reverseKeys)
        : value !== null && typeof value === "object"
          ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reverseKeys(v)]))
          : value
    const reordered = reverseKeys(makeReport()) as ConformanceReport
    expect(Object.keys(reordered)[0]).toBe("summary")
    expect(renderJson(reordered)).toBe(a)
    expect(a.endsWith("}\n")).toBe(true)
  })

  it("orders keys by the schema (schemaVersion first) and sorts free-form JSON", () => {
    const text = renderJson(makeReport())
    expect(text.startsWith('{\n  "schemaVersion": 2,\n  "kind": "run",\n  "suite"')).toBe(true)
    const parsed = JSON.parse(text) as ConformanceReport
    const args = parsed.adapters[1]?.requirements[1]?.counterexample?.trace.steps[0]?.args as Record<string, unknown>
    expect(Object.keys(args)).toEqual(["id", "payload", "runAt", "tag"])
    expect(Object.keys(parsed.adapters[1]!.requirements[1]!.counterexample!.trace.steps[0]!)).toEqual([
      "index", "operation", "args", "virtualTimeMs", "implementation", "model", "implementationState", "modelState"
    ])
  })

  it("redacts secrets and keeps the replay token intact", () => {
    const text = renderJson(makeReport())
    expect(text).not.toContain(PLANTED_PASSWORD)
    expect(text).toContain("postgres://u:***@h/db")
    expect(text).toContain(REPLAY_TOKEN)
  })
})

describe("readReport", () => {
  it("reads back what renderJson wrote", () => {
    const report = readReport(renderJson(makeReport()))
    expect(report.adapters[1]?.requirements[1]?.counterexample).toEqual(counterexample)
    expect(report.summary).toEqual({ pass: 6, fail: 1, "not-applicable": 1, unknown: 1, error: 1 })
  })

  it("refuses a truncated file, a foreign schema version and a schema violation with a clear message", () => {
    const text = renderJson(makeReport())
    expect(() => readReport(text.slice(0, text.length / 2))).toThrow(/not valid JSON/)
    expect(() => readReport(text.replace('"schemaVersion": 2', '"schemaVersion": 7'))).toThrow(/schema version 7 is not supported/)
    let caught: unknown
    try {
      readReport(text.replace('"harnessVersion": "0.1.0"', '"harnessVersion": 3'))
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ReportReadError)
    expect((caught as ReportReadError).message).toContain("/harnessVersion must be string")
    expect((caught as ReportReadError).errors).toEqual([{ pointer: "/harnessVersion", keyword: "type", message: "must be string" }])
  })
})
