import { describe, expect, it } from "vitest"
import { renderJunit } from "../../reports/junit.ts"
import { makeReport, REPLAY_TOKEN, withAlsoExpected } from "./fixtures.ts"
import { findAll, parseXml } from "./xml.ts"

describe("renderJunit", () => {
  const xml = renderJunit(makeReport())
  const root = parseXml(xml)
  const cases = findAll(root, "testcase")

  it("parses back as well-formed XML with one testsuite per subject x adapter", () => {
    expect(root.name).toBe("testsuites")
    const suites = findAll(root, "testsuite")
    expect(suites.map((s) => s.attributes["name"])).toEqual(["alarms.sqlite", "content.sqlite", "alarms.postgres", "content.postgres"])
    expect(suites.map((s) => s.attributes["tests"])).toEqual(["4", "1", "4", "1"])
    for (const suite of suites) expect(findAll(suite, "testcase")).toHaveLength(Number(suite.attributes["tests"]))
  })

  it("has one testcase per requirement x adapter with the right failures, errors and skips", () => {
    expect(cases).toHaveLength(10)
    expect(root.attributes).toMatchObject({ tests: "10", failures: "1", errors: "1", skipped: "2" })
    expect(cases.filter((c) => findAll(c, "failure").length > 0)).toHaveLength(1)
    expect(cases.filter((c) => findAll(c, "error").length > 0)).toHaveLength(1)
    expect(cases.filter((c) => findAll(c, "skipped").length > 0)).toHaveLength(2)
    expect(cases.filter((c) => c.children.length === 0)).toHaveLength(6)
    expect(new Set(cases.map((c) => `${c.attributes["classname"]} ${c.attributes["name"]}`)).size).toBe(10)
    const times = findAll(root, "testsuite").map((s) => Number(s.attributes["time"]))
    expect(times.reduce((a, b) => a + b, 0)).toBeCloseTo(Number(root.attributes["time"]), 3)
  })

  it("puts the explanation and the replay token on the failure", () => {
    const failing = cases.find((c) => c.attributes["name"] === "ALM-002 a crash never loses a due alarm" && c.attributes["classname"] === "alarms.postgres")
    const failure = failing === undefined ? undefined : findAll(failing, "failure")[0]
    expect(failure?.attributes["message"]).toContain("the implementation had cleared the platform alarm")
    expect(failure?.attributes["message"]).toContain(REPLAY_TOKEN)
    expect(failure?.text).toContain(`replay token: ${REPLAY_TOKEN}`)
    expect(failure?.text).toContain(`npx durable-conformance replay ${REPLAY_TOKEN}`)
    // Markup in step arguments round-trips as text, not as elements.
    expect(failure?.text).toContain('"note":"<script>alert(1)</script> & \\"quotes\\""')
    expect(failure?.children).toHaveLength(0)
  })

  it("lists the values another allowed choice expected, one line each, after the model's", () => {
    const text = findAll(parseXml(renderJunit(withAlsoExpected(makeReport(), [{ handled: 2 }, "other"]))), "failure")[0]?.text ?? ""
    expect(text).toContain(`expected (model): {"handled":1,"failed":0,"parked":0}\nor, by another allowed choice: {"handled":2}\nor, by another allowed choice: "other"\nactual`)
    expect(findAll(cases.find((c) => findAll(c, "failure").length > 0)!, "failure")[0]?.text).not.toContain("another allowed choice")
  })

  it("says why a requirement was skipped", () => {
    const messages = cases.flatMap((c) => findAll(c, "skipped")).map((s) => s.attributes["message"])
    expect(messages).toEqual([
      "not applicable: the adapter lacks independentConnections, rowLocks",
      "unknown (budget exhausted): reached by 0 of 100 scenarios"
    ])
  })

  it("keeps newlines in attributes and drops characters XML cannot carry", () => {
    const report = makeReport()
    const tricky = {
      ...report,
      adapters: [
        {
          ...report.adapters[0]!,
          requirements: [{ ...report.adapters[0]!.requirements[4]!, verdict: "error" as const, reason: "line one\nline two \u0001 <b>&amp;</b> 'q'" }]
        }
      ]
    }
    const parsed = parseXml(renderJunit(tricky))
    const error = findAll(parsed, "error")[0]
    expect(error?.attributes["message"]).toBe("line one\nline two \uFFFD <b>&amp;</b> 'q'")
    expect(error?.text).toBe("line one\nline two \uFFFD <b>&amp;</b> 'q'")
  })

  it("is refused by the parser when malformed (the parser is strict)", () => {
    expect(() => parseXml("<a><b></a></b>")).toThrow(/does not match/)
    expect(() => parseXml('<a x="1 & 2"/>')).toThrow(/bare/)
    expect(() => parseXml("<a>")).toThrow(/unclosed/)
  })
})
