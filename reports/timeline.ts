/**
 * The counterexample timeline as an inline SVG: virtual time (relative to the first step) on the x
 * axis with readable ticks (`+0s`, `+30m`, `+1h`), one mark per step labelled with its index and
 * operation, faults drawn as diamonds, the divergent step as a ringed red dot. Steps that share a
 * moment (common: several operations before the clock moves) are stacked in lanes so labels never
 * overlap. When every step shares one moment there is no axis to draw: `renderTimeline` lists the
 * steps in order instead. Pure string building; every text is escaped.
 */
import type { StepRecord } from "../harness/Property.ts"
import { escapeHtml } from "./escape.ts"
import { compactJson, formatEpochMs, formatOffsetMs } from "./text.ts"

/** Layout constants, in SVG user units (the SVG scales to the page width). */
const WIDTH = 1000
const MARGIN_LEFT = 36
const MARGIN_RIGHT = 36
const MARGIN_TOP = 14
const LANE_HEIGHT = 24
const AXIS_GAP = 18
const AXIS_LABEL_SPACE = 30
const CHAR_WIDTH = 7.2
const LABEL_GAP = 10
const MAX_LANES = 16
const MAX_LABEL_CHARS = 30
const MAX_TICKS = 8

/** Tick intervals to choose from, smallest first. */
const NICE_INTERVALS_MS: ReadonlyArray<number> = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000,
  1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000, 172_800_000, 604_800_000, 2_592_000_000,
  7_776_000_000, 31_536_000_000
]

/** Picks the smallest nice tick interval giving at most `MAX_TICKS` intervals over `spanMs`. */
export const tickIntervalMs = (spanMs: number): number => {
  for (const interval of NICE_INTERVALS_MS) if (spanMs / interval <= MAX_TICKS) return interval
  return Math.ceil(spanMs / MAX_TICKS)
}

/** Where one step's mark and label go. */
interface PlacedMark {
  readonly step: StepRecord
  readonly x: number
  readonly lane: number
  readonly label: string
  /** Label on the left of the mark (near the right edge). */
  readonly labelLeft: boolean
}

const labelOf = (step: StepRecord): string => {
  const name = step.operation.length > MAX_LABEL_CHARS ? `${step.operation.slice(0, MAX_LABEL_CHARS - 1)}…` : step.operation
  return `${step.index} ${name}${step.fault === undefined ? "" : " ⚡"}`
}

const placeMarks = (steps: ReadonlyArray<StepRecord>, xOf: (timeMs: number) => number): ReadonlyArray<PlacedMark> => {
  const laneEnds: Array<number> = []
  const placed: Array<PlacedMark> = []
  for (const step of steps) {
    const x = xOf(step.virtualTimeMs)
    const label = labelOf(step)
    const labelWidth = label.length * CHAR_WIDTH + 12
    const labelLeft = x + labelWidth > WIDTH - 4
    const start = labelLeft ? x - labelWidth : x - 8
    const end = labelLeft ? x + 8 : x + labelWidth
    let lane = laneEnds.findIndex((laneEnd) => laneEnd + LABEL_GAP <= start)
    if (lane === -1) {
      if (laneEnds.length < MAX_LANES) {
        lane = laneEnds.length
        laneEnds.push(end)
      } else {
        // Every lane is busy: reuse the one that frees up first (labels may overlap; the table has all).
        lane = laneEnds.indexOf(Math.min(...laneEnds))
        laneEnds[lane] = end
      }
    } else {
      laneEnds[lane] = end
    }
    placed.push({ step, x, lane, label, labelLeft })
  }
  return placed
}

/** Options for `renderTimelineSvg`. */
export interface TimelineOptions {
  /** Index of the step where implementation and model diverged. */
  readonly divergentIndex?: number
  /** Prefix of the step table row ids, so marks link to rows (`<prefix><index>`). */
  readonly stepIdPrefix?: string
  /** Accessible name of the figure. */
  readonly label: string
  /** The SVG element's id. */
  readonly id?: string
}

const n = (value: number): string => (Math.round(value * 10) / 10).toString()

/**
 * Renders the steps' timeline as one `<svg class="timeline">` element.
 *
 * @example
 * renderTimelineSvg(counterexample.trace.steps, { label: "ALM-002 on sqlite", divergentIndex: 4 })
 */
export const renderTimelineSvg = (steps: ReadonlyArray<StepRecord>, options: TimelineOptions): string => {
  const firstMs = steps.length === 0 ? 0 : Math.min(...steps.map((s) => s.virtualTimeMs))
  const lastMs = steps.length === 0 ? 0 : Math.max(...steps.map((s) => s.virtualTimeMs))
  const spanMs = lastMs - firstMs
  const intervalMs = tickIntervalMs(Math.max(spanMs, 1))
  const axisEndMs = spanMs === 0 ? intervalMs : Math.ceil(spanMs / intervalMs) * intervalMs
  const plotWidth = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
  const xOf = (timeMs: number): number => MARGIN_LEFT + ((timeMs - firstMs) / axisEndMs) * plotWidth
  const marks = placeMarks(steps, xOf)
  const lanes = Math.max(1, ...marks.map((m) => m.lane + 1))
  const axisY = MARGIN_TOP + lanes * LANE_HEIGHT + AXIS_GAP
  const height = axisY + AXIS_LABEL_SPACE

  const parts: Array<string> = []
  const id = options.id === undefined ? "" : ` id="${escapeHtml(options.id)}"`
  parts.push(
    `<svg class="timeline"${id} xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="${escapeHtml(options.label)}">`,
    `<title>${escapeHtml(options.label)}</title>`,
    `<rect class="tl-bg" x="0" y="0" width="${WIDTH}" height="${height}" rx="6"/>`
  )
  // Axis and ticks.
  parts.push(`<line class="tl-axis" x1="${MARGIN_LEFT}" y1="${axisY}" x2="${WIDTH - MARGIN_RIGHT}" y2="${axisY}"/>`)
  // All steps at one instant: a single "+0s" tick rather than a made-up scale.
  const tickCount = spanMs === 0 ? 0 : Math.round(axisEndMs / intervalMs)
  for (let tick = 0; tick <= tickCount && tick <= MAX_TICKS * 2; tick++) {
    const x = xOf(firstMs + tick * intervalMs)
    parts.push(
      `<line class="tl-grid" x1="${n(x)}" y1="${MARGIN_TOP - 6}" x2="${n(x)}" y2="${axisY}"/>`,
      `<line class="tl-tick" x1="${n(x)}" y1="${axisY}" x2="${n(x)}" y2="${axisY + 5}"/>`,
      `<text class="tl-tick-label" x="${n(x)}" y="${axisY + 19}" text-anchor="middle">${escapeHtml(formatOffsetMs(tick * intervalMs))}</text>`
    )
  }
  // Drop lines first, so marks and their (haloed) labels are drawn over them.
  for (const mark of marks) {
    const y = MARGIN_TOP + mark.lane * LANE_HEIGHT + LANE_HEIGHT / 2
    const fault = mark.step.fault === undefined ? "" : " tl-drop-fault"
    parts.push(`<line class="tl-drop${fault}" x1="${n(mark.x)}" y1="${n(y)}" x2="${n(mark.x)}" y2="${axisY}"/>`)
  }
  // Marks, in step order.
  for (const mark of marks) {
    const { step } = mark
    const y = MARGIN_TOP + mark.lane * LANE_HEIGHT + LANE_HEIGHT / 2
    const divergent = step.index === options.divergentIndex
    const classes = ["tl-mark", step.fault === undefined ? "" : "tl-fault", divergent ? "tl-divergent" : ""].filter((c) => c !== "").join(" ")
    const tooltip = [
      `step ${step.index}: ${step.operation} ${compactJson(step.args, 200)}`,
      `virtual time ${formatOffsetMs(step.virtualTimeMs - firstMs)} (${formatEpochMs(step.virtualTimeMs)})`,
      step.fault === undefined ? "" : `fault: ${step.fault}`,
      `implementation: ${compactJson(step.implementation, 160)}`,
      `model: ${compactJson(step.model, 160)}`,
      divergent ? "implementation and model diverge here" : ""
    ]
      .filter((line) => line !== "")
      .join("\n")
    const shape =
      step.fault !== undefined
        ? `<path class="tl-shape" d="M ${n(mark.x)} ${n(y - 7)} L ${n(mark.x + 7)} ${n(y)} L ${n(mark.x)} ${n(y + 7)} L ${n(mark.x - 7)} ${n(y)} Z"/>`
        : `<circle class="tl-shape" cx="${n(mark.x)}" cy="${n(y)}" r="${divergent ? 6.5 : 5}"/>`
    const ring = divergent ? `<circle class="tl-ring" cx="${n(mark.x)}" cy="${n(y)}" r="10.5"/>` : ""
    const labelX = mark.labelLeft ? mark.x - 12 : mark.x + 12
    const anchor = mark.labelLeft ? "end" : "start"
    const body =
      ring +
      shape +
      `<text class="tl-label" x="${n(labelX)}" y="${n(y + 4)}" text-anchor="${anchor}">${escapeHtml(mark.label)}</text>`
    const inner = `<g class="${classes}" data-step="${step.index}"><title>${escapeHtml(tooltip)}</title>${body}</g>`
    parts.push(options.stepIdPrefix === undefined ? inner : `<a href="#${escapeHtml(`${options.stepIdPrefix}${step.index}`)}">${inner}</a>`)
  }
  parts.push("</svg>")
  return parts.join("")
}

/** True when every step happens at the same virtual time (or there is at most one step). */
export const isSingleInstant = (steps: ReadonlyArray<StepRecord>): boolean => new Set(steps.map((step) => step.virtualTimeMs)).size <= 1

/** Most steps listed by `renderInstantList` (minimized counterexamples are far shorter). */
const MAX_LISTED_STEPS = 500

/**
 * Renders steps that all happen at one virtual time as an ordered list (`<ol class="tl-list">`), one
 * item per step in execution order with its operation and arguments, faults and the divergent step
 * marked: an axis would have nothing to show but one point.
 *
 * @example
 * renderInstantList(counterexample.trace.steps, { label: "ADP-001 on sqlite", divergentIndex: 3 })
 */
export const renderInstantList = (steps: ReadonlyArray<StepRecord>, options: TimelineOptions): string => {
  const at = steps[0] === undefined ? "" : `${formatOffsetMs(0)} (${formatEpochMs(steps[0].virtualTimeMs)})`
  const words = steps.length === 0 ? "No steps were recorded." : steps.length === 1 ? `One step, at virtual time ${at}:` : `All ${steps.length} steps happen at the same virtual time, ${at}, in this order:`
  const lead = `<p class="tl-instant">${escapeHtml(words)}</p>`
  const items = steps.slice(0, MAX_LISTED_STEPS).map((step) => {
    const divergent = step.index === options.divergentIndex
    const classes = ["tl-item", step.fault === undefined ? "" : "tl-fault", divergent ? "tl-divergent" : ""].filter((c) => c !== "").join(" ")
    const name = `<code>${escapeHtml(step.operation)}</code>`
    const linked = options.stepIdPrefix === undefined ? name : `<a href="#${escapeHtml(`${options.stepIdPrefix}${step.index}`)}">${name}</a>`
    const fault = step.fault === undefined ? "" : ` <span class="fault-note">⚡ fault: ${escapeHtml(step.fault)}</span>`
    const note = divergent ? ` <span class="div-note">⟵ implementation and model diverge here</span>` : ""
    return `<li class="${classes}" value="${step.index}" data-step="${step.index}">${linked} <span class="tl-args">${escapeHtml(compactJson(step.args, 160))}</span>${fault}${note}</li>`
  })
  const more = steps.length > MAX_LISTED_STEPS ? `<p class="tl-instant">${steps.length - MAX_LISTED_STEPS} more steps in the step table</p>` : ""
  const id = options.id === undefined ? "" : ` id="${escapeHtml(options.id)}"`
  return `<div class="tl-instant-timeline"${id} role="group" aria-label="${escapeHtml(options.label)}">${lead}<ol class="tl-list">${items.join("")}</ol>${more}</div>`
}

/**
 * The timeline of a counterexample: an ordered list when every step shares one virtual time
 * (`renderInstantList`), else the SVG over virtual time (`renderTimelineSvg`).
 */
export const renderTimeline = (steps: ReadonlyArray<StepRecord>, options: TimelineOptions): string =>
  isSingleInstant(steps) ? renderInstantList(steps, options) : renderTimelineSvg(steps, options)
