/**
 * JUnit XML: one `<testsuite>` per subject x adapter (`name="alarms.sqlite"`), one `<testcase>` per
 * requirement on that adapter (`classname="alarms.sqlite" name="ALM-002 a crash never loses a due alarm"`).
 *
 * - fail -> `<failure message="<explanation>" type="fail">` whose body carries the explanation, the
 *   replay token and command, and the counterexample's steps;
 * - not-applicable and unknown -> `<skipped message="<reason>">` (CI tools count them as skipped,
 *   not passed);
 * - error -> `<error message="<reason>" type="error">`.
 *
 * Testcase time: each property run's duration split evenly over the applicable requirements it
 * witnesses, so the times of a suite add up to the time its property runs took.
 */
import type { AdapterResult, ConformanceReport, RequirementResult } from "../harness/RunResult.ts"
import type { SubjectName } from "../spec/Requirement.ts"
import { escapeXml as attr } from "./escape.ts"
import { redactSecrets } from "./redact.ts"
import { compactJson, explanationOf, formatOffsetMs, replayCommand } from "./text.ts"

/** Steps listed in a failure body. */
const MAX_STEPS_IN_FAILURE = 100

const body = (value: string): string => attr(value, false)

const seconds = (durationMs: number): string => (Math.max(0, durationMs) / 1000).toFixed(3)

/** Milliseconds attributed to each requirement ID on one adapter. */
const timePerRequirement = (adapter: AdapterResult): ReadonlyMap<string, number> => {
  const out = new Map<string, number>()
  for (const run of adapter.properties) {
    const ids = adapter.requirements
      .filter((r) => r.verdict !== "not-applicable" && r.propertyIds.includes(run.propertyId))
      .map((r) => r.requirementId)
    if (ids.length === 0) continue
    for (const id of ids) out.set(id, (out.get(id) ?? 0) + run.durationMs / ids.length)
  }
  return out
}

const failureBody = (requirement: RequirementResult): string => {
  const lines: Array<string> = [explanationOf(requirement)]
  const cx = requirement.counterexample
  if (cx === undefined) return lines.join("\n")
  lines.push(
    "",
    `replay token: ${cx.replayToken}`,
    `replay: ${replayCommand(cx.replayToken)}`,
    `property ${cx.propertyId}, seed ${cx.seed}, path ${cx.path}, found after ${cx.runsToDetect} runs, ${cx.shrinkSteps} shrink steps`,
    `expected (model): ${compactJson(cx.divergence.expected)}`,
    ...(cx.divergence.alsoExpected ?? []).map((value) => `or, by another allowed choice: ${compactJson(value)}`),
    `actual (implementation): ${compactJson(cx.divergence.actual)}`,
    "",
    "steps:"
  )
  const steps = cx.trace.steps
  const firstMs = steps[0]?.virtualTimeMs ?? 0
  for (const step of steps.slice(0, MAX_STEPS_IN_FAILURE)) {
    const marker = step.index === cx.divergence.stepIndex ? ">>" : "  "
    const fault = step.fault === undefined ? "" : ` [fault: ${step.fault}]`
    lines.push(
      `${marker} ${step.index} ${formatOffsetMs(step.virtualTimeMs - firstMs)} ${step.operation} ${compactJson(step.args, 200)}${fault} -> implementation ${compactJson(
        step.implementation,
        200
      )}, model ${compactJson(step.model, 200)}`
    )
  }
  if (steps.length > MAX_STEPS_IN_FAILURE) lines.push(`   ... ${steps.length - MAX_STEPS_IN_FAILURE} more steps`)
  return lines.join("\n")
}

const testcase = (classname: string, requirement: RequirementResult, timeMs: number): string => {
  const open = `    <testcase classname="${attr(classname)}" name="${attr(`${requirement.requirementId} ${requirement.title}`)}" time="${seconds(timeMs)}"`
  switch (requirement.verdict) {
    case "pass":
      return `${open}/>`
    case "fail": {
      const explanation = explanationOf(requirement)
      const token = requirement.counterexample === undefined ? "" : ` (replay token ${requirement.counterexample.replayToken})`
      return `${open}>\n      <failure message="${attr(`${explanation}${token}`)}" type="fail">${body(failureBody(requirement))}</failure>\n    </testcase>`
    }
    case "not-applicable": {
      const missing = requirement.missingCapabilities ?? []
      const message = missing.length > 0 ? `not applicable: the adapter lacks ${missing.join(", ")}` : `not applicable: ${requirement.reason}`
      return `${open}>\n      <skipped message="${attr(message)}"/>\n    </testcase>`
    }
    case "unknown":
      return `${open}>\n      <skipped message="${attr(`unknown (budget exhausted): ${requirement.reason}`)}"/>\n    </testcase>`
    case "error":
      return `${open}>\n      <error message="${attr(requirement.reason)}" type="error">${body(requirement.reason)}</error>\n    </testcase>`
  }
}

/** A group of testcases: one subject on one adapter. */
interface SuiteGroup {
  readonly subject: SubjectName
  readonly adapter: AdapterResult
  readonly requirements: ReadonlyArray<RequirementResult>
}

const groupsOf = (adapters: ReadonlyArray<AdapterResult>): ReadonlyArray<SuiteGroup> =>
  adapters.flatMap((adapter) => {
    const subjects = [...new Set(adapter.requirements.map((r) => r.subject))]
    return subjects.map((subject) => ({ subject, adapter, requirements: adapter.requirements.filter((r) => r.subject === subject) }))
  })

/**
 * Renders the report as JUnit XML (secrets redacted, everything escaped).
 *
 * @example
 * fs.writeFileSync("junit.xml", renderJunit(report))
 */
export const renderJunit = (input: ConformanceReport): string => {
  const report = redactSecrets(input)
  const groups = groupsOf(report.adapters)
  const timesByAdapter = new Map(report.adapters.map((adapter) => [adapter, timePerRequirement(adapter)] as const))
  let total = { tests: 0, failures: 0, errors: 0, skipped: 0, timeMs: 0 }
  const suites = groups.map((group) => {
    const name = `${group.subject}.${group.adapter.fingerprint.name}`
    const times = timesByAdapter.get(group.adapter) ?? new Map<string, number>()
    const count = (pred: (r: RequirementResult) => boolean): number => group.requirements.filter(pred).length
    const tests = group.requirements.length
    const failures = count((r) => r.verdict === "fail")
    const errors = count((r) => r.verdict === "error")
    const skipped = count((r) => r.verdict === "not-applicable" || r.verdict === "unknown")
    const timeMs = group.requirements.reduce((sum, r) => sum + (times.get(r.requirementId) ?? 0), 0)
    total = { tests: total.tests + tests, failures: total.failures + failures, errors: total.errors + errors, skipped: total.skipped + skipped, timeMs: total.timeMs + timeMs }
    const fp = group.adapter.fingerprint
    const properties = [
      ["suite.name", report.suite.name],
      ["suite.version", report.suite.version],
      ["suite.hash", report.suite.hash],
      ["harness.version", report.harnessVersion],
      ["seed", String(report.options.seed)],
      ["runs", String(report.options.runs)],
      ["adapter.name", fp.name],
      ["adapter.version", fp.adapterVersion],
      ["adapter.engine", `${fp.engine} ${fp.engineVersion}`]
    ]
      .map(([k, v]) => `      <property name="${attr(k ?? "")}" value="${attr(v ?? "")}"/>`)
      .join("\n")
    const cases = group.requirements.map((r) => testcase(name, r, times.get(r.requirementId) ?? 0)).join("\n")
    return [
      `  <testsuite name="${attr(name)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(timeMs)}" timestamp="${attr(
        report.startedAt
      )}">`,
      `    <properties>\n${properties}\n    </properties>`,
      cases,
      `  </testsuite>`
    ].join("\n")
  })
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${attr(`durable-conformance ${report.kind}`)}" tests="${total.tests}" failures="${total.failures}" errors="${total.errors}" skipped="${total.skipped}" time="${seconds(
      total.timeMs
    )}">`,
    ...suites,
    `</testsuites>`,
    ""
  ].join("\n")
}
