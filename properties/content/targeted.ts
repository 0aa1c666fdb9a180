/**
 * Targeted units: short command sequences appended after every other command of a content scenario,
 * reaching situations (`models/content/situations.ts`) that random commands rarely reach: a stored
 * content read with a size it does not have and streamed back (K7: `readSizeMismatch`, `streamStored`,
 * `streamInterrupted`), a fresh grant handed to attach or verify exactly at `expiresAt - S` (K5:
 * `grantExpiredAtSkewBoundary`), and a detach racing a sweep between its reference scan and its delete
 * (K6 (i): `sweepRaceDetach`); in fault scenarios also an upload whose transaction a crash or a lost
 * reply strikes, then read back (K2, "together": `faultInsideTransaction`, `faultAfterCommit`,
 * `faultLostReply`). Drawn after every other field of a scenario, so every earlier draw,
 * and every earlier counterexample, keeps its bytes. A second unit is drawn after the first, for the
 * same reason: a grant asked for stored content with another size, then with its own (K1, K4:
 * `grantSizeMismatch`, `grantRaisesHorizon`), a detach of a reference just attached (K5:
 * `detachExisting`), and in race scenarios an upload or a grant racing a sweep between its reference
 * scan and its delete ((iii): `sweepRaceUpload`). A third unit, drawn last, registers a longer and
 * then a shorter turn budget before a sweep near a deletion horizon ("Parameters": T only grows:
 * `sweepSparesWithinLongestRecordedTurn`), and in fault scenarios as often a read whose storage fails
 * (K7: `faultReadFailed`), and in race scenarios an upload held between its first write to the content
 * row and its next statement while a whole sweep runs (K2). A fourth unit of the race property, drawn
 * after all of those, holds a stream open after its first part while a sweep deletes its content, then
 * reads it to its end (K7: `streamHeldAcrossSweep`, `heldStream.ts`). Each unit uploads its own content first, so it
 * reaches its situation whatever the commands before it left.
 *
 * @example fc.sample(targetedCommands(MODEL_UNITS), 1) // [[{ op: "upload", ... }, { op: "read", ..., sizeDelta: 1 }, { op: "stream", ... }]]
 */
import * as fc from "fast-check"
import { ACTORS, BLOBS, NAMES, PAYLOADS, PROPERTY_SETTINGS, otherTenant, STREAM_TIMEOUT_MS, TENANTS } from "./config.ts"
import type { Command, PlaceSpec, RaceMode } from "./scenario.ts"

/** The kinds of targeted unit a content scenario may end with. */
export type ContentUnitKind = "readBack" | "expiryBoundary" | "detachRace" | "faultedUpload" | "grantOtherSize" | "detachAttached" | "uploadRace" | "deployedTurns" | "failedRead" | "uploadMidTransaction" | "streamAcrossSweep" | "grantReadThenWrite"

/** Relative weights of the kinds of unit a property's scenarios may end with, and the chance in 4 that one does. */
export interface TargetedShape {
  readonly weights: Readonly<Partial<Record<ContentUnitKind, number>>>
  readonly in4: number
}

/** The model property: a read-back or an expiry-boundary unit in half the scenarios. */
export const MODEL_UNITS: TargetedShape = { weights: { readBack: 1, expiryBoundary: 1 }, in4: 2 }

/** The fault property: as the model property's, or an upload a crash or a lost reply strikes. */
export const FAULT_UNITS: TargetedShape = { weights: { readBack: 1, expiryBoundary: 1, faultedUpload: 1 }, in4: 2 }

/** The race property: a detach racing a sweep in one scenario in four. */
export const RACE_UNITS: TargetedShape = { weights: { detachRace: 1 }, in4: 1 }

/**
 * The second unit of the model and fault properties, drawn after the first (`MODEL_UNITS`,
 * `FAULT_UNITS`), so every scenario drawn before it keeps its bytes: a grant asked again for a stored
 * content with another size, or a detach of a reference just attached, in half the scenarios.
 */
export const MODEL_SECOND_UNITS: TargetedShape = { weights: { grantOtherSize: 1, detachAttached: 1 }, in4: 2 }

/**
 * The third unit of the model and fault properties, drawn after the second (`MODEL_SECOND_UNITS`) so
 * every earlier draw keeps its bytes: deploys that register another turn budget, then a sweep near the
 * deletion horizon, in half the scenarios.
 */
export const MODEL_THIRD_UNITS: TargetedShape = { weights: { deployedTurns: 1 }, in4: 2 }

/** The third unit of the fault property: as the model property's, or twice as often a read whose storage fails, in three scenarios in four. */
export const FAULT_THIRD_UNITS: TargetedShape = { weights: { deployedTurns: 1, failedRead: 2 }, in4: 3 }

/**
 * The fourth unit of the race property, drawn after every other draw so every earlier draw keeps its
 * bytes: a stream held open across a sweep that deletes its content, on its own connection where the
 * adapter has independent ones (`heldStream.ts`), in one scenario in four.
 */
export const RACE_FOURTH_UNITS: TargetedShape = { weights: { streamAcrossSweep: 1 }, in4: 1 }

/**
 * The fifth unit of the race property, drawn after every other draw so every earlier draw keeps its
 * bytes: a grant of aged content held between a read of its row outside any transaction and its
 * write, while a whole sweep runs, in one scenario in four.
 */
export const RACE_FIFTH_UNITS: TargetedShape = { weights: { grantReadThenWrite: 1 }, in4: 1 }

/** The second unit of the race property, drawn after the first (`RACE_UNITS`): an upload or a grant racing a sweep in half the scenarios. */
export const RACE_SECOND_UNITS: TargetedShape = { weights: { uploadRace: 1 }, in4: 2 }

/**
 * The third unit of the race property, drawn after the second (`RACE_SECOND_UNITS`) so every earlier
 * draw keeps its bytes: an upload of aged content held between its first content-row write and its
 * next statement while a whole sweep runs, in half the scenarios.
 */
export const RACE_THIRD_UNITS: TargetedShape = { weights: { uploadMidTransaction: 1 }, in4: 2 }

/** Past every deletion horizon of a race's parameters (G + T + S under the longest T, 2 h), so the sweep has a candidate to scan. */
export const RACE_JUMP_MS = 2 * 24 * 3_600_000

/** Payloads within the store's size limit (`PAYLOADS`), so the unit's upload stores its bytes. */
const STORABLE = PAYLOADS.flatMap((bytes, index) => (bytes.byteLength <= PROPERTY_SETTINGS.maxContentBytes ? [index] : []))
// `uploadRace` ages a second storable payload beside the raced one.
if (STORABLE.length < 2) throw new Error(`content targeted units need at least 2 payloads within ${PROPERTY_SETTINGS.maxContentBytes} bytes, found ${STORABLE.length}`)

const tenant = fc.nat({ max: TENANTS.length - 1 })
const storable = fc.constantFrom(...STORABLE)
const place: fc.Arbitrary<Omit<PlaceSpec, "tenant">> = fc.record({ actor: fc.nat({ max: ACTORS.length - 1 }), blob: fc.nat({ max: BLOBS.length - 1 }), name: fc.nat({ max: NAMES.length - 1 }) })

const uploaded = (t: number, payload: number): Command => ({ op: "upload", tenant: t, payload, stream: false })

/** An upload read with one byte more than it has (none, K7), then streamed back whole and, half the time, interrupted too. */
const readBack: fc.Arbitrary<ReadonlyArray<Command>> = fc.record({ tenant, payload: storable, interruptToo: fc.boolean() })
  .map(({ tenant: t, payload, interruptToo }): ReadonlyArray<Command> => [
    uploaded(t, payload),
    { op: "read", tenant: t, payload, sizeDelta: 1 },
    { op: "stream", tenant: t, payload, interrupt: false },
    ...(interruptToo ? [{ op: "stream", tenant: t, payload, interrupt: true } as const] : [])
  ])

/** An upload, the clock moved to its grant's `expiresAt - S`, then the grant handed to attach or verify (expired, K5). */
const expiryBoundary: fc.Arbitrary<ReadonlyArray<Command>> = fc.record({ tenant, payload: storable, verify: fc.boolean(), at: place })
  .map(({ tenant: t, payload, verify, at }): ReadonlyArray<Command> => [
    uploaded(t, payload),
    { op: "advanceNear", target: "expiry", index: 0, offsetMs: -PROPERTY_SETTINGS.skewMs },
    verify ? { op: "verify", wallet: 0, misuse: "none" } : { op: "attach", ...at, tenant: t, wallet: 0, misuse: "none" }
  ])

/** An upload attached, aged past its deletion horizon, then a sweep racing the detach of that reference between its scan and its delete. */
const detachRace: fc.Arbitrary<ReadonlyArray<Command>> = fc.record({ tenant, payload: storable, at: place, force: fc.boolean() })
  .map(({ tenant: t, payload, at, force }): ReadonlyArray<Command> => [
    uploaded(t, payload),
    { op: "attach", ...at, tenant: t, wallet: 0, misuse: "none" },
    { op: "advance", ms: RACE_JUMP_MS },
    { op: "race", force, competitor: { op: "detach", ...at, tenant: t }, mode: "between" }
  ])

/** An upload whose one transaction a crash (inside, after its commit) or a lost reply strikes, then read back (kept or gone, whole). */
const faultedUpload: fc.Arbitrary<ReadonlyArray<Command>> = fc.record({ tenant, payload: storable, phase: fc.constantFrom("inside" as const, "afterCommit" as const, "lostReply" as const) })
  .map(({ tenant: t, payload, phase }): ReadonlyArray<Command> => [
    { op: "upload", tenant: t, payload, stream: false, fault: { transaction: 1, phase } },
    { op: "read", tenant: t, payload, sizeDelta: 0 }
  ])

/**
 * An upload, the clock moved on, a grant asked for that content with a size one byte off the stored
 * one, then with the stored size. K1: the content is `(tenant, sha256)` and its size is a fact of it;
 * K4: a grant binds the size and a wrong size is refused, so the first answers none and leaves
 * `granted_until` where the upload put it (moving the clock first makes a wrongful raise visible), and
 * the second raises it to `now + L`. The wrong size stays within the store's limit (`0..maxContentBytes`),
 * so no other rule (the size limit of K3) could decide the answer.
 */
const grantOtherSize: fc.Arbitrary<ReadonlyArray<Command>> = fc.record({ tenant, payload: storable, up: fc.boolean(), laterMs: fc.constantFrom(1_000, 30 * 60_000) })
  .map(({ tenant: t, payload, up, laterMs }): ReadonlyArray<Command> => {
    const size = PAYLOADS[payload]!.byteLength
    const sizeDelta = (up && size < PROPERTY_SETTINGS.maxContentBytes) || size === 0 ? 1 : -1
    return [
      uploaded(t, payload),
      { op: "advance", ms: laterMs },
      { op: "grant", tenant: t, payload, sizeDelta },
      { op: "grant", tenant: t, payload, sizeDelta: 0 }
    ]
  })

/**
 * An upload attached under its fresh grant (expiring at `now + L`, after `now + S`: accepted, K5), the
 * same place detached in the other tenant (K1, K5: references are per tenant, nothing goes), then that
 * reference detached (it existed: detach deletes it, K5), then detached again (gone).
 */
const detachAttached: fc.Arbitrary<ReadonlyArray<Command>> = fc.record({ tenant, payload: storable, at: place })
  .map(({ tenant: t, payload, at }): ReadonlyArray<Command> => [
    uploaded(t, payload),
    { op: "attach", ...at, tenant: t, wallet: 0, misuse: "none" },
    { op: "detach", ...at, tenant: otherTenant(t) },
    { op: "detach", ...at, tenant: t },
    { op: "detach", ...at, tenant: t }
  ])

/**
 * An unreferenced upload aged past its deletion horizon (four times in five beside another of the
 * same tenant, aged with it: `fc.option`'s default), then a sweep with an upload or a grant of that content racing it between its
 * reference scan and its delete, then the content read back. (iii): the raise comes first, so the
 * delete's re-check (K6, against `sweepStart - T - S`) keeps the row; content and chunks stay together,
 * so the read returns the bytes. With the other upload the one delete spares the raised content and
 * deletes the other (together: only the deleted row's chunks go). Under a race's short lifetime
 * (L = 10 s, `PARAMETER_VARIANTS`) the raise lands at `sweepStart + 10 s`, below `sweepStart - T + S`:
 * only the rule's bound keeps it.
 */
const uploadRace: fc.Arbitrary<ReadonlyArray<Command>> = fc.record({ tenant, payload: storable, racer: fc.constantFrom("upload" as const, "grant" as const), force: fc.boolean(), beside: fc.option(fc.nat({ max: STORABLE.length - 2 }), { nil: undefined }) })
  .map(({ tenant: t, payload, racer, force, beside }): ReadonlyArray<Command> => [
    uploaded(t, payload),
    ...(beside === undefined ? [] : [uploaded(t, STORABLE[(STORABLE.indexOf(payload) + 1 + beside) % STORABLE.length]!)]),
    { op: "advance", ms: RACE_JUMP_MS },
    { op: "race", force, competitor: { op: racer, tenant: t, payload }, mode: "between" },
    { op: "read", tenant: t, payload, sizeDelta: 0 }
  ])

/**
 * An unreferenced upload aged past its deletion horizon, then `racer` of the same content racing a
 * sweep (forced or not) released by `mode`, then the content read back.
 */
const agedContentRace = (racer: "upload" | "grant", mode: RaceMode): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.record({ tenant, payload: storable, force: fc.boolean() }).map(({ tenant: t, payload, force }): ReadonlyArray<Command> => [
    uploaded(t, payload),
    { op: "advance", ms: RACE_JUMP_MS },
    { op: "race", force, competitor: { op: racer, tenant: t, payload }, mode },
    { op: "read", tenant: t, payload, sizeDelta: 0 }
  ])

/**
 * An unreferenced upload aged past its deletion horizon, then the same bytes uploaded again while a
 * sweep runs, the upload's transaction held right after its first write to the content row
 * (`raiseMidTransaction`, on engines with row locks; elsewhere the upload runs between the sweep's scan
 * and its delete), then the content read back. K2: the upload is one transaction that leaves the row
 * with its chunks. When its first write takes the row's lock the delete waits and its re-check keeps
 * the raised row ((iii)); when it takes none (an insert that did nothing because the row exists) the
 * sweep deletes the row and the upload must write it and its chunks again: either way the read returns
 * the bytes.
 */
const uploadMidTransaction = agedContentRace("upload", "raiseMidTransaction")

/**
 * An unreferenced upload aged past its deletion horizon, then a grant of it racing a sweep, held after
 * it read the content row outside any transaction and before its next write (`readThenWrite`, on
 * engines with independent connections; elsewhere the grant runs between the sweep's scan and its
 * delete), then the content read back. K4: a grant raises an existing row or answers none, in one
 * step; a grant that looked the row up first, then raised a row the sweep deleted between the two,
 * would sign for content that is gone ((iii)).
 */
const grantReadThenWrite = agedContentRace("grant", "readThenWrite")

/** The longer turn budget a deploy registers (T = 2 h, above the reference's 30 s). */
const LONGER_TURN_MS = 2 * 3_600_000

/**
 * An upload, then deploys whose processes register the actor type with a longer turn budget, and
 * twice in three with a shorter one after it (the reference's 30 s, or 1 s), then the clock moved
 * near that content's deletion horizon and a sweep. "Parameters": T is the longest turn recorded and
 * only grows, so the horizon is `granted_until + G + 2 h + S` whatever was registered last: a sweep 30 s
 * or an hour before it keeps the content (past the shorter turn's horizon:
 * `sweepSparesWithinLongestRecordedTurn`), one at it deletes it (K6).
 */
const deployedTurns: fc.Arbitrary<ReadonlyArray<Command>> = fc.record({
  tenant,
  payload: storable,
  shorterMs: fc.constantFrom<number | undefined>(30_000, 1_000, undefined),
  offsetMs: fc.constantFrom(-30_000, -3_600_000, 0),
  force: fc.boolean()
}).map(({ tenant: t, payload, shorterMs, offsetMs, force }): ReadonlyArray<Command> => [
  uploaded(t, payload),
  { op: "restart", turnMs: LONGER_TURN_MS },
  ...(shorterMs === undefined ? [] : [{ op: "restart", turnMs: shorterMs } as const]),
  { op: "advanceNear", target: "deletion", index: 0, offsetMs },
  { op: "sweep", force }
])

/**
 * An upload, then a read of it whose first (two times in three) or second read outside any transaction fails before it runs
 * (`readFails`: a lost connection), then the same read again. K7 and the store's error handling: the
 * failed read fails with the storage error (it never answers None, which would say the content is
 * gone), and the next read returns the bytes (nothing changed). A store that reads once is not struck
 * by the second.
 */
const failedRead: fc.Arbitrary<ReadonlyArray<Command>> = fc.record({ tenant, payload: storable, statement: fc.constantFrom(1, 1, 2) })
  .map(({ tenant: t, payload, statement }): ReadonlyArray<Command> => [
    uploaded(t, payload),
    { op: "read", tenant: t, payload, sizeDelta: 0, fault: { transaction: 1, phase: "readFails", statement } },
    { op: "read", tenant: t, payload, sizeDelta: 0 }
  ])

/** Storable payloads of more than one chunk at the properties' chunk size, so a held stream has parts left to read. */
const MULTI_CHUNK = STORABLE.filter((index) => PAYLOADS[index]!.byteLength > PROPERTY_SETTINGS.chunkBytes)

/**
 * An unreferenced upload aged past its deletion horizon, streamed and held after its first part, a
 * forced sweep that deletes it, then the rest of the stream (K7: one snapshot, `heldStream.ts`).
 */
const streamAcrossSweep: fc.Arbitrary<ReadonlyArray<Command>> = fc.record({ tenant, payload: fc.constantFrom(...MULTI_CHUNK) })
  .map(({ tenant: t, payload }): ReadonlyArray<Command> => [
    uploaded(t, payload),
    { op: "advance", ms: RACE_JUMP_MS },
    { op: "streamOpen", tenant: t, payload },
    { op: "sweep", force: true },
    { op: "streamRest" }
  ])

/** How long `streamsHeldPastTimeout` holds a stream: a millisecond short of its timeout, a millisecond past it, or twice it. */
export const HELD_STREAM_MS: ReadonlyArray<number> = [STREAM_TIMEOUT_MS - 1, STREAM_TIMEOUT_MS + 1, 2 * STREAM_TIMEOUT_MS]

/**
 * In one model scenario in three, an upload of more than one chunk streamed and held after its first
 * part while virtual time moves on (`HELD_STREAM_MS`), then read on (K7: a stream "is interrupted
 * after the command timeout"; `heldStream.ts`). Not a weighted unit of `targetedCommands`: it is drawn
 * on its own after every other draw, so the draws before it stay as they were.
 */
export const streamsHeldPastTimeout: fc.Arbitrary<ReadonlyArray<Command>> = fc.tuple(
  fc.nat({ max: 2 }),
  fc.record({ tenant, payload: fc.constantFrom(...MULTI_CHUNK), heldMs: fc.constantFrom(...HELD_STREAM_MS) })
).map(([roll, unit]): ReadonlyArray<Command> =>
  roll !== 0 ? [] : [
    uploaded(unit.tenant, unit.payload),
    { op: "streamOpen", tenant: unit.tenant, payload: unit.payload },
    { op: "advance", ms: unit.heldMs },
    { op: "streamRest" }
  ]
)

const UNITS: Readonly<Record<ContentUnitKind, fc.Arbitrary<ReadonlyArray<Command>>>> = { readBack, expiryBoundary, detachRace, faultedUpload, grantOtherSize, detachAttached, uploadRace, deployedTurns, failedRead, uploadMidTransaction, streamAcrossSweep, grantReadThenWrite }

/**
 * The commands a scenario ends with: a unit of `shape.weights` in `shape.in4` scenarios out of 4, none
 * in the others. The roll shrinks to 0, which drops the unit.
 */
export const targetedCommands = (shape: TargetedShape): fc.Arbitrary<ReadonlyArray<Command>> => {
  const units = Object.entries(shape.weights).flatMap(([kind, weight]) => (weight !== undefined && weight > 0 ? [{ arbitrary: UNITS[kind as ContentUnitKind], weight }] : []))
  if (shape.in4 <= 0 || units.length === 0) return fc.constant([])
  return fc.tuple(fc.nat({ max: 3 }), fc.oneof(...units)).map(([roll, unit]) => (roll >= 4 - shape.in4 ? unit : []))
}
