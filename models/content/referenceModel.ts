/**
 * The content reference model as a `ReferenceModel` (porcupine's five functions): pure, synchronous,
 * no Effect, no I/O.
 *
 * @example
 * const state = contentModel.init(PROPERTY_CONFIG)
 * const { state: next, result } = contentModel.step(state, { kind: "read", tenant: "t1", hash, size: 3 })
 */
import type { ReferenceModel } from "../../harness/ReferenceModel.ts"
import type { ContentOperation, RacingOperation } from "./operations.ts"
import { type ContentModelConfig, type ContentModelState, initialContentState } from "./state.ts"
import { type ContentStepOutcome, contentStep } from "./step.ts"

/** Upstream's parameters: L 1 h, G 24 h, S 60 s, T 30 s, 1 MiB chunks, 64 MiB max, batch 500, 100 tenants, hourly. */
export const DEFAULT_MODEL_CONFIG: ContentModelConfig = {
  grantLifetimeMs: 3_600_000,
  graceMs: 86_400_000,
  skewMs: 60_000,
  turnMs: 30_000,
  chunkBytes: 1024 * 1024,
  maxContentBytes: 64 * 1024 * 1024,
  sweepBatch: 500,
  sweepTenants: 100,
  sweepIntervalMs: 3_600_000
}

/** What the implementation can be compared on: content rows, references and sweep registrations. */
export interface ContentObservable {
  readonly contents: Readonly<Record<string, { readonly size: number; readonly grantedUntilMs: number }>>
  readonly refs: ReadonlyArray<string>
  readonly sweptAtMs: Readonly<Record<string, number>>
}

const short = (hash: string): string => hash.slice(0, 8)

/** The observable part of a state. */
export const observableOf = (state: ContentModelState): ContentObservable => ({
  contents: Object.fromEntries(Object.entries(state.contents).sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, content]) => [key, { size: content.size, grantedUntilMs: content.grantedUntilMs }])),
  refs: Object.values(state.refs).map((ref) => `${ref.tenant}/${ref.actor}/${ref.blob}/${ref.name}->${ref.hash}/${ref.size}`).sort(),
  sweptAtMs: { ...state.sweptAtMs }
})

/** One line naming an operation. */
export const describeContentOperation = (op: ContentOperation): string => {
  switch (op.kind) {
    case "uploadBytes":
    case "uploadStream":
    case "grant":
    case "read":
    case "stream":
    case "verify":
      return `${op.kind}(${op.tenant}, ${short(op.hash)}, ${op.size})`
    case "attach":
    case "detach":
      return `${op.kind}(${op.tenant}/${op.actor}/${op.blob}/${op.name})`
    case "sweep":
      return `sweep(${op.force ? "forced" : "hourly"})${op.competitor === undefined ? "" : ` racing ${describeRacing(op.competitor.operation)}`}`
  }
}

const describeRacing = (op: RacingOperation): string =>
  op.kind === "grantAndAttach" ? `grant and attach(${op.tenant}/${op.actor}/${op.blob}/${op.name} -> ${short(op.hash)})` : describeContentOperation(op)

/** The content model. */
export const contentModel: ReferenceModel<ContentModelState, ContentOperation, ContentStepOutcome, ContentModelConfig, ContentObservable> = {
  name: "content-model",
  description: "tenant content store and sweep (@rikalabs/akter 0.1.0-alpha.0 content store; reference/content.md K1-K7, (i)-(iii))",
  init: (config) => initialContentState(config ?? DEFAULT_MODEL_CONFIG),
  step: contentStep,
  describeOperation: describeContentOperation,
  describeState: (state) =>
    [
      `contents: ${Object.values(state.contents).map((c) => `${c.tenant}/${short(c.hash)} until ${c.grantedUntilMs}`).join(", ") || "none"}`,
      `refs: ${Object.keys(state.refs).join(", ") || "none"}`
    ].join("\n"),
  observableState: observableOf
}
