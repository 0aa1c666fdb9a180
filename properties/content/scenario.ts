/**
 * Content scenarios: plain JSON commands over small index spaces (payload, tenant, actor, blob, name,
 * wallet entry), so they shrink and replay exactly. The harness resolves indexes against the fixed
 * world (`config.ts`) and against what the run has produced (the wallet of grants).
 */
import type { StorageFault } from "../../harness/Faults.ts"
import type { StepSchedule } from "../../harness/StepSchedule.ts"

/** Where an attachment lives, as indexes. */
export interface PlaceSpec {
  readonly tenant: number
  readonly actor: number
  readonly blob: number
  readonly name: number
}

/** How a wallet grant is misused at attach or verify. */
export type Misuse = "none" | "otherTenant" | "wrongSize" | "wrongHash" | "malformed"

/**
 * How the harness changes a signed grant's text before an attach or verify hands it over (drawn
 * after the commands): a `.`-part appended, a character appended, the last character dropped, or one
 * character in its middle replaced by another of the same class (digit, lower, upper case). None of
 * them is the text the store signed, whatever its encoding.
 */
export type Tamper = "appendedPart" | "appendedChar" | "truncated" | "flipped"

/** Every tampering, in draw order. */
export const TAMPERS: ReadonlyArray<Tamper> = ["appendedPart", "appendedChar", "truncated", "flipped"]

/** Commands that may race a sweep. */
export type RacingCommand =
  | { readonly op: "upload"; readonly tenant: number; readonly payload: number }
  | { readonly op: "grant"; readonly tenant: number; readonly payload: number }
  /** A fresh grant of `payload` in the place's tenant, then an attach under it. */
  | (PlaceSpec & { readonly op: "attach"; readonly payload: number })
  | (PlaceSpec & { readonly op: "detach" })

/**
 * How a race is released: `between` (the racing operation runs between the sweep's first reference
 * scan and its delete), `after` (after the sweep), `racerStarted` (the racing operation starts, pauses
 * at its first hook point while the whole sweep runs, then goes on), and on engines with row locks `deleteHoldsLock`
 * (the delete holds its row locks while the racing operation runs into them) and `raiseHoldsLock`
 * (the raise holds its row lock while the delete runs into it), `raiseMidTransaction` (the racer's
 * transaction is held right after its first write to the content row, before its next statement, while
 * the whole sweep runs: an upsert that took no lock there lets the sweep delete the row),
 * `readThenWrite` (the racer is held after it read a content row outside any transaction, before the
 * next write it begins, while the whole sweep runs: a grant that looks the row up and then raises it in
 * a second statement must not sign for the row the sweep deleted between them). `scheduled`: the generated step
 * schedule (`schedule`, uniform or PCT, `harness/StepScheduler.ts`) orders the two operations' steps.
 */
export type RaceMode = "between" | "after" | "racerStarted" | "deleteHoldsLock" | "raiseHoldsLock" | "raiseMidTransaction" | "readThenWrite" | "scheduled"

/** One generated command. */
export type Command =
  | { readonly op: "upload"; readonly tenant: number; readonly payload: number; readonly stream: boolean; readonly limit?: number; readonly bodyFails?: boolean; readonly fault?: StorageFault }
  | { readonly op: "grant"; readonly tenant: number; readonly payload: number; readonly sizeDelta: number; readonly fault?: StorageFault }
  | { readonly op: "forge"; readonly tenant: number; readonly payload: number }
  | (PlaceSpec & { readonly op: "attach"; readonly wallet: number; readonly misuse: Misuse; readonly tamper?: Tamper; readonly fault?: StorageFault })
  | (PlaceSpec & { readonly op: "detach"; readonly fault?: StorageFault })
  /** `fault`: a `readFails` fault (targeted units only: a read's storage fails, K7). */
  | { readonly op: "read"; readonly tenant: number; readonly payload: number; readonly sizeDelta: number; readonly fault?: StorageFault }
  /** `sizeDelta` (absent: 0) asks for a size the content does not have (`wrongSizeStreams`). */
  | { readonly op: "stream"; readonly tenant: number; readonly payload: number; readonly interrupt: boolean; readonly sizeDelta?: number }
  | { readonly op: "verify"; readonly wallet: number; readonly misuse: Misuse; readonly tamper?: Tamper }
  | { readonly op: "sweep"; readonly force: boolean; readonly fault?: StorageFault }
  | { readonly op: "race"; readonly force: boolean; readonly competitor: RacingCommand; readonly mode: RaceMode; readonly schedule?: StepSchedule }
  | { readonly op: "advance"; readonly ms: number }
  | { readonly op: "advanceNear"; readonly target: "expiry" | "deletion"; readonly index: number; readonly offsetMs: number }
  /**
   * A restarted process; with `turnMs`, a deploy whose process registers the actor type with that turn
   * budget (content.md "Parameters": the recorded T is the largest registered, it only grows).
   */
  | { readonly op: "restart"; readonly turnMs?: number }
  /** A stream started and held after its first part while the next commands run (`heldStream.ts`). */
  | { readonly op: "streamOpen"; readonly tenant: number; readonly payload: number }
  /** The held stream read to its end (none held: nothing happens). */
  | { readonly op: "streamRest" }

/**
 * Store parameters a scenario sets other than the properties' own (`PROPERTY_SETTINGS`): a short grant
 * lifetime L or a long turn T, or the reference's chunk size and size limit in place of the small ones
 * (content.md "Parameters"). Both sides take them: the store's settings and the model's config; a value
 * that is the reference's is left to the implementation's default (`storeSettingsOf`).
 */
export interface ContentParameters {
  readonly grantLifetimeMs?: number
  readonly turnMs?: number
  readonly chunkBytes?: number
  readonly maxContentBytes?: number
}

/** A content scenario. */
export interface ContentScenario {
  readonly commands: ReadonlyArray<Command>
  /** Absent: the reference's parameters. */
  readonly parameters?: ContentParameters
}
