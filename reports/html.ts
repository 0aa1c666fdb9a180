/**
 * The single-file HTML report: no external assets, fonts or scripts (a Content-Security-Policy in
 * the page forbids loading anything), so it can be attached to a CI run or mailed as is.
 *
 * Layout: a header (suite, version, hash, seed, adapters), a summary table, a requirements table per
 * adapter (`id="requirements-<adapter>"`), then one section per failure (`id="failure-<adapter>-<req>"`)
 * with the explanation, the replay command, a timeline (`svg.timeline`; an ordered list `ol.tl-list`
 * when every step shares one virtual time) and a step table whose divergent row is highlighted and
 * whose state rows compare model and implementation key by key, normalized (`reports/diff.ts`).
 */
import type { StepRecord } from "../harness/Property.ts"
import type { AdapterResult, ConformanceReport, RequirementResult, Verdict } from "../harness/RunResult.ts"
import { SITUATION_FLAG_BELOW } from "../harness/Coverage.ts"
import { cellKind, coverageTables } from "./coverageTable.ts"
import { depthCell, INTERLEAVING_SCOPE, interleavingRows } from "./interleavingTable.ts"
import { diffStates } from "./diff.ts"
import { escapeHtml as esc } from "./escape.ts"
import { redactSecrets } from "./redact.ts"
import { isSingleInstant, renderTimeline } from "./timeline.ts"
import { compactJson, countVerdicts, explanationOf, formatEpochMs, formatOffsetMs, overallStatus, replayCommand, VERDICT_LABEL, VERDICTS } from "./text.ts"

/** Steps rendered per counterexample (minimized counterexamples are far shorter). */
const MAX_STEPS = 500
/** State rows rendered per step. */
const MAX_STATE_ROWS = 200

/** Lower-case id fragment: letters, digits, `-` and `_` only. */
export const slug = (value: string): string => {
  const s = value
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
  return s === "" ? "x" : s
}

/** Assigns each adapter a unique id fragment (two names that slug alike get `-2`, `-3`, ...). */
const adapterSlugs = (adapters: ReadonlyArray<AdapterResult>): ReadonlyArray<string> => {
  const used = new Set<string>()
  return adapters.map((adapter) => {
    const base = slug(adapter.fingerprint.name)
    let candidate = base
    for (let suffix = 2; used.has(candidate) && suffix < 10_000; suffix++) candidate = `${base}-${suffix}`
    used.add(candidate)
    return candidate
  })
}

const badge = (verdict: Verdict): string => `<span class="badge v-${verdict}">${esc(VERDICT_LABEL[verdict])}</span>`

const jsonCell = (value: unknown, maxChars = 2_000): string => `<code class="json">${esc(compactJson(value, maxChars))}</code>`

const STYLE = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--pass:#1a7f37;--pass-bg:#dafbe1;--fail:#cf222e;--fail-bg:#ffebe9;
--na:#59636e;--na-bg:#eff2f5;--unknown:#9a6700;--unknown-bg:#fff8c5;--error:#8250df;--error-bg:#fbefff;--fault:#bc4c00;--fault-bg:#fff1e5}
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:#fff}
main{max-width:1200px;margin:0 auto;padding:24px 28px 64px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:36px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--line)}
h3{font-size:16px;margin:0 0 8px}h4{font-size:14px;margin:18px 0 6px}
td.mono{white-space:nowrap}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
.status{display:inline-block;font-weight:600;padding:2px 10px;border-radius:999px;margin-left:8px;font-size:14px;vertical-align:middle}
.status-pass{color:var(--pass);background:var(--pass-bg)}.status-fail{color:var(--fail);background:var(--fail-bg)}.status-incomplete{color:var(--unknown);background:var(--unknown-bg)}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:14px 0 0;padding:12px 16px;background:var(--soft);border:1px solid var(--line);border-radius:8px}
.meta dt{color:var(--muted)}.meta dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;margin:6px 0 12px}
th,td{border:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;min-width:52px;text-align:center;font-size:12px;font-weight:600;padding:1px 8px;border-radius:999px;white-space:nowrap}
.v-pass{color:var(--pass);background:var(--pass-bg)}.v-fail{color:var(--fail);background:var(--fail-bg)}
.v-not-applicable{color:var(--na);background:var(--na-bg)}.v-unknown{color:var(--unknown);background:var(--unknown-bg)}.v-error{color:var(--error);background:var(--error-bg)}
td.cov-rare{background:#fff8c5;font-weight:600}td.cov-unreached{background:#ffebe9;font-weight:600}td.cov-na{color:#59636e}
tr.row-fail td{background:#fff8f7}tr.row-error td{background:#fdf8ff}
.chip{display:inline-block;font-size:12px;padding:0 6px;margin:1px 2px;border-radius:4px;background:var(--soft);border:1px solid var(--line)}
.chip.off{color:var(--muted);text-decoration:line-through}
.fingerprint{color:var(--muted);margin:0 0 6px}
.failure{border:1px solid var(--line);border-left:4px solid var(--fail);border-radius:8px;padding:16px 18px;margin:18px 0}
.explanation{font-size:15px;margin:4px 0 10px}
.expected-actual{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}
.expected-actual dt{color:var(--muted)}.expected-actual dd{margin:0}
pre.replay{background:#0d1117;color:#e6edf3;padding:10px 12px;border-radius:6px;white-space:pre-wrap;word-break:break-all;margin:6px 0 4px}
.facts{color:var(--muted);font-size:13px}
figure{margin:12px 0}figcaption{color:var(--muted);font-size:12.5px;margin-top:4px}
.legend span{margin-right:14px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
.lg-op{background:#0969da;border-radius:50%}.lg-fault{background:var(--fault);transform:rotate(45deg)}.lg-div{background:var(--fail);border-radius:50%;box-shadow:0 0 0 2px #fff,0 0 0 3px var(--fail)}
svg.timeline{display:block;max-width:100%;height:auto}
.tl-bg{fill:#fbfcfd;stroke:var(--line)}.tl-axis{stroke:#6e7781;stroke-width:1.5}.tl-tick{stroke:#6e7781}.tl-grid{stroke:#eaeef2}
.tl-tick-label{font:12px ui-monospace,Menlo,Consolas,monospace;fill:var(--muted)}
.tl-drop{stroke:#c8d1da;stroke-dasharray:2 3}.tl-drop-fault{stroke:#f0b37e}
.tl-shape{fill:#0969da;stroke:#fff;stroke-width:1.5}.tl-fault .tl-shape{fill:var(--fault)}.tl-divergent .tl-shape{fill:var(--fail)}
.tl-ring{fill:none;stroke:var(--fail);stroke-width:2}
.tl-label{font:12px ui-monospace,Menlo,Consolas,monospace;fill:var(--fg);paint-order:stroke;stroke:#fbfcfd;stroke-width:4px;stroke-linejoin:round}
.tl-fault .tl-label{fill:var(--fault);font-weight:600}.tl-divergent .tl-label{fill:var(--fail);font-weight:700}
a .tl-mark:hover .tl-shape{stroke:#1f2328}
table.steps td{font-size:13px}table.steps code.json{white-space:pre-wrap;overflow-wrap:anywhere}
table.steps tr.step.divergent td{background:var(--fail-bg);border-top:2px solid var(--fail);border-bottom:2px solid var(--fail)}
table.steps tr.step.has-fault td:first-child{box-shadow:inset 4px 0 0 var(--fault)}
td.differs{background:#fff5e6}
.fault-note{display:inline-block;margin-top:3px;color:var(--fault);background:var(--fault-bg);border-radius:4px;padding:0 6px;font-size:12px;font-weight:600}
.div-note{display:inline-block;margin-top:3px;color:var(--fail);font-weight:700;font-size:12px}
tr.state-row>td{background:var(--soft);padding:2px 8px 4px 28px}
tr.state-row summary{cursor:pointer;color:var(--muted);font-size:12.5px}
tr.state-row summary.has-diff{color:var(--fault);font-weight:600}
table.state-diff{width:auto;min-width:60%;margin:4px 0 6px;background:#fff}
table.state-diff td,table.state-diff th{font-size:12.5px;padding:2px 8px}
table.state-diff tr.diff td{background:var(--fail-bg)}table.state-diff tr.diff td.path{font-weight:600;color:var(--fail)}
.absent{color:var(--muted);font-style:italic}
table.state-diff tr.repr td.path::after{content:" (same outcome)";color:var(--muted);font-weight:400}
.tl-instant-timeline{background:#fbfcfd;border:1px solid var(--line);border-radius:6px;padding:8px 14px}
.tl-instant{margin:0 0 4px;color:var(--muted);font-size:13px}
ol.tl-list{margin:0;padding-left:3.2em;font-size:13px;line-height:1.7}
ol.tl-list li::marker{color:var(--muted);font-variant-numeric:tabular-nums}
ol.tl-list .tl-args{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;color:var(--muted);overflow-wrap:anywhere}
ol.tl-list li.tl-fault code{color:var(--fault);font-weight:600}
ol.tl-list li.tl-divergent{background:var(--fail-bg);border-radius:4px}ol.tl-list li.tl-divergent code{color:var(--fail);font-weight:700}
footer{margin-top:40px;color:var(--muted);font-size:12px}
@media print{.failure{break-inside:avoid-page}}
`

const capabilityChips = (adapter: AdapterResult): string => {
  const c = adapter.fingerprint.capabilities
  const flags: ReadonlyArray<readonly [string, boolean]> = [
    ["independentConnections", c.independentConnections],
    ["rowLocks", c.rowLocks],
    ["snapshotReads", c.snapshotReads],
    ["savepoints", c.savepoints],
    [`platformAlarm: ${c.platformAlarm}`, true]
  ]
  return flags.map(([name, on]) => `<span class="chip${on ? "" : " off"}" title="${on ? "has" : "lacks"} ${esc(name)}">${esc(name)}</span>`).join("")
}

const headerSection = (report: ConformanceReport): string => {
  const status = overallStatus(report.summary)
  const statusText = status === "pass" ? "PASS" : status === "fail" ? "FAIL" : "INCOMPLETE"
  const adapters = report.adapters
    .map((a) => `${esc(a.fingerprint.name)} <span class="facts">(${esc(a.fingerprint.engine)} ${esc(a.fingerprint.engineVersion)})</span>`)
    .join(", ")
  const rows: ReadonlyArray<readonly [string, string]> = [
    ["Suite", `${esc(report.suite.name)} ${esc(report.suite.version)}`],
    ["Suite hash", `<span class="mono">${esc(report.suite.hash)}</span>`],
    ["Harness", esc(report.harnessVersion)],
    ["Seed", `<span class="mono">${esc(String(report.options.seed))}</span>`],
    ["Runs per property", esc(String(report.options.runs))],
    ["Subjects", esc(report.options.subjects.join(", "))],
    ["Adapters", adapters === "" ? "none" : adapters],
    ["Started / finished", `${esc(report.startedAt)} / ${esc(report.finishedAt)} <span class="facts">(wall clock)</span>`],
    [
      "Environment",
      esc(`Node ${report.environment.node} on ${report.environment.platform}/${report.environment.arch}${report.environment.ci ? ", CI" : ""}`)
    ]
  ]
  return [
    `<header id="report-header">`,
    `<h1>durable-conformance ${esc(report.kind)} report <span class="status status-${status}" id="overall-status">${statusText}</span></h1>`,
    `<dl class="meta">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join("")}</dl>`,
    `</header>`
  ].join("\n")
}

const summarySection = (report: ConformanceReport, slugs: ReadonlyArray<string>): string => {
  const head = `<tr><th>Adapter</th><th>Engine</th>${VERDICTS.map((v) => `<th class="num">${badge(v)}</th>`).join("")}</tr>`
  const rows = report.adapters.map((adapter, i) => {
    const counts = countVerdicts(adapter.requirements)
    const fp = adapter.fingerprint
    return `<tr><td><a href="#adapter-${slugs[i]}">${esc(fp.name)}</a></td><td>${esc(`${fp.engine} ${fp.engineVersion}`)}</td>${VERDICTS.map(
      (v) => `<td class="num">${counts[v]}</td>`
    ).join("")}</tr>`
  })
  const s = report.summary
  rows.push(`<tr><th>Total</th><th></th>${VERDICTS.map((v) => `<th class="num">${s[v]}</th>`).join("")}</tr>`)
  return `<section id="summary"><h2>Summary</h2><table class="summary"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table></section>`
}

const failureId = (adapterSlug: string, requirement: RequirementResult): string => `failure-${adapterSlug}-${slug(requirement.requirementId)}`

const reasonCell = (requirement: RequirementResult): string => {
  const missing =
    requirement.missingCapabilities !== undefined && requirement.missingCapabilities.length > 0
      ? `<div>needs ${requirement.missingCapabilities.map((c) => `<span class="chip">${esc(c)}</span>`).join("")}</div>`
      : ""
  return `${esc(requirement.reason)}${missing}`
}

const adapterSection = (adapter: AdapterResult, adapterSlug: string): string => {
  const fp = adapter.fingerprint
  const rows = adapter.requirements.map((r) => {
    const id = esc(r.requirementId)
    const idCell = r.verdict === "fail" ? `<a href="#${failureId(adapterSlug, r)}">${id}</a>` : id
    return `<tr class="row-${r.verdict}" id="req-${adapterSlug}-${slug(r.requirementId)}" data-verdict="${r.verdict}"><td class="mono">${idCell}</td><td>${esc(
      r.subject
    )}</td><td>${esc(r.title)}</td><td>${badge(r.verdict)}</td><td>${reasonCell(r)}</td><td class="num">${r.coveredRuns}</td></tr>`
  })
  return [
    `<section class="adapter" id="adapter-${adapterSlug}">`,
    `<h2>Adapter ${esc(fp.name)}</h2>`,
    `<p class="fingerprint">adapter ${esc(fp.adapterVersion)} · ${esc(fp.engine)} ${esc(fp.engineVersion)} · ${esc(fp.dialect)} · ${capabilityChips(adapter)}</p>`,
    `<table class="requirements" id="requirements-${adapterSlug}"><thead><tr><th>ID</th><th>Subject</th><th>Requirement</th><th>Verdict</th><th>Reason</th><th class="num" title="generated scenarios that reached this requirement's situation">Covered</th></tr></thead>`,
    `<tbody>${rows.join("")}</tbody></table>`,
    `</section>`
  ].join("\n")
}

/** The situation coverage tables: one per subject, a column per adapter, rare and unreached cells marked. */
const coverageSection = (adapters: ReadonlyArray<AdapterResult>): string => {
  const tables = coverageTables(adapters)
  if (tables.length === 0) return ""
  const head = `<tr><th>Situation</th>${adapters.map((adapter) => `<th class="num">${esc(adapter.fingerprint.name)}</th>`).join("")}</tr>`
  const sections = tables.map((table) => {
    const rows = table.rows.map((row) => {
      const cells = row.scenariosByAdapter.map((scenarios) => {
        const kind = cellKind(scenarios)
        const shown = kind === "na" ? "n/a" : String(scenarios)
        const title = kind === "rare" ? ` title="reached fewer than ${SITUATION_FLAG_BELOW} times"` : kind === "unreached" ? ` title="never reached"` : ""
        return `<td class="num cov-${kind}"${title}>${shown}</td>`
      })
      return `<tr><td class="mono">${esc(row.situation)}</td>${cells.join("")}</tr>`
    })
    const flags = `${table.rareCells} rare, ${table.unreachedCells} never reached`
    return `<details id="coverage-${slug(table.subject)}"><summary>${esc(table.subject)}: ${table.rows.length} situations (${flags})</summary><table class="coverage"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table></details>`
  })
  return [
    `<section id="coverage"><h2>Situation coverage</h2>`,
    `<p>Scenarios that reached each situation of the model, per adapter; fewer than ${SITUATION_FLAG_BELOW} is marked rare.</p>`,
    ...sections,
    `</section>`
  ].join("\n")
}

/** The PCT guarantee of each step-scheduled property run (`interleavingTable.ts`); empty when none declares one. */
const interleavingSection = (adapters: ReadonlyArray<AdapterResult>): string => {
  const rows = interleavingRows(adapters)
  if (rows.length === 0) return ""
  const depths = Math.max(...rows.map((row) => row.guarantee.maxDepth))
  const head = `<tr><th>Property</th><th>Adapter</th><th class="num">n</th><th class="num">k</th>${Array.from({ length: depths }, (_, index) => `<th>d=${index + 1}</th>`).join("")}</tr>`
  const body = rows.map((row) => {
    const cells = Array.from({ length: depths }, (_, index) => {
      const bound = row.guarantee.bounds[index]
      return `<td>${bound === undefined ? "" : esc(depthCell(row.guarantee, bound))}</td>`
    })
    return `<tr><td class="mono">${esc(row.propertyId)}</td><td class="mono">${esc(row.adapter)}</td><td class="num">${row.guarantee.operations}</td><td class="num">${row.guarantee.steps}</td>${cells.join("")}</tr>`
  })
  return [`<section id="interleaving"><h2>Interleaving guarantee</h2>`, `<p>${esc(INTERLEAVING_SCOPE)}</p>`, `<table class="coverage"><thead>${head}</thead><tbody>${body.join("")}</tbody></table>`, `</section>`].join("\n")
}

const diffTable = (summary: string, model: unknown, implementation: unknown, open: boolean, kind: "state" | "result"): string => {
  const diff = diffStates(model, implementation, MAX_STATE_ROWS)
  const cell = (value: unknown): string => (value === undefined ? `<span class="absent">absent</span>` : jsonCell(value, 600))
  const rows = diff.rows.map(
    (row) =>
      row.representationOnly === true
        ? `<tr class="same repr" title="the same outcome, written differently"><td class="path mono">${esc(row.path)}</td><td>${cell(row.model)}</td><td>${cell(row.implementation)}</td></tr>`
        : `<tr class="${row.differs ? "diff" : "same"}"><td class="path mono">${esc(row.path)}</td><td>${cell(row.model)}</td><td>${cell(row.implementation)}</td></tr>`
  )
  if (diff.omitted > 0) rows.push(`<tr><td colspan="3" class="facts">${diff.omitted} equal values not shown</td></tr>`)
  return `<details class="${kind}"${open ? " open" : ""}><summary class="${diff.differing > 0 ? "has-diff" : ""}">${esc(summary)}</summary><table class="state-diff"><thead><tr><th>Path</th><th>Model</th><th>Implementation</th></tr></thead><tbody>${rows.join(
    ""
  )}</tbody></table></details>`
}

/** The result difference (when results differ) and the state comparison after a step. */
const stepDetails = (step: StepRecord, divergent: boolean): string => {
  const parts: Array<string> = []
  const results = diffStates(step.model, step.implementation, MAX_STATE_ROWS)
  if (results.differing > 0) {
    const summary = `Result of step ${step.index}: ${results.differing} difference${results.differing === 1 ? "" : "s"}`
    parts.push(diffTable(summary, step.model, step.implementation, true, "result"))
  }
  if (step.modelState !== undefined || step.implementationState !== undefined) {
    const state = diffStates(step.modelState, step.implementationState, MAX_STATE_ROWS)
    const summary =
      state.differing === 0
        ? `State after step ${step.index}: model and implementation agree (${state.rows.length} value${state.rows.length === 1 ? "" : "s"})`
        : `State after step ${step.index}: ${state.differing} difference${state.differing === 1 ? "" : "s"}`
    parts.push(diffTable(summary, step.modelState, step.implementationState, state.differing > 0 || divergent, "state"))
  }
  return parts.join("")
}

const stepsTable = (steps: ReadonlyArray<StepRecord>, divergentIndex: number, idPrefix: string): string => {
  const firstMs = steps.length === 0 ? 0 : Math.min(...steps.map((s) => s.virtualTimeMs))
  const rows = steps.slice(0, MAX_STEPS).map((step) => {
    const divergent = step.index === divergentIndex
    const resultsDiffer = diffStates(step.model, step.implementation, 1).differing > 0
    const classes = ["step", divergent ? "divergent" : "", step.fault === undefined ? "" : "has-fault"].filter((c) => c !== "").join(" ")
    const notes =
      (step.fault === undefined ? "" : `<br><span class="fault-note">⚡ fault: ${esc(step.fault)}</span>`) +
      (divergent ? `<br><span class="div-note">⟵ implementation and model diverge here</span>` : "")
    const differsClass = resultsDiffer ? ` class="differs"` : ""
    const stepRow = `<tr class="${classes}" id="${esc(`${idPrefix}${step.index}`)}"><td class="num">${step.index}</td><td class="mono" title="${esc(
      formatEpochMs(step.virtualTimeMs)
    )}">${esc(formatOffsetMs(step.virtualTimeMs - firstMs))}</td><td><code>${esc(step.operation)}</code> ${jsonCell(step.args)}${notes}</td><td${differsClass}>${jsonCell(
      step.implementation
    )}</td><td${differsClass}>${jsonCell(step.model)}</td></tr>`
    const details = stepDetails(step, divergent)
    return details === "" ? stepRow : `${stepRow}<tr class="state-row"><td colspan="5">${details}</td></tr>`
  })
  if (steps.length > MAX_STEPS) rows.push(`<tr><td colspan="5" class="facts">${steps.length - MAX_STEPS} more steps not shown (see the JSON report)</td></tr>`)
  return `<table class="steps"><thead><tr><th class="num">#</th><th>Virtual time</th><th>Operation and arguments</th><th>Implementation</th><th>Model</th></tr></thead><tbody>${rows.join(
    ""
  )}</tbody></table>`
}

const failureSection = (adapter: AdapterResult, adapterSlug: string, requirement: RequirementResult): string => {
  const id = failureId(adapterSlug, requirement)
  const head = `<h3>${badge("fail")} ${esc(requirement.requirementId)} on ${esc(adapter.fingerprint.name)}: ${esc(requirement.title)}</h3>`
  const explanation = `<p class="explanation">${esc(explanationOf(requirement))}</p>`
  const cx = requirement.counterexample
  if (cx === undefined) {
    return `<article class="failure" id="${id}">${head}${explanation}<p class="facts">No counterexample was recorded for this failure.</p></article>`
  }
  const steps = cx.trace.steps
  const firstMs = steps.length === 0 ? 0 : Math.min(...steps.map((s) => s.virtualTimeMs))
  const faults = steps.filter((s) => s.fault !== undefined).length
  const stepIdPrefix = `step-${adapterSlug}-${slug(requirement.requirementId)}-`
  const timeline = renderTimeline(steps, {
    label: `Timeline of the counterexample for ${requirement.requirementId} on ${adapter.fingerprint.name}: ${steps.length} steps over virtual time`,
    divergentIndex: cx.divergence.stepIndex,
    stepIdPrefix,
    id: `timeline-${adapterSlug}-${slug(requirement.requirementId)}`
  })
  return [
    `<article class="failure" id="${id}">`,
    head,
    explanation,
    `<dl class="expected-actual"><dt>Expected (model)</dt><dd>${jsonCell(cx.divergence.expected)}</dd>${
      (cx.divergence.alsoExpected ?? []).map((value) => `<dt>Or, by another allowed choice</dt><dd>${jsonCell(value)}</dd>`).join("")
    }<dt>Actual (implementation)</dt><dd>${jsonCell(
      cx.divergence.actual
    )}</dd><dt>At step</dt><dd>${cx.divergence.stepIndex}</dd></dl>`,
    `<h4>Replay</h4><pre class="replay"><code>${esc(replayCommand(cx.replayToken))}</code></pre>`,
    `<p class="facts">Property <code>${esc(cx.propertyId)}</code> · seed <code>${esc(String(cx.seed))}</code> · path <code>${esc(cx.path)}</code> · found after ${
      cx.runsToDetect
    } run${cx.runsToDetect === 1 ? "" : "s"} · ${cx.shrinkSteps} shrink steps · ${steps.length} steps, ${faults} fault${faults === 1 ? "" : "s"} · virtual time starts ${esc(
      formatEpochMs(firstMs)
    )}</p>`,
    isSingleInstant(steps)
      ? `<h4>Timeline</h4><figure class="timeline-figure">${timeline}</figure>`
      : `<h4>Timeline</h4><figure class="timeline-figure">${timeline}<figcaption class="legend"><span><i class="lg-op"></i>operation</span><span><i class="lg-fault"></i>fault injected</span><span><i class="lg-div"></i>divergence</span>x axis: virtual time since the first step</figcaption></figure>`,
    `<h4>Steps</h4>`,
    stepsTable(steps, cx.divergence.stepIndex, stepIdPrefix),
    `</article>`
  ].join("\n")
}

/**
 * Renders the whole report as one self-contained HTML document (secrets redacted, all text escaped).
 *
 * @example
 * fs.writeFileSync("report.html", renderHtml(report))
 */
export const renderHtml = (input: ConformanceReport): string => {
  const report = redactSecrets(input)
  const slugs = adapterSlugs(report.adapters)
  const failures = report.adapters.flatMap((adapter, i) =>
    adapter.requirements.filter((r) => r.verdict === "fail").map((r) => failureSection(adapter, slugs[i] ?? "x", r))
  )
  const title = `durable-conformance ${report.kind}: ${report.suite.name} ${report.suite.version}`
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${esc(title)}</title><style>${STYLE}</style></head><body><main>`,
    headerSection(report),
    summarySection(report, slugs),
    ...report.adapters.map((adapter, i) => adapterSection(adapter, slugs[i] ?? "x")),
    coverageSection(report.adapters),
    interleavingSection(report.adapters),
    `<section id="failures"><h2>Failures</h2>${failures.length === 0 ? `<p>No requirement failed.</p>` : failures.join("\n")}</section>`,
    `<footer>Generated by durable-conformance ${esc(report.harnessVersion)} · report schema version ${report.schemaVersion}. Virtual times are relative to each counterexample's first step; hover a timeline mark for details.</footer>`,
    `</main></body></html>`,
    ""
  ].join("\n")
}
