/**
 * Small text helpers shared by the report writers: durations, virtual times, compact JSON, verdict
 * words and counts, and the replay command.
 */
import type { AdapterResult, RequirementResult, Verdict, VerdictCounts } from "../harness/RunResult.ts"

/** Verdicts in the order every writer lists them. */
export const VERDICTS: ReadonlyArray<Verdict> = ["pass", "fail", "not-applicable", "unknown", "error"]

/** Short human words for verdicts, as shown in badges and tables. */
export const VERDICT_LABEL: Readonly<Record<Verdict, string>> = {
  pass: "pass",
  fail: "FAIL",
  "not-applicable": "n/a",
  unknown: "unknown",
  error: "ERROR"
}

/**
 * A word as a POSIX shell reads it back unchanged: as is when it is plain, else single-quoted.
 *
 * @example
 * shellWord("./my-adapter.ts")  // "./my-adapter.ts"
 * shellWord("./my adapter.ts")  // "'./my adapter.ts'"
 */
export const shellWord = (word: string): string => (/^[A-Za-z0-9_./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)

/** The module paths a token records (`adapterModule`, `implementationModule`); empty when it names none or does not parse. */
const tokenModules = (replayToken: string): { readonly adapterModule?: unknown; readonly implementationModule?: unknown } => {
  const body = replayToken.trim().split(".")[1]
  if (body === undefined || !/^[A-Za-z0-9_-]*$/.test(body)) return {}
  try {
    const payload: unknown = JSON.parse(Buffer.from(body, "base64url").toString("utf8"))
    return typeof payload === "object" && payload !== null ? payload : {}
  } catch {
    return {}
  }
}

/**
 * The command that replays a counterexample from its token, with the modules the token names: a
 * module adapter as `--adapter <path>`, a bound implementation as `--bind <path>` (replay imports only
 * modules named on its command line, and checks they are the ones the token names).
 *
 * @example
 * replayCommand(token) // "npx durable-conformance replay dc1.… --adapter ./my-adapter.ts"
 */
export const replayCommand = (replayToken: string): string => {
  const { adapterModule, implementationModule } = tokenModules(replayToken)
  const words = ["npx durable-conformance replay", replayToken]
  if (typeof adapterModule === "string") words.push("--adapter", shellWord(adapterModule))
  if (typeof implementationModule === "string") words.push("--bind", shellWord(implementationModule))
  return words.join(" ")
}

const UNITS: ReadonlyArray<readonly [string, number]> = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1_000],
  ["ms", 1]
]

/**
 * A duration in its two most significant non-zero units (the rest is dropped, not rounded).
 *
 * @example
 * formatDurationMs(5_400_000) // "1h30m"
 * formatDurationMs(3_605_000) // "1h5s"
 * formatDurationMs(250)       // "250ms"
 * formatDurationMs(0)         // "0s"
 */
export const formatDurationMs = (durationMs: number): string => {
  if (!Number.isFinite(durationMs)) return String(durationMs)
  const sign = durationMs < 0 ? "-" : ""
  let rest = Math.round(Math.abs(durationMs))
  if (rest === 0) return "0s"
  const parts: Array<string> = []
  for (const [unit, sizeMs] of UNITS) {
    if (parts.length === 2) break
    const amount = Math.floor(rest / sizeMs)
    if (amount > 0) {
      parts.push(`${amount}${unit}`)
      rest -= amount * sizeMs
    }
  }
  return `${sign}${parts.join("")}`
}

/** A virtual time relative to the first step, e.g. `+1h`, `+0s`. */
export const formatOffsetMs = (offsetMs: number): string => (offsetMs < 0 ? formatDurationMs(offsetMs) : `+${formatDurationMs(offsetMs)}`)

/** An absolute virtual time (epoch ms) as ISO 8601, or the raw number when out of the Date range. */
export const formatEpochMs = (epochMs: number): string => {
  const date = new Date(epochMs)
  return Number.isNaN(date.getTime()) ? String(epochMs) : date.toISOString()
}

/** Compact one-line JSON cut to `maxChars` (with `…`); `undefined` reads as `—`. */
export const compactJson = (value: unknown, maxChars = 400): string => {
  if (value === undefined) return "—"
  const text = JSON.stringify(value) ?? String(value)
  return text.length > maxChars ? `${text.slice(0, Math.max(0, maxChars - 1))}…` : text
}

/** Counts verdicts over requirement results. */
export const countVerdicts = (requirements: ReadonlyArray<RequirementResult>): VerdictCounts => {
  const counts = { pass: 0, fail: 0, "not-applicable": 0, unknown: 0, error: 0 }
  for (const requirement of requirements) counts[requirement.verdict]++
  return counts
}

/** A failing (or erroring) requirement together with the adapter it failed on. */
export interface FailureOnAdapter {
  readonly adapter: AdapterResult
  readonly requirement: RequirementResult
}

/** Every `fail` result of the report, adapter by adapter, in report order. */
export const failuresOf = (adapters: ReadonlyArray<AdapterResult>): ReadonlyArray<FailureOnAdapter> =>
  adapters.flatMap((adapter) => adapter.requirements.filter((r) => r.verdict === "fail").map((requirement) => ({ adapter, requirement })))

/** The headline of a set of verdicts: `fail` on any fail or error, `incomplete` on any unknown, else `pass`. */
export type OverallStatus = "pass" | "fail" | "incomplete"

/** Folds verdict counts into the headline status. */
export const overallStatus = (counts: VerdictCounts): OverallStatus =>
  counts.fail > 0 || counts.error > 0 ? "fail" : counts.unknown > 0 ? "incomplete" : "pass"

/** The one-sentence explanation of a failed requirement (the divergence's, or the reason). */
export const explanationOf = (requirement: RequirementResult): string => {
  const divergence = requirement.counterexample?.divergence
  if (divergence === undefined) return requirement.reason
  const also = divergence.alsoRequirementIds ?? []
  return also.length === 0
    ? divergence.explanation
    : `${divergence.explanation} [attribution ambiguous: the same disagreement also violates ${also.join(", ")}]`
}
