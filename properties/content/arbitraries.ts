/**
 * fast-check arbitraries of content scenarios. Generation favours what the guarantee is about:
 * the same payloads in several tenants, grants used at the edge of their expiry (advance to just
 * before or after `expiresAt - S`), sweeps at the edge of the deletion horizon (advance to just before
 * or after `granted_until + G + T + S`), jumps of hours and days, forged, foreign, mis-sized and
 * malformed grants, and in race scenarios a sweep racing an upload, a grant, a grant-and-attach or a
 * detach of content that is a sweep candidate.
 */
import * as fc from "fast-check"
import type { AdapterCapabilities } from "../../adapters/contract.ts"
import { storageFaultArbitrary, type StorageFault } from "../../harness/Faults.ts"
import { stepScheduleArbitrary } from "../../harness/StepSchedule.ts"
import { ACTORS, BLOBS, DRAWN_PAYLOADS, NAMES, PARAMETER_VARIANTS, PAYLOADS, PROPERTY_SETTINGS, otherTenant, TENANTS } from "./config.ts"
import { withStatementFaults } from "../../harness/StatementFaultDraws.ts"
import { RACE_INTERLEAVING } from "./race.ts"
import { referenceSizes } from "./referenceSizes.ts"
import { contentStatementFaults } from "./statementFaults.ts"
import { FAULT_THIRD_UNITS, FAULT_UNITS, MODEL_SECOND_UNITS, MODEL_THIRD_UNITS, MODEL_UNITS, RACE_FIFTH_UNITS, RACE_FOURTH_UNITS, RACE_SECOND_UNITS, RACE_THIRD_UNITS, RACE_UNITS, streamsHeldPastTimeout, targetedCommands } from "./targeted.ts"
import { type Command, type ContentParameters, type ContentScenario, type Misuse, type PlaceSpec, type RaceMode, type RacingCommand, TAMPERS } from "./scenario.ts"

/** What a generator may include. */
export interface ContentShape {
  readonly faults: boolean
  readonly races: boolean
  readonly maxCommands: number
}

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

const tenant = fc.nat({ max: TENANTS.length - 1 })
const payload = fc.nat({ max: DRAWN_PAYLOADS - 1 })
const place: fc.Arbitrary<PlaceSpec> = fc.record({
  tenant,
  actor: fc.nat({ max: ACTORS.length - 1 }),
  blob: fc.nat({ max: BLOBS.length - 1 }),
  name: fc.nat({ max: NAMES.length - 1 })
})
const wallet = fc.nat({ max: 7 })
const misuse: fc.Arbitrary<Misuse> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Misuse>("none") },
  { weight: 3, arbitrary: fc.constantFrom<Misuse>("otherTenant", "wrongSize", "wrongHash", "malformed") }
)
const sizeDelta = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) })

/** Only uploads, grants, attaches, detaches and sweeps run transactions; faults aim at the first three. */
const fault: fc.Arbitrary<StorageFault> = storageFaultArbitrary({ maxTransaction: 3, phases: ["inside", "afterCommit", "lostReply", "commitRefused"] })

const withFault = <C extends Command>(command: fc.Arbitrary<C>, shape: ContentShape): fc.Arbitrary<C> =>
  shape.faults
    ? fc.tuple(command, fc.option(fault, { freq: 3, nil: undefined })).map(([c, f]) => (f === undefined ? c : { ...c, fault: f }))
    : command

const advance: fc.Arbitrary<Command> = fc.oneof(
  fc.constantFrom(1_000, 59_000, 61_000, 30 * 60_000, HOUR_MS, 2 * HOUR_MS, 25 * HOUR_MS, 3 * DAY_MS).map((ms): Command => ({ op: "advance", ms })),
  fc.record({
    target: fc.constantFrom<"expiry" | "deletion">("expiry", "deletion"),
    index: fc.nat({ max: 7 }),
    offsetMs: fc.constantFrom(-61_000, -60_001, -60_000, -59_999, -30_000, -1, 0, 1)
  }).map((spec): Command => ({ op: "advanceNear", ...spec }))
)

/** `value` once in `oneIn` draws, otherwise undefined (shrinks toward undefined). */
const sometimes = <A>(value: fc.Arbitrary<A>, oneIn: number): fc.Arbitrary<A | undefined> =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value })

const upload = (shape: ContentShape): fc.Arbitrary<Command> =>
  withFault(
    // A stream upload is sometimes capped below the store's limit (1 in 3; at, one below and one above
    // the sizes of "abc", "four" and "nine byte") and its body sometimes fails (1 in 8): rare enough
    // that most streams store their bytes, so what follows them is reached.
    fc.tuple(tenant, payload, fc.boolean(), sometimes(fc.constantFrom(3, 4, 9), 3), sometimes(fc.constant(true as const), 8))
      .map(([t, p, stream, limit, bodyFails]): Command => ({
        op: "upload",
        tenant: t,
        payload: p,
        stream,
        ...(stream && limit !== undefined ? { limit } : {}),
        ...(stream && bodyFails !== undefined ? { bodyFails } : {})
      })),
    shape
  )

/** A sweep's deleting transactions come first (an hourly pass claims in transaction 1), so its faults aim there. */
const sweepFault: fc.Arbitrary<StorageFault> = storageFaultArbitrary({ maxTransaction: 2, phases: ["inside", "afterCommit", "lostReply", "commitRefused"] })

const sweepCommand = (shape: ContentShape): fc.Arbitrary<Command> =>
  shape.faults
    ? fc.tuple(fc.boolean(), fc.option(sweepFault, { freq: 3, nil: undefined })).map(([force, f]): Command => (f === undefined ? { op: "sweep", force } : { op: "sweep", force, fault: f }))
    : fc.boolean().map((force): Command => ({ op: "sweep", force }))

/**
 * Short timelines that reach the rules' edges in few steps: an upload read or attached at once, an
 * aging jump then a sweep, a sweep at the edge of a deletion horizon, an attach at the edge of a
 * grant's expiry (wallet and horizon indexes name the most recent first).
 */
const timeline = (shape: ContentShape): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.oneof(
    // An upload read back at once: by stream, by read, or by read with a wrong size.
    { weight: 2, arbitrary: fc.tuple(upload(shape), fc.constantFrom("stream", "streamInterrupted", "read", "readWrongSize")).map(([u, how]): ReadonlyArray<Command> =>
      u.op !== "upload"
        ? [u]
        : [u, how === "stream" || how === "streamInterrupted"
          ? { op: "stream", tenant: u.tenant, payload: u.payload, interrupt: how === "streamInterrupted" }
          : { op: "read", tenant: u.tenant, payload: u.payload, sizeDelta: how === "read" ? 0 : 1 }]) },
    // An upload attached at once, with its grant used as is or misused (foreign, mis-sized, another hash, not a grant).
    { weight: 2, arbitrary: fc.tuple(upload(shape), place, fc.constantFrom<Misuse>("none", "otherTenant", "wrongSize", "wrongHash", "malformed")).map(([u, p, m]): ReadonlyArray<Command> => [u, { op: "attach", ...p, wallet: 0, misuse: m }]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(25 * HOUR_MS + 91_000, 2 * DAY_MS), sweepCommand(shape)).map(([ms, sweep]): ReadonlyArray<Command> => [{ op: "advance", ms }, sweep]) },
    // Content, maybe referenced, aged past its horizon, then swept (with a fault in fault scenarios).
    { weight: 3, arbitrary: fc.tuple(upload(shape), fc.option(place, { nil: undefined }), sweepCommand(shape)).map(([u, p, sweep]): ReadonlyArray<Command> => [
      u,
      ...(p === undefined ? [] : [{ op: "attach", ...p, wallet: 0, misuse: "none" } as Command]),
      { op: "advance", ms: 25 * HOUR_MS + 91_000 },
      sweep
    ]) },
    // Several contents of one tenant with the same horizon (ties across a batch boundary), aged, swept.
    { weight: 1, arbitrary: fc.tuple(tenant, fc.uniqueArray(fc.nat({ max: 3 }), { minLength: 3, maxLength: 3 }), sweepCommand(shape)).map(([t, payloads, sweep]): ReadonlyArray<Command> => [
      ...payloads.map((p): Command => ({ op: "upload", tenant: t, payload: p, stream: false })),
      { op: "advance", ms: 25 * HOUR_MS + 91_000 },
      sweep
    ]) },
    // A content swept at the edge of its deletion horizon: inside the skew window, at it, just past it.
    { weight: 2, arbitrary: fc.tuple(upload(shape), fc.constantFrom(-30_000, 0, 1), sweepCommand(shape)).map(([u, offsetMs, sweep]): ReadonlyArray<Command> => [u, { op: "advanceNear", target: "deletion", index: 0, offsetMs }, sweep]) },
    // A stored content granted again, at once (the horizon stays) or later (it rises), sometimes with a
    // size that is not the stored one (1 in 3), then uploaded again.
    { weight: 2, arbitrary: fc.tuple(tenant, payload, fc.constantFrom(0, 1_000, HOUR_MS), fc.boolean(), fc.constantFrom(0, 0, 1)).map(([t, p, laterMs, again, sizeDelta]): ReadonlyArray<Command> => [
      { op: "upload", tenant: t, payload: p, stream: false },
      ...(laterMs === 0 ? [] : [{ op: "advance", ms: laterMs } as Command]),
      { op: "grant", tenant: t, payload: p, sizeDelta },
      ...(again ? [{ op: "advance", ms: 1_000 } as Command, { op: "upload", tenant: t, payload: p, stream: false } as Command] : [])
    ]) },
    // A grant signed with another key for stored content, handed to attach or verify.
    { weight: 1, arbitrary: fc.tuple(tenant, payload, place, fc.boolean()).map(([t, p, at, verify]): ReadonlyArray<Command> => [
      { op: "upload", tenant: t, payload: p, stream: false },
      { op: "forge", tenant: t, payload: p },
      verify ? { op: "verify", wallet: 0, misuse: "none" } : { op: "attach", ...at, tenant: t, wallet: 0, misuse: "none" }
    ]) },
    // One place attached twice (the second replaces the first), detached in the other tenant (K1, K5:
    // references are per tenant, so nothing is detached), then detached twice (present, then gone).
    { weight: 1, arbitrary: fc.tuple(tenant, payload, place).map(([t, p, spot]): ReadonlyArray<Command> => {
      const at = { ...spot, tenant: t }
      return [
      { op: "upload", tenant: t, payload: p, stream: false },
      { op: "attach", ...at, wallet: 0, misuse: "none" },
      { op: "attach", ...at, wallet: 0, misuse: "none" },
      { op: "detach", ...at, tenant: otherTenant(t) },
      { op: "detach", ...at },
      { op: "detach", ...at }
    ] }) },
    { weight: 2, arbitrary: fc.tuple(upload(shape), fc.constantFrom(-60_001, -60_000, -59_999, -30_000), place).map(([u, offsetMs, p]): ReadonlyArray<Command> => [
      u,
      { op: "advanceNear", target: "expiry", index: 0, offsetMs },
      { op: "attach", ...p, wallet: 0, misuse: "none" }
    ]) }
  )

const command = (shape: ContentShape): fc.Arbitrary<Command> =>
  fc.oneof(
    { weight: 6, arbitrary: upload(shape) },
    { weight: 3, arbitrary: withFault(fc.record({ op: fc.constant("grant" as const), tenant, payload, sizeDelta }), shape) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("forge" as const), tenant, payload }) },
    { weight: 5, arbitrary: withFault(fc.record({ op: fc.constant("attach" as const), wallet, misuse }).chain((c) => place.map((p) => ({ ...p, ...c }))), shape) },
    { weight: 2, arbitrary: withFault(place.map((p) => ({ ...p, op: "detach" as const })), shape) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("read" as const), tenant, payload, sizeDelta }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("stream" as const), tenant, payload, interrupt: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("verify" as const), wallet, misuse }) },
    { weight: 4, arbitrary: sweepCommand(shape) },
    { weight: 5, arbitrary: advance },
    { weight: shape.faults ? 1 : 0, arbitrary: fc.constant<Command>({ op: "restart" }) }
  )

const racing: fc.Arbitrary<RacingCommand> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant("upload" as const), tenant, payload: fc.nat({ max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("grant" as const), tenant, payload: fc.nat({ max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("attach" as const), payload: fc.nat({ max: 3 }) }).chain((c) => place.map((p): RacingCommand => ({ ...p, ...c }))) },
  { weight: 1, arbitrary: place.map((p): RacingCommand => ({ ...p, op: "detach" })) }
)

/** A race's store parameters: the reference's (half of them), or one of `PARAMETER_VARIANTS`. */
const raceParameters: fc.Arbitrary<ContentParameters | undefined> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom(...PARAMETER_VARIANTS) }
)

/** A race over content made a sweep candidate: uploads, maybe references, a jump past the horizon, then the race. */
const raceTimeline = (capabilities: AdapterCapabilities): fc.Arbitrary<ReadonlyArray<Command>> => {
  const locks = capabilities.independentConnections && capabilities.rowLocks
  // Where the engine has row locks, the lock-holding releases get most of the draws.
  const mode: fc.Arbitrary<RaceMode> = locks
    ? fc.oneof({ weight: 2, arbitrary: fc.constant<RaceMode>("between") }, { weight: 1, arbitrary: fc.constantFrom<RaceMode>("after", "racerStarted") }, { weight: 4, arbitrary: fc.constantFrom<RaceMode>("deleteHoldsLock", "raiseHoldsLock") }, { weight: 2, arbitrary: fc.constant<RaceMode>("scheduled") })
    : fc.oneof({ weight: 2, arbitrary: fc.constant<RaceMode>("between") }, { weight: 1, arbitrary: fc.constantFrom<RaceMode>("after", "racerStarted") }, { weight: 3, arbitrary: fc.constant<RaceMode>("scheduled") })
  return fc.record({
    tenant: fc.nat({ max: 1 }),
    uploads: fc.array(fc.record({ otherTenant: fc.boolean(), payload: fc.nat({ max: 3 }) }), { minLength: 1, maxLength: 3 }),
    attach: fc.option(place, { nil: undefined }),
    jumpMs: fc.constantFrom(25 * HOUR_MS + 91_000, 2 * DAY_MS),
    force: fc.boolean(),
    competitor: racing,
    mode,
    schedule: stepScheduleArbitrary(RACE_INTERLEAVING)
  }).map(({ tenant: home, uploads: drawn, attach, jumpMs, force, competitor, mode, schedule }): ReadonlyArray<Command> => {
    // The first upload is in the home tenant; later ones sometimes in the other tenant.
    const uploads = drawn.map((u, index) => ({ tenant: index > 0 && u.otherTenant ? 1 - home : home, payload: u.payload }))
    // The competitor targets what was uploaded, so the race is over a real candidate.
    const target = uploads[0]!
    const aimed: RacingCommand = competitor.op === "detach"
      ? { ...competitor, ...(attach ?? {}), op: "detach", tenant: target.tenant }
      : { ...competitor, tenant: target.tenant, payload: target.payload }
    return [
      ...uploads.map((u): Command => ({ op: "upload", tenant: u.tenant, payload: u.payload, stream: false })),
      ...(attach === undefined ? [] : [{ op: "attach", ...attach, tenant: target.tenant, wallet: 0, misuse: "none" } as Command]),
      { op: "advance", ms: jumpMs },
      { op: "race", force, competitor: aimed, mode, ...(mode === "scheduled" ? { schedule } : {}) },
      { op: "read", tenant: target.tenant, payload: target.payload, sizeDelta: 0 },
      { op: "sweep", force: true }
    ]
  })
}

/**
 * A content scenario of the given shape.
 *
 * @example fc.sample(contentScenario({ faults: false, races: false, maxCommands: 14 }, capabilities), 1)
 */
export const contentScenario = (shape: ContentShape, capabilities: AdapterCapabilities): fc.Arbitrary<ContentScenario> => {
  if (shape.races) {
    // The parameters are drawn last, so every earlier draw stays as it was; half the races keep the reference's.
    // The targeted units are drawn after the parameters, each after the one before (`targeted.ts`).
    return fc.tuple(fc.array(command(shape), { maxLength: 3 }), raceTimeline(capabilities), fc.array(command(shape), { maxLength: 2 }), raceParameters, targetedCommands(RACE_UNITS), targetedCommands(RACE_SECOND_UNITS), targetedCommands(RACE_THIRD_UNITS), targetedCommands(RACE_FOURTH_UNITS), targetedCommands(RACE_FIFTH_UNITS))
      .map(([before, race, after, parameters, targeted, second, third, fourth, fifth]) => ({ commands: [...before, ...race, ...after, ...targeted, ...second, ...third, ...fourth, ...fifth], ...(parameters === undefined ? {} : { parameters }) }))
  }
  // A timeline may shrink to a single command (cross-shrinking draws nothing more), so a failure in the
  // appended draws shrinks to one command before them.
  const chunk = fc.oneof({ withCrossShrink: true }, { weight: 3, arbitrary: command(shape).map((c) => [c]) }, { weight: 2, arbitrary: timeline(shape) })
  const commands = fc.array(chunk, { minLength: 1, maxLength: Math.ceil(shape.maxCommands / 1.5) })
    .map((chunks) => chunks.flat().slice(0, shape.maxCommands))
  // Failed statements, tampered grants, wrong-size streams and two targeted units (`targeted.ts`), drawn
  // after the commands, in that order, so every earlier draw stays as it was.
  if (!shape.faults) {
    // Scenarios at the reference's sizes (`referenceSizes.ts`) are drawn after the targeted units, and
    // their commands go last. Streams allowed past the store's limit, then streams held past their
    // timeout, are drawn after those (so no earlier draw moves) but placed before them, and kept only
    // at the small sizes.
    return fc.tuple(commands, tamperedUses, wrongSizeStreams, targetedCommands(MODEL_UNITS), targetedCommands(MODEL_SECOND_UNITS), targetedCommands(MODEL_THIRD_UNITS), referenceSizes, streamsAllowedPastStoreLimit, streamsHeldPastTimeout)
      .map(([drawn, tampered, streams, targeted, second, third, sizes, pastLimit, pastTimeout]) => ({
        commands: [...drawn, ...tampered, ...streams, ...targeted, ...second, ...third, ...(sizes.parameters === undefined ? [...pastLimit, ...pastTimeout] : []), ...sizes.commands],
        ...(sizes.parameters === undefined ? {} : { parameters: sizes.parameters })
      }))
  }
  return fc.tuple(commands, contentStatementFaults, tamperedUses, wrongSizeStreams, targetedCommands(FAULT_UNITS), targetedCommands(MODEL_SECOND_UNITS), targetedCommands(FAULT_THIRD_UNITS)).map(([drawn, statementFaults, tampered, streams, targeted, second, third]) => ({
    commands: [...withStatementFaults(drawn, statementFaults, takesFaults), ...tampered, ...streams, ...targeted, ...second, ...third]
  }))
}

/**
 * At most one upload streamed back at once asking for one byte less or more than it has (K7: a stream
 * checks the size before emitting anything), appended after every other command; the drawn streams
 * always ask for the stored size, and the reads' wrong sizes do not reach the stream's own check.
 */
const wrongSizeStreams: fc.Arbitrary<ReadonlyArray<Command>> = fc.array(
  fc.record({ tenant, payload, sizeDelta: fc.constantFrom(-1, 1) }).map(({ tenant: t, payload: p, sizeDelta: delta }): ReadonlyArray<Command> => [
    { op: "upload", tenant: t, payload: p, stream: false },
    { op: "stream", tenant: t, payload: p, interrupt: false, sizeDelta: delta }
  ]),
  { maxLength: 1 }
).map((pairs) => pairs.flat())

/** The index in `PAYLOADS` of the drawn payload `bytes` long; asserts there is one. */
export const drawnPayloadOfSize = (bytes: number): number => {
  const index = PAYLOADS.findIndex((candidate) => candidate.byteLength === bytes)
  if (index < 0 || index >= DRAWN_PAYLOADS) throw new Error(`PAYLOADS must hold a drawn payload of ${bytes} bytes (the store's limit is ${PROPERTY_SETTINGS.maxContentBytes})`)
  return index
}

/** The payloads at the store's limit and one byte over it. */
const AT_LIMIT_PAYLOAD = drawnPayloadOfSize(PROPERTY_SETTINGS.maxContentBytes)
const OVER_LIMIT_PAYLOAD = drawnPayloadOfSize(PROPERTY_SETTINGS.maxContentBytes + 1)

/**
 * In one model scenario in four, a streamed upload whose caller allows more than the store's limit
 * (K3: over the limit is `ContentTooLarge`, whatever the caller allows): the payload at the limit, or
 * one byte over it, with a cap one byte over the limit or twice it. The drawn streams are capped at or
 * below the limit, so a store that checks the caller's cap alone passed them all. Appended after every
 * other command, so the steps before stay as they were.
 */
const streamsAllowedPastStoreLimit: fc.Arbitrary<ReadonlyArray<Command>> = fc.tuple(
  fc.nat({ max: 3 }),
  fc.record({ tenant, overLimit: fc.boolean(), capTimesLimit: fc.constantFrom(1, 2) })
).map(([roll, unit]): ReadonlyArray<Command> => {
  if (roll !== 0) return []
  const maximum = PROPERTY_SETTINGS.maxContentBytes
  const limit = unit.capTimesLimit === 1 ? maximum + 1 : 2 * maximum
  return [{ op: "upload", tenant: unit.tenant, payload: unit.overLimit ? OVER_LIMIT_PAYLOAD : AT_LIMIT_PAYLOAD, stream: true, limit }]
})

/** Most tampered uses appended to one scenario. */
export const MAX_TAMPERED_USES = 2

/**
 * Up to `MAX_TAMPERED_USES` attaches or verifies of a wallet grant with its text tampered with
 * (`Tamper`), appended after every other command: a refused grant writes nothing, so the steps before
 * them, and every divergence they show, stay as they were.
 */
const tamperedUses: fc.Arbitrary<ReadonlyArray<Command>> = fc.array(
  fc.record({ attach: fc.boolean(), wallet, tamper: fc.constantFrom(...TAMPERS), at: place }).map(({ attach, wallet: index, tamper, at }): Command =>
    attach ? { op: "attach", ...at, wallet: index, misuse: "none", tamper } : { op: "verify", wallet: index, misuse: "none", tamper }),
  { maxLength: MAX_TAMPERED_USES }
)

/** The calls that run transactions, so faults aim at them: uploads, grants, attaches, detaches and sweeps. */
const takesFaults = (command: Command): boolean =>
  command.op === "upload" || command.op === "grant" || command.op === "attach" || command.op === "detach" || command.op === "sweep"
