/**
 * Swarm testing (Groce et al., ISSTA 2012) for the alarms scenarios: each scenario draws its own
 * profile, a subset of the chunk kinds (operations and timelines) it may use and its own value
 * ranges (which alarms of the id space, how far deadlines reach, how wide cursors spread), so a
 * combination that is rare under one fixed distribution (two configure commands around a restart;
 * one alarm written by every kind of call; cursors that keep colliding) is common in some scenarios.
 *
 * Shrinking: the profile does not shrink (`fc.noShrink`); the commands do. The profile only steers
 * generation and the counterexample is the command list, which shrinks by removing chunks, and so
 * toward fewer kinds by itself. Shrinking the profile would not help: fast-check's `chain` regenerates
 * the whole command list from scratch for each shrunk source, and accepts any regenerated scenario that
 * still fails, so it can trade a short counterexample for a longer one (measured: a parking bug's
 * 7-step counterexample became 23 steps). Pinning the profile keeps the shrinking the generator had
 * before swarm. (Were it shrunk, it would shrink toward the full profile: `fc.option` to null.)
 */
import * as fc from "fast-check"
import type { RefSpec } from "./scenario.ts"

/** Every chunk kind a profile can switch off (see `chunkEntries` in arbitraries.ts). */
export const CHUNK_KINDS = [
  "schedule",
  "cancel",
  "status",
  "transaction",
  "dispatch",
  "advanceToNextWake",
  "advanceBy",
  "configure",
  "restart",
  "failingTimeline",
  "rearmTimeline",
  "orderTimeline",
  "cursorTimeline",
  "sameRowTimeline",
  "batchTimeline",
  "cancelTimeline",
  "failureActionTimeline",
  "parkUndoTimeline",
  "redelivery",
  "typedTimeline",
  "boundaryTimeline",
  "twoInvalidInputs",
  "writeOrderTimeline",
  "cursorPassesTimeline",
  "parkedCrossRowTimeline",
  "handleMisuseTimeline"
] as const

/** One chunk kind a profile can switch off. */
export type ChunkKind = typeof CHUNK_KINDS[number]

/**
 * Chunk kinds no profile switches off, added after the swarm profiles existed: a kind added to
 * `CHUNK_KINDS` would lengthen every profile's draw and shift every scenario after it, the fault-free
 * property's included, so these stay outside the profile (each appears only in the shapes it fits).
 */
export const ALWAYS_ON_KINDS = ["statementFaultTimeline"] as const

/** A chunk kind: one a profile can switch off, or one always on. */
export type AnyChunkKind = ChunkKind | typeof ALWAYS_ON_KINDS[number]

/** How far generated deadlines reach from the clock. */
export type DeadlineRange = "default" | "near" | "far"

/** A scenario's swarm profile. */
export interface SwarmProfile {
  /** Kinds this scenario never draws (never all of them). */
  readonly off: ReadonlySet<ChunkKind>
  /** The alarms of the id space this scenario's single commands and handlers use (non-empty). */
  readonly refs: ReadonlyArray<RefSpec>
  readonly deadlines: DeadlineRange
  /** Cursors from {0, 1} only, so equal and replayed cursors are common. */
  readonly tightCursors: boolean
}

/** The profile of a scenario without swarm: every kind, every alarm, default ranges. */
export const fullProfile = (refs: ReadonlyArray<RefSpec>): SwarmProfile => ({ off: new Set(), refs, deadlines: "default", tightCursors: false })

/**
 * Swarm profiles over the alarms `refs`: in about two scenarios of three a restricted profile (each
 * kind off with probability 1/2, a run of 1..n consecutive alarms, a deadline range, tight cursors),
 * otherwise the full profile. Shrinks toward the full profile.
 *
 * @example fc.sample(swarmProfile(VALID_REFS), 1)[0].off.size // 0..CHUNK_KINDS.length - 1
 */
export const swarmProfile = (refs: ReadonlyArray<RefSpec>): fc.Arbitrary<SwarmProfile> =>
  fc.option(
    fc.record({
      // false shrinks first: a kind shrinks toward "on".
      off: fc.array(fc.boolean(), { minLength: CHUNK_KINDS.length, maxLength: CHUNK_KINDS.length }),
      // How many alarms are left out (0: all), and where the kept run starts.
      leftOut: fc.nat({ max: refs.length - 1 }),
      start: fc.nat({ max: refs.length - 1 }),
      deadlines: fc.constantFrom<DeadlineRange>("default", "near", "far"),
      tightCursors: fc.boolean()
    }),
    { freq: 3, nil: null }
  ).map((drawn): SwarmProfile => {
    if (drawn === null) return fullProfile(refs)
    const off = new Set(CHUNK_KINDS.filter((_kind, index) => drawn.off[index] === true))
    const kept = refs.length - drawn.leftOut
    return {
      off: off.size === CHUNK_KINDS.length ? new Set() : off,
      refs: Array.from({ length: kept }, (_unused, index) => refs[(drawn.start + index) % refs.length]!),
      deadlines: drawn.deadlines,
      tightCursors: drawn.tightCursors
    }
  })
