/**
 * fast-check arbitraries of alarms scenarios. Generation favours interesting timelines: an
 * always-failing handler dispatched repeatedly while the clock jumps to the next wake (so parking is
 * reachable in a small scenario, and faster under a small `unchangedAttemptBudget`), redelivered
 * platform alarms, self-rearming handlers, replayed cursors, and collisions in a 2 x 3 id space.
 */
import * as fc from "fast-check"
import type { Json } from "../../harness/Property.ts"
import type { OnFailureScript, ProcessOptions, ScheduleConfigurationInput, TransactionFault } from "../../models/alarms/index.ts"
import { UNENCODABLE_PAYLOAD_KEY } from "../../models/alarms/index.ts"
import {
  type AlarmsScenario,
  type Command,
  type HandlerEntrySpec,
  type HandlerScriptSpec,
  type HandlerWriteSpec,
  IDS,
  type InputSpec,
  type LegacyRowSpec,
  type MutationSpec,
  type RefSpec,
  TAGS,
  type TransactionMutationSpec
} from "./scenario.ts"

/** What a generator may include. */
export interface ScenarioShape {
  /** Inject transaction faults (crash inside, crash after commit, failing platform alarm write). */
  readonly faults: boolean
  /** Start from rows of the older schema. */
  readonly legacy: boolean
  /** Upper bound on generated chunks (a chunk is one command or a short timeline). */
  readonly maxChunks: number
}

const DAY_MS = 86_400_000

/** Every ref of the id space. */
export const VALID_REFS: ReadonlyArray<RefSpec> = TAGS.flatMap((tag) => IDS.map((id) => ({ tag, id })))

const validRef: fc.Arbitrary<RefSpec> = fc.constantFrom(...VALID_REFS)

const ref: fc.Arbitrary<RefSpec> = fc.oneof(
  { weight: 30, arbitrary: validRef },
  { weight: 1, arbitrary: fc.constantFrom<RefSpec>({ tag: "", id: "1" }, { tag: "a", id: "" }) }
)

const payload: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null) },
  { weight: 4, arbitrary: fc.nat({ max: 3 }) },
  { weight: 3, arbitrary: fc.record({ n: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant<Json>({ [UNENCODABLE_PAYLOAD_KEY]: true }) }
)

const runInMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: -120_000, max: -1 }) },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 10_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 10_001, max: 3_600_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 3_600_001, max: 3 * DAY_MS }) }
)

const repeatEveryMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(60_000, 120_000, 3_600_000) },
  { weight: 1, arbitrary: fc.constantFrom(1_000, 1_500.5, 30_000) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 999) }
)

const progress: fc.Arbitrary<number> = fc.oneof(
  { weight: 8, arbitrary: fc.nat({ max: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 1.5) }
)

const inputFor = (target: fc.Arbitrary<RefSpec>): fc.Arbitrary<InputSpec> =>
  fc.record(
    {
      ref: target,
      payload,
      runInMs,
      repeatEveryMs,
      progress
    },
    { requiredKeys: ["ref", "payload", "runInMs"] }
  ).map(({ ref: target, ...rest }) => ({ tag: target.tag, id: target.id, ...rest }))

const input = inputFor(ref)

const mutationFor = (target: fc.Arbitrary<RefSpec>): fc.Arbitrary<MutationSpec> =>
  fc.oneof(
    { weight: 5, arbitrary: inputFor(target).map((value): MutationSpec => ({ kind: "scheduleAlarm", input: value })) },
    { weight: 2, arbitrary: inputFor(target).map((value): MutationSpec => ({ kind: "scheduleAlarmEarlier", input: value })) },
    { weight: 2, arbitrary: target.map((value): MutationSpec => ({ kind: "cancelAlarm", ref: value })) }
  )

const mutation = mutationFor(ref)

const transactionMutation: fc.Arbitrary<TransactionMutationSpec> = fc.tuple(
  mutation,
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom("forkedFiber" as const, "afterTransaction" as const) }
  )
).map(([value, misuse]) => (misuse === undefined ? value : { ...value, misuse }))

const fault: fc.Arbitrary<TransactionFault> = fc.record({
  transaction: fc.integer({ min: 1, max: 4 }),
  phase: fc.constantFrom("inside" as const, "afterCommit" as const, "setAlarmFails" as const)
})

/** Adds an optional fault (only in fault scenarios) and an optional failing reporter. */
const withFaults = <C extends Command>(shape: ScenarioShape, command: fc.Arbitrary<C>, reporter: boolean): fc.Arbitrary<C> =>
  fc.tuple(
    command,
    shape.faults ? fc.option(fault, { freq: 3, nil: undefined }) : fc.constant(undefined),
    reporter ? fc.option(fc.constant(true), { freq: 6, nil: undefined }) : fc.constant(undefined)
  ).map(([value, injected, reporterFails]) => ({
    ...value,
    ...(injected === undefined ? {} : { fault: injected }),
    ...(reporterFails === undefined ? {} : { reporterFails })
  }))

const onFailure: fc.Arbitrary<OnFailureScript> = fc.oneof(
  fc.constantFrom<OnFailureScript>(
    { kind: "returnsVoid" },
    { kind: "retry" },
    { kind: "skipAndAdvanceRepeat" },
    { kind: "fails" }
  ),
  fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constantFrom(0, -5)).map((ms): OnFailureScript => ({
    kind: "retryAfter",
    retryFailedAfterMs: ms
  }))
)

const handlerWrite = (own: RefSpec): fc.Arbitrary<HandlerWriteSpec> => {
  const target = fc.oneof({ weight: 3, arbitrary: fc.constant(own) }, { weight: 2, arbitrary: ref })
  return fc.oneof(
    { weight: 6, arbitrary: mutationFor(target) },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          kind: fc.constant("transaction" as const),
          mutations: fc.array(mutationFor(target), { minLength: 1, maxLength: 2 }),
          closureFails: fc.constant(true)
        },
        { requiredKeys: ["kind", "mutations"] }
      )
    }
  )
}

const scriptFor = (own: RefSpec): fc.Arbitrary<HandlerScriptSpec> =>
  fc.record(
    {
      writes: fc.array(handlerWrite(own), { minLength: 1, maxLength: 2 }),
      outcome: fc.constantFrom("succeed" as const, "fail" as const),
      onFailure,
      forkedWrite: mutationFor(fc.oneof(fc.constant(own), validRef))
    },
    { requiredKeys: [] }
  )

const handlerEntry: fc.Arbitrary<HandlerEntrySpec> = validRef.chain((own) =>
  scriptFor(own).map((script) => ({ tag: own.tag, id: own.id, script }))
)

const dispatchOptions: fc.Arbitrary<ProcessOptions | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.record({ limit: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ retryFailedAfterMs: fc.integer({ min: 1, max: 20_000 }) }) },
  { weight: 1, arbitrary: fc.constantFrom<ProcessOptions>({ limit: 0 }, { limit: 1.5 }, { retryFailedAfterMs: 0 }) }
)

const dispatch = (shape: ScenarioShape, handlers: fc.Arbitrary<ReadonlyArray<HandlerEntrySpec>>) =>
  withFaults(
    shape,
    fc.tuple(dispatchOptions, handlers).map(([options, entries]): Extract<Command, { op: "dispatch" }> =>
      options === undefined ? { op: "dispatch", handlers: entries } : { op: "dispatch", options, handlers: entries }
    ),
    true
  )

const configuration: fc.Arbitrary<ScheduleConfigurationInput> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ unchangedAttemptBudget: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ unchangedAttemptBudget: fc.integer({ min: 5, max: 12 }) }) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        minimumRetryDelayMs: fc.oneof(fc.integer({ min: 1_000, max: 5_000 }), fc.constant(1_000.5)),
        parkedRetryDelayMs: fc.constantFrom(3_600_000, 7_200_000),
        minimumRepeatIntervalMs: fc.constantFrom(1_000, 60_000, 120_000)
      },
      { requiredKeys: [] }
    )
  },
  { weight: 1, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<ScheduleConfigurationInput>(
      { unchangedAttemptBudget: 0 },
      { minimumRetryDelayMs: 999 },
      { parkedRetryDelayMs: 60_000 },
      { minimumRepeatIntervalMs: 10 }
    )
  }
)

const single = (shape: ScenarioShape): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.oneof(
    { weight: 18, arbitrary: withFaults(shape, fc.tuple(input, fc.boolean()).map(([value, earlier]): Command => (earlier ? { op: "schedule", earlier, input: value } : { op: "schedule", input: value })), true) },
    { weight: 4, arbitrary: withFaults(shape, ref.map((value): Command => ({ op: "cancel", ref: value })), false) },
    { weight: 3, arbitrary: ref.map((value): Command => ({ op: "status", ref: value })) },
    {
      weight: 5,
      arbitrary: withFaults(
        shape,
        fc.tuple(fc.array(transactionMutation, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([mutations, fails]): Command =>
          fails ? { op: "transaction", mutations, closureFails: true } : { op: "transaction", mutations }
        ),
        true
      )
    },
    { weight: 14, arbitrary: dispatch(shape, fc.array(handlerEntry, { maxLength: 3 })) },
    { weight: 10, arbitrary: fc.constant<Command>({ op: "advanceToNextWake" }) },
    {
      weight: 5,
      arbitrary: fc.oneof(
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 5_001, max: 2 * 3_600_000 }),
        fc.integer({ min: 2 * 3_600_000, max: 3 * DAY_MS })
      ).map((ms): Command => ({ op: "advanceBy", ms }))
    },
    { weight: 2, arbitrary: configuration.map((value): Command => ({ op: "configure", configuration: value })) },
    { weight: 2, arbitrary: fc.constantFrom<Command>({ op: "restart", reason: "restart" }, { op: "restart", reason: "eviction" }) }
  ).map((command) => [command])

/**
 * A timeline: one alarm whose handler keeps failing (optionally self-rearming) dispatched `rounds`
 * times, each after the clock jumped to the next wake: reaches backoff, parking and hourly retries.
 */
const failingTimeline = (shape: ScenarioShape): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(
    validRef,
    fc.integer({ min: 2, max: 10 }),
    fc.option(onFailure, { freq: 3, nil: undefined }),
    fc.boolean(),
    fc.option(fault, { freq: 4, nil: undefined })
  ).map(([own, rounds, action, rearm, injected]) => {
    const script: HandlerScriptSpec = {
      outcome: "fail",
      ...(action === undefined ? {} : { onFailure: action }),
      ...(rearm ? { writes: [{ kind: "scheduleAlarm", input: { tag: own.tag, id: own.id, payload: null, runInMs: 0 } }] } : {})
    }
    const commands: Array<Command> = []
    for (let round = 0; round < rounds; round++) {
      const last = round === rounds - 1
      commands.push({ op: "advanceToNextWake" })
      commands.push({
        op: "dispatch",
        handlers: [{ tag: own.tag, id: own.id, script }],
        ...(last && shape.faults && injected !== undefined ? { fault: injected } : {})
      })
    }
    return commands
  })

/** The platform alarm delivered twice: two dispatches at the same virtual time. */
const redelivery = (shape: ScenarioShape): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.tuple(dispatch(shape, fc.array(handlerEntry, { maxLength: 2 })), fc.array(handlerEntry, { maxLength: 2 })).map(([first, entries]) => [
    { op: "advanceToNextWake" },
    first,
    { op: "dispatch", handlers: entries, redelivery: true }
  ])

const chunk = (shape: ScenarioShape): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc.oneof(
    { weight: 12, arbitrary: single(shape) },
    { weight: 2, arbitrary: failingTimeline(shape) },
    { weight: 1, arbitrary: redelivery(shape) }
  )

const legacyRows: fc.Arbitrary<ReadonlyArray<LegacyRowSpec>> = fc.uniqueArray(
  fc.record(
    {
      ref: validRef,
      runInMs: fc.integer({ min: -60_000, max: 120_000 }),
      repeatEveryMs: fc.constantFrom(60_000, 3_600_000),
      payloadText: fc.constantFrom("null", "1", "{\"n\":2}", "{not json")
    },
    { requiredKeys: ["ref", "runInMs", "payloadText"] }
  ).map(({ ref: target, ...rest }): LegacyRowSpec => ({ tag: target.tag, id: target.id, ...rest })),
  { minLength: 1, maxLength: 4, selector: (row) => `${row.tag}/${row.id}` }
)

/**
 * Scenarios of the given shape.
 *
 * @example fc.sample(alarmsScenario({ faults: false, legacy: false, maxChunks: 12 }), 1)
 */
export const alarmsScenario = (shape: ScenarioShape): fc.Arbitrary<AlarmsScenario> =>
  fc.tuple(
    fc.option(configuration, { freq: 2, nil: undefined }),
    shape.legacy ? legacyRows : fc.constant(undefined),
    fc.array(chunk(shape), { minLength: 1, maxLength: shape.maxChunks })
  ).map(([initial, legacy, chunks]) => ({
    ...(initial === undefined ? {} : { configuration: initial }),
    ...(legacy === undefined ? {} : { legacyRows: legacy }),
    commands: chunks.flat()
  }))
