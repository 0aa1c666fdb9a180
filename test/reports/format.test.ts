import { describe, expect, it } from "vitest"
import type { StepRecord } from "../../harness/Property.ts"
import { diffStates } from "../../reports/diff.ts"
import { escapeHtml, escapeXml } from "../../reports/escape.ts"
import { compactJson, formatDurationMs, formatOffsetMs, overallStatus } from "../../reports/text.ts"
import { renderTimelineSvg, tickIntervalMs } from "../../reports/timeline.ts"

describe("durations and offsets", () => {
  it.each([
    [0, "0s"],
    [250, "250ms"],
    [1_000, "1s"],
    [90_000, "1m30s"],
    [3_600_000, "1h"],
    [3_605_000, "1h5s"],
    [5_400_000, "1h30m"],
    [86_400_000 * 2 + 3_600_000, "2d1h"],
    [-1_500, "-1s500ms"]
  ])("%d ms -> %s", (ms, text) => {
    expect(formatDurationMs(ms)).toBe(text)
  })

  it("prefixes offsets with +", () => {
    expect(formatOffsetMs(0)).toBe("+0s")
    expect(formatOffsetMs(3_600_000)).toBe("+1h")
  })

  it("cuts long JSON", () => {
    expect(compactJson({ a: "x".repeat(50) }, 20)).toHaveLength(20)
    expect(compactJson(undefined)).toBe("—")
  })

  it("folds verdict counts into a headline", () => {
    expect(overallStatus({ pass: 3, fail: 0, "not-applicable": 2, unknown: 0, error: 0 })).toBe("pass")
    expect(overallStatus({ pass: 3, fail: 0, "not-applicable": 0, unknown: 1, error: 0 })).toBe("incomplete")
    expect(overallStatus({ pass: 3, fail: 0, "not-applicable": 0, unknown: 1, error: 1 })).toBe("fail")
  })
})

describe("escaping", () => {
  it("escapes HTML and XML specials", () => {
    expect(escapeHtml(`<a href='x' title="y">&</a>`)).toBe("&lt;a href=&#39;x&#39; title=&quot;y&quot;&gt;&amp;&lt;/a&gt;")
    expect(escapeXml("a\nb\u0000", true)).toBe("a&#10;b\uFFFD")
    expect(escapeXml('a\n"b"', false)).toBe('a\n"b"')
  })
})

describe("diffStates", () => {
  it("reports a key present on one side once, at the highest differing path", () => {
    const diff = diffStates({ alarms: {}, platformAlarm: null }, { alarms: { "email/a1": { runAt: 1 } }, platformAlarm: null })
    expect(diff.rows).toEqual([
      { path: 'alarms["email/a1"]', model: undefined, implementation: { runAt: 1 }, differs: true },
      { path: "platformAlarm", model: null, implementation: null, differs: false }
    ])
    expect(diff.differing).toBe(1)
  })

  it("compares arrays by index and ignores key order", () => {
    const diff = diffStates({ rows: [{ a: 1, b: 2 }, 3] }, { rows: [{ b: 2, a: 1 }, 4, 5] })
    expect(diff.rows.filter((r) => r.differs).map((r) => r.path)).toEqual(["rows[1]", "rows[2]"])
  })

  it("keeps every differing row when cutting to maxRows", () => {
    const model = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${String(i).padStart(2, "0")}`, i]))
    const implementation = { ...model, k49: -1 }
    const diff = diffStates(model, implementation, 10)
    expect(diff.rows).toHaveLength(10)
    expect(diff.omitted).toBe(40)
    expect(diff.rows.some((r) => r.path === "k49" && r.differs)).toBe(true)
  })

  it("is empty when neither side has state", () => {
    expect(diffStates(undefined, undefined)).toEqual({ rows: [], differing: 0, omitted: 0 })
  })
})

describe("timeline", () => {
  const step = (index: number, virtualTimeMs: number, extra: Partial<StepRecord> = {}): StepRecord => ({
    index,
    operation: `op${index}`,
    args: {},
    virtualTimeMs,
    implementation: null,
    model: null,
    ...extra
  })

  it("chooses readable tick intervals", () => {
    expect(tickIntervalMs(7_200_000)).toBe(900_000)
    expect(tickIntervalMs(1_000)).toBe(200)
    expect(tickIntervalMs(30 * 86_400_000)).toBe(604_800_000)
  })

  it("draws one mark per step, faults and the divergence distinctly, and stacks simultaneous steps in lanes", () => {
    const steps = [step(0, 0), step(1, 0), step(2, 0, { fault: "crash at hook x" }), step(3, 3_600_000)]
    const svg = renderTimelineSvg(steps, { label: "t", divergentIndex: 3, stepIdPrefix: "s-" })
    expect(svg.match(/class="tl-mark/g)).toHaveLength(4)
    expect(svg.match(/tl-fault/g)?.length).toBeGreaterThanOrEqual(1)
    expect(svg).toContain(`class="tl-mark tl-divergent" data-step="3"`)
    expect(svg).toContain(`href="#s-2"`)
    const ys = [...svg.matchAll(/<text class="tl-label" x="[\d.]+" y="([\d.]+)"/g)].map((m) => Number(m[1]))
    expect(new Set(ys.slice(0, 3)).size).toBe(3)
    const ticks = [...svg.matchAll(/<text class="tl-tick-label"[^>]*>([^<]*)</g)].map((m) => m[1])
    expect(ticks[0]).toBe("+0s")
    expect(ticks[ticks.length - 1]).toBe("+1h")
  })

  it("stays bounded for long counterexamples and handles a single instant", () => {
    const many = Array.from({ length: 300 }, (_, i) => step(i, Math.floor(i / 10) * 1_000))
    const svg = renderTimelineSvg(many, { label: "many" })
    expect(svg.match(/class="tl-mark/g)).toHaveLength(300)
    const height = Number(/viewBox="0 0 1000 (\d+(?:\.\d+)?)"/.exec(svg)?.[1])
    expect(height).toBeLessThan(600)
    const single = renderTimelineSvg([step(0, 5)], { label: "one" })
    expect(single).toContain(">+0s<")
    expect(renderTimelineSvg([], { label: "none" })).toContain("<svg")
  })
})
