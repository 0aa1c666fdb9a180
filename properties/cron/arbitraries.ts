/**
 * fast-check arbitraries of cron scenarios. Generation favours timelines that reach every rule: an
 * opening deploy and first ticks, then episodes of one relay settling its ticks, a lease running out
 * while another runner claims, a crash between receipt and rewrite followed by a retargeting deploy,
 * a tick left past its skip window (or exactly at it), a redeploy between a claim and its settling, and
 * clock moves across the anchor's DST transition; and races, where
 * two runners' claims and settling phases overlap (a lease running out mid-delivery while the other
 * runner claims, settles fenced on the claim) and commit in a generated order that shrinks. Drawn
 * last, so every earlier draw keeps its bytes: turn episodes after the opening (a second turn of one
 * actor, a rejected one), a late claim at the skip window or 1 ms past it, crashes and lost
 * replies at drawn positions, a delivery that crashes or loses its reply after committing its
 * receipt (the situation coverage table showed each rarely reached before), and, last of all, a turn or
 * bootstrap whose tick write has a statement fail (`statementFaults.ts`: positional failed statements
 * almost never struck one).
 */
import * as fc from "fast-check"
import { statementOrdinalArbitrary } from "../../harness/StatementFaultDraws.ts"
import { datedProbe } from "./datedProbes.ts"
import { failedTickWrite } from "./statementFaults.ts"
import { ALL_MONTHS, DAYS, EVERY, HOURS, MINUTES, MONTHS, SEPARATORS, WEEKDAYS } from "./spellings.ts"
import type { CronFault, EntryInput } from "../../models/cron/index.ts"
import { ACTORS, ANCHORS, type Command, type CronScenario, type DeclaredEntrySpec, type DeliveryCrash, type FailedStatement, type LateClaim, type NeighbourDeclaration, type PositionedCrash, RUNNERS, TIMING, type TurnEpisode } from "./scenario.ts"

/** What a generator may include. */
export interface ScenarioShape {
  /** Storage faults and restarts. */
  readonly faults: boolean
  /** Upper bound on generated episodes. */
  readonly maxEpisodes: number
}

/**
 * Invalid specs (N1): bad values and shapes, an interval just under 1 s, six fields (seconds), and an
 * interval with text after its unit.
 */
const INVALID: ReadonlyArray<string> = ["61 * * * *", "* * *", "@every 500ms", "@every 999ms", "5/15 * * * *", "0 0 * * * *", "0 2 * * 8", "0 2 32 * *", "@every 1sx", "@every 1s0"]

const pick = <A>(values: ReadonlyArray<A>) => fc.nat({ max: values.length - 1 }).map((index) => values[index]!)

/** One meaning of a field, in one of its spellings. */
const spelled = (meanings: ReadonlyArray<ReadonlyArray<string>>): fc.Arbitrary<string> =>
  fc.tuple(pick(meanings), fc.nat()).map(([spellings, spelling]) => spellings[spelling % spellings.length]!)

/** The day and month fields: mostly every day of every month, often restricted (alone or both days: OR). */
const dayFields: fc.Arbitrary<readonly [string, string, string]> = fc.oneof(
  { weight: 3, arbitrary: pick(ALL_MONTHS).map((month) => ["*", month, "*"] as const) },
  { weight: 3, arbitrary: fc.tuple(spelled(DAYS), pick(ALL_MONTHS), spelled(WEEKDAYS)) },
  { weight: 1, arbitrary: fc.tuple(spelled(DAYS), spelled(MONTHS), spelled(WEEKDAYS)) }
)

const cronSpec: fc.Arbitrary<string> = fc.tuple(spelled(MINUTES), spelled(HOURS), dayFields, fc.oneof({ weight: 4, arbitrary: fc.constant(" ") }, { weight: 1, arbitrary: pick(SEPARATORS) })).map(
  ([minutes, hours, [days, month, weekdays], separator]) => [minutes, hours, days, month, weekdays].join(separator)
)

/**
 * Specs only `next` is asked about (N2, `CronScenario.specProbes`): interval minutes, hours holding the
 * anchors' transition wall times (01:00-03:00), every day or the transitions' Sundays, and months
 * holding the transition's month or not (alone, or with the month two before or after it).
 */
const PROBE_MONTHS: ReadonlyArray<string> = ["*", "3", "10", "11", "4", "1,3", "3,5", "8,10", "10,12", "9,11", "2,4", "1-12"]
const specProbe = fc.record({
  spec: fc.tuple(pick(["*/15", "*/30", "0,30", "*/20", "5,35", "0-59/10"]), pick(["1", "2", "1-2", "*", "0-3", "2,3"]), pick(["*", "1-31", "1-7", "*/2"]), pick(PROBE_MONTHS), pick(["*", "0", "SUN", "1-6"]))
    .map((fields) => fields.join(" ")),
  afterMs: fc.integer({ min: -3 * 3_600_000, max: 6 * 3_600_000 })
})

const everySpec: fc.Arbitrary<string> = fc.tuple(pick(EVERY), fc.nat()).map(([spellings, spelling]) => spellings[spelling % spellings.length]!)

/** One pool entry in `zone`: mostly zoned five-field specs, some @every, rarely invalid. */
const entry = (zone: string): fc.Arbitrary<Omit<EntryInput, "command">> =>
  fc.oneof(
    { weight: 6, arbitrary: cronSpec.map((spec) => ({ spec, zone, payload: "{}" })) },
    { weight: 1, arbitrary: cronSpec.map((spec) => ({ spec, zone: null, payload: "{}" })) },
    { weight: 3, arbitrary: everySpec.map((spec) => ({ spec, zone: null, payload: "{}" })) },
    { weight: 1, arbitrary: pick(INVALID).map((spec) => ({ spec, zone, payload: "{}" })) },
    { weight: 1, arbitrary: fc.constant({ spec: "0 * * * *", zone: "Mars/Base", payload: "{}" }) }
  ).map((value) => ({ ...value, payload: JSON.stringify({ spec: value.spec }) }))

const COMMANDS = ["ping", "pong"] as const

const fault = (faults: boolean): fc.Arbitrary<CronFault | undefined> =>
  faults
    ? fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: fc.record({ transaction: fc.constant(1), phase: fc.constantFrom<CronFault["phase"]>("afterCommit", "inside", "lostReply") }) }
    )
    : fc.constant(undefined)

/**
 * Refused commits of a fault scenario (`CronScenario.refusedCommits`): none, one or two positions among
 * the first 16 transactional commands (a turn, a bootstrap, a claim, any settling phase).
 */
const refusedCommits: fc.Arbitrary<ReadonlyArray<number>> = fc.array(fc.nat({ max: 15 }), { maxLength: 2 })

/**
 * Failed statements of a fault scenario (`CronScenario.failedStatements`): none to three positions
 * among the first 16 transactional commands, each with a statement ordinal (`statementOrdinalArbitrary`).
 */
const failedStatements: fc.Arbitrary<ReadonlyArray<FailedStatement>> = fc.array(
  fc.record({ position: fc.nat({ max: 15 }), statement: statementOrdinalArbitrary }),
  { maxLength: 3 }
)

const runner = fc.nat({ max: RUNNERS - 1 })

/** Lengths of appended turns: instant, and long enough for an `@every`, minute or quarter-hour instant to pass (B2). */
const TURN_MS = [0, 45_000, 130_000, 1_800_000] as const

/** Appended turn episodes (`CronScenario.turnEpisodes`): none or one. */
const turnEpisodes: fc.Arbitrary<ReadonlyArray<TurnEpisode>> = fc.array(
  fc.record({ runner, actorId: pick(ACTORS), turnMs: pick(TURN_MS), rejected: fc.boolean() }),
  { maxLength: 1 }
)

/** Appended late claims (`CronScenario.lateClaims`): none or one, at the skip window or 1 ms past it, the entries kept or withdrawn. */
const lateClaims: fc.Arbitrary<ReadonlyArray<LateClaim>> = fc.array(fc.record({ runner, atWindow: fc.boolean(), withdrawn: fc.boolean() }), { maxLength: 1 })

/**
 * Crashes and lost replies of a fault scenario (`CronScenario.crashes`): none to four positions among the
 * first 16 transactional commands, each with the phase that strikes it.
 */
const crashes: fc.Arbitrary<ReadonlyArray<PositionedCrash>> = fc.array(
  fc.record({ position: fc.nat({ max: 15 }), phase: fc.constantFrom<PositionedCrash["phase"]>("inside", "afterCommit", "lostReply") }),
  { maxLength: 4 }
)

/** Appended delivery crashes (`CronScenario.deliveryCrashes`): none or one. */
const deliveryCrashes: fc.Arbitrary<ReadonlyArray<DeliveryCrash>> = fc.array(
  fc.record({ runner, phase: fc.constantFrom<DeliveryCrash["phase"]>("afterCommit", "lostReply") }),
  { maxLength: 1 }
)

/**
 * An appended declaration of a pool entry beside its neighbour (`CronScenario.neighbourDeclarations`):
 * the changed field is a day field four times in five (day-of-month or day-of-week: N1's OR of two
 * restricted day fields, and `1-31` or `0-6` beside a star), starred half the time.
 */
const neighbourDeclarationOf = (poolSize: number): fc.Arbitrary<NeighbourDeclaration> =>
  fc.record({
    runner,
    index: fc.nat({ max: poolSize - 1 }),
    field: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(2, 4) }, { weight: 1, arbitrary: fc.constantFrom(0, 1, 3) }),
    toStar: fc.boolean(),
    step: fc.nat({ max: 7 })
  })

const declaration = (poolSize: number): fc.Arbitrary<ReadonlyArray<DeclaredEntrySpec> | null> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.subarray(Array.from({ length: poolSize }, (_, index) => index), { minLength: 1 }).chain((indexes) =>
      fc.tuple(...indexes.map((index) => pick(COMMANDS).map((command) => ({ index, command }))))) },
    { weight: 1, arbitrary: fc.constant(null) }
  )

const at = (ms: number) => ({ op: "advance", ms }) as const

/** Episodes: short timelines, each reaching a rule or an invariant (`skipMs`: the scenario's skip window). */
const episode = (shape: ScenarioShape, poolSize: number, skipMs: number): fc.Arbitrary<ReadonlyArray<Command>> => {
  const f = fault(shape.faults)
  const relay = fc.tuple(runner, fc.integer({ min: 1, max: 4 }), f).map(([r, settles, fault]): ReadonlyArray<Command> => [
    { op: "advanceToDue" }, { op: "claim", runner: r }, ...Array.from({ length: settles }, (_, index): Command => (index === settles - 1 && fault !== undefined ? { op: "settle", runner: r, fault } : { op: "settle", runner: r }))
  ])
  const leaseRunsOut = fc.tuple(runner, fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })).map(([r, before, after]): ReadonlyArray<Command> => [
    { op: "advanceToDue" }, { op: "claim", runner: r },
    ...Array.from({ length: before }, (): Command => ({ op: "settle", runner: r })),
    at(TIMING.leaseMs + 1_000), { op: "claim", runner: 1 - r }, { op: "settle", runner: 1 - r },
    ...Array.from({ length: after }, (): Command => ({ op: "settle", runner: r })),
    { op: "settle", runner: 1 - r }, { op: "settle", runner: 1 - r }
  ])
  const retarget = fc.tuple(runner, declaration(poolSize), fc.boolean()).map(([r, entries, crash]): ReadonlyArray<Command> => [
    { op: "advanceToDue" }, { op: "claim", runner: r }, { op: "settle", runner: r },
    crash ? { op: "settle", runner: r, fault: { transaction: 1, phase: "afterCommit" } } : { op: "settle", runner: r },
    { op: "declare", runner: r, entries }, at(TIMING.leaseMs + 1_000), { op: "claim", runner: r },
    { op: "settle", runner: r }, { op: "settle", runner: r }, { op: "settle", runner: r }
  ])
  // Races: the same phases, but two runners' transactions overlap and commit in a generated order.
  const raceOrder = fc.constantFrom<ReadonlyArray<number>>([0, 1], [1, 0])
  const raceClaims = fc.tuple(raceOrder, fc.integer({ min: 1, max: 3 })).map(([order, settles]): ReadonlyArray<Command> => [
    { op: "advanceToDue" }, { op: "race", ops: [{ op: "claim", runner: 0 }, { op: "claim", runner: 1 }], order },
    ...Array.from({ length: settles }, (): Command => ({ op: "race", ops: [{ op: "settle", runner: 0 }, { op: "settle", runner: 1 }], order }))
  ])
  // The holder has settled 0 or 2 phases when its lease runs out: its next phase writes (fenced on its
  // claim) while the other runner claims the tick (a delivery phase would run one at a time).
  const raceLease = fc.tuple(runner, fc.constantFrom(2, 0, 2), raceOrder, raceOrder, fc.integer({ min: 1, max: 3 })).map(([r, before, order, then, after]): ReadonlyArray<Command> => [
    { op: "advanceToDue" }, { op: "claim", runner: r },
    ...Array.from({ length: before }, (): Command => ({ op: "settle", runner: r })),
    at(TIMING.leaseMs + 1_000), { op: "race", ops: [{ op: "claim", runner: 1 - r }, { op: "settle", runner: r }], order },
    ...Array.from({ length: after }, (): Command => ({ op: "race", ops: [{ op: "settle", runner: r }, { op: "settle", runner: 1 - r }], order: then }))
  ])
  // N7: a tick claimed late, also exactly at the skip window (not stale: older than it is) and 1 ms past it.
  const stale = fc.tuple(runner, fc.constantFrom(700_000, 3_600_000, skipMs, skipMs + 1)).map(([r, lateMs]): ReadonlyArray<Command> => [
    { op: "advanceToDue" }, at(lateMs), { op: "claim", runner: r }, { op: "settle", runner: r }, { op: "settle", runner: r }, { op: "settle", runner: r }
  ])
  // N7: the runner is redeployed between its claim and settling the tick, mostly without the actor
  // type (another runner may declare it: release with backoff), or with other entries; fresh or stale.
  const redeployedMidClaim = fc.tuple(runner, fc.oneof(fc.constant(null), declaration(poolSize)), fc.constantFrom(0, skipMs + 1)).map(([r, entries, lateMs]): ReadonlyArray<Command> => [
    { op: "advanceToDue" }, ...(lateMs === 0 ? [] : [at(lateMs)]), { op: "claim", runner: r }, { op: "declare", runner: r, entries },
    { op: "settle", runner: r }, { op: "settle", runner: r }, { op: "settle", runner: r }
  ])
  const single = fc.oneof(
    fc.record({ op: fc.constant("turn" as const), runner, actorId: pick(ACTORS), turnMs: fc.constantFrom(0, 500, 45_000, 130_000), rejected: fc.boolean(), fault: f })
      .map((command) => withoutUndefinedFault(command)),
    fc.record({ op: fc.constant("bootstrap" as const), runner, fault: f }).map((command) => withoutUndefinedFault(command)),
    fc.constantFrom<Command>({ op: "bootstrapAll", order: [0, 1] }, { op: "bootstrapAll", order: [1, 0] }),
    fc.record({ op: fc.constant("declare" as const), runner, entries: declaration(poolSize) }),
    fc.constantFrom(1_000, 31_000, 600_000, 3_600_000, 3 * 3_600_000).map(at),
    fc.constant<Command>({ op: "advanceToDue" }),
    ...(shape.faults ? [runner.map((r): Command => ({ op: "restart", runner: r }))] : [])
  ).map((command): ReadonlyArray<Command> => [command])
  return fc.oneof(
    { weight: 3, arbitrary: relay },
    { weight: 1, arbitrary: leaseRunsOut },
    { weight: 3, arbitrary: raceLease },
    { weight: 2, arbitrary: raceClaims },
    { weight: 2, arbitrary: retarget },
    { weight: 1, arbitrary: stale },
    { weight: 1, arbitrary: redeployedMidClaim },
    { weight: 3, arbitrary: single }
  )
}

const withoutUndefinedFault = <C extends { readonly fault?: CronFault | undefined }>(command: C): Command => {
  const { fault, ...rest } = command
  return (fault === undefined ? rest : { ...rest, fault }) as unknown as Command
}

/** The opening (`OPENING_COMMANDS` commands): runner 0 declares the whole pool, runner 1 a part or nothing, and the first ticks. */
const opening = (poolSize: number): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(declaration(poolSize), pick(COMMANDS), fc.constantFrom<Command>(
    { op: "bootstrapAll", order: [0, 1] },
    { op: "bootstrapAll", order: [1, 0] },
    { op: "bootstrap", runner: 0 },
    { op: "turn", runner: 0, actorId: "b", turnMs: 45_000, rejected: false }
  )).map(([other, command, first]): ReadonlyArray<Command> => [
    { op: "declare", runner: 0, entries: Array.from({ length: poolSize }, (_, index) => ({ index, command })) },
    { op: "declare", runner: 1, entries: other },
    first
  ])

/**
 * A cron scenario of `shape`.
 *
 * @example fc.sample(cronScenario({ faults: false, maxEpisodes: 6 }), 1)
 */
export const cronScenario = (shape: ScenarioShape): fc.Arbitrary<CronScenario> =>
  fc.tuple(fc.nat({ max: ANCHORS.length - 1 }), fc.constantFrom(600_000, 60_000)).chain(([anchor, skipMs]) =>
    fc.array(entry(ANCHORS[anchor]!.zone), { minLength: 1, maxLength: 3 }).chain((pool) =>
      fc.record({
        anchor: fc.constant(anchor),
        skipMs: fc.constant(skipMs),
        foreignRows: fc.boolean(),
        pool: fc.constant(pool.map((value) => ({ ...value, command: "ping" }))),
        probesMs: fc.array(fc.integer({ min: 0, max: 6 * 3_600_000 }), { minLength: 1, maxLength: 3 }),
        commands: fc.tuple(opening(pool.length), fc.array(episode(shape, pool.length, skipMs), { minLength: 1, maxLength: shape.maxEpisodes }))
          .map(([first, rest]) => [...first, ...rest.flat()]),
        // Drawn last (refused commits, own turns, spec probes), so the fields above keep their earlier values.
        ...(shape.faults ? { refusedCommits: refusedCommits } : {}),
        ownTurns: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        specProbes: fc.array(specProbe, { maxLength: 3 }),
        ...(shape.faults ? { failedStatements: failedStatements } : {}),
        respelledDeclarations: fc.array(fc.record({ runner, index: fc.nat({ max: pool.length - 1 }) }), { maxLength: 1 }),
        redeploysBeforeRewrite: fc.array(fc.record({ runner, entries: declaration(pool.length) }), { maxLength: 1 }),
        datedProbes: fc.array(datedProbe(ANCHORS[anchor]!), { maxLength: 2 }),
        // Drawn after everything above, so every earlier draw keeps its bytes (see the module comment).
        turnEpisodes,
        lateClaims,
        ...(shape.faults ? { crashes, deliveryCrashes } : {}),
        // Drawn after everything above too.
        neighbourDeclarations: fc.array(neighbourDeclarationOf(pool.length), { minLength: 1, maxLength: 2 }),
        // Drawn last of all (`statementFaults.ts`).
        ...(shape.faults ? { failedTickWrite: failedTickWrite(pool.length) } : {})
      })
    )
  )
