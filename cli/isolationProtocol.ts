/**
 * The messages between the CLI and the child process that runs a vendor's adapter module
 * (`cli/isolation.ts` on the CLI's side, `cli/isolationChild.ts` in the child). Plain JSON over
 * Node's IPC channel; the child answers one request at a time, sending `phase` and `progress` events
 * while a property runs so the CLI's watchdog can tell a slow run from a stuck one.
 */
import type { AdapterCapabilities, AdapterFingerprint, Dialect } from "../adapters/contract.ts"
import type { AdapterPhase } from "../harness/Deadline.ts"
import type { PropertyRun } from "../harness/RunResult.ts"
import type { RunProgress } from "../harness/Runner.ts"

/** An error crossing the process boundary: a tagged error keeps its tag and hint, anything thrown is `Defect`. */
export interface WireError {
  readonly tag: string
  /** For `Defect`: the thrown error's name (`TypeError`, ...). */
  readonly name?: string
  readonly message: string
  readonly hint?: string
}

/** One property run asked of the child (a `HostedRunRequest` without its callback). */
export interface WireRunRequest {
  readonly propertyId: string
  readonly implementation: string
  readonly seed: number
  readonly runs: number
  readonly timeLimitMs?: number
  readonly runTimeoutMs?: number
  readonly stopAfterFailures?: number
  readonly checkDeterminism?: boolean
}

/** What the CLI asks of the child. */
export type ToChild =
  | { readonly type: "load"; readonly specifier: string; readonly cwd: string; readonly implementation?: string }
  | { readonly type: "make" }
  | { readonly type: "run"; readonly request: WireRunRequest }
  | { readonly type: "close" }

/** A progress event of the running request (never its answer). */
export type ChildEvent =
  | { readonly type: "phase"; readonly phase: AdapterPhase }
  | { readonly type: "progress"; readonly progress: RunProgress }

/** The answer to a request. */
export type ChildAnswer =
  | { readonly type: "loaded"; readonly name: string; readonly description: string }
  | {
    readonly type: "made"
    readonly name: string
    readonly dialect: Dialect
    readonly capabilities: AdapterCapabilities
    readonly fingerprint: AdapterFingerprint
  }
  | { readonly type: "ran"; readonly run: PropertyRun }
  | { readonly type: "closed" }
  | { readonly type: "failed"; readonly error: WireError }

/** Everything the child sends. */
export type FromChild = ChildEvent | ChildAnswer

/** True for the events that are not an answer. */
export const isChildEvent = (message: FromChild): message is ChildEvent => message.type === "phase" || message.type === "progress"

/** Encodes any error for the wire: tagged errors (`AdapterError`, `UsageError`, ...) keep tag and hint. */
export const encodeError = (error: unknown): WireError => {
  const tagged = error as { readonly _tag?: unknown; readonly message?: unknown; readonly hint?: unknown }
  if (typeof error === "object" && error !== null && typeof tagged._tag === "string") {
    return { tag: tagged._tag, message: String(tagged.message), ...(typeof tagged.hint === "string" ? { hint: tagged.hint } : {}) }
  }
  if (error instanceof Error) return { tag: "Defect", name: error.name, message: error.message }
  return { tag: "Defect", name: "Error", message: String(error) }
}
