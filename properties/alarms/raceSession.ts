/**
 * The implementation side of one `alarms/race` scenario: scheduler instances over harness storage
 * boundaries (the first on `connections[0]`, a second on `connections[1]` when the adapter has
 * independent connections, each with its own boundary, like two Durable Object requests or two
 * processes over one database), the configuration and reporter references they read, and what is
 * observed after a step. No faults are armed: the race property orders operations, it breaks nothing.
 */
import { Effect, Exit } from "effect"
import type { AdapterCapabilities, Dialect, IsolatedDatabase, PlatformAlarm } from "../../adapters/contract.ts"
import { emulatedPlatformAlarm } from "../../adapters/emulatedPlatformAlarm.ts"
import type { Json } from "../../harness/Property.ts"
import { exitJson as coreExitJson } from "../../harness/ModelBased.ts"
import { makeStorageBoundary, type StorageBoundary } from "../../harness/StorageBoundary.ts"
import { HarnessError } from "../../harness/errors.ts"
import type { AlarmReporterFn, AlarmScheduler, AlarmsImplementation } from "../../subjects/alarms/api.ts"
import { UpstreamAlarmReporter, UpstreamScheduleConfiguration } from "./upstreamReferences.ts"
import { VALID_REFS } from "./arbitraries.ts"
import { errorTag, parkedReportJson, toImplementationConfiguration } from "./driver.ts"
import { ALARMS_BOUNDARY, buildFailure, harnessError, readApiStatuses } from "./session.ts"

/** Statuses of every alarm of the id space and the platform alarm. */
export interface RaceObservation {
  readonly statuses: Record<string, Json>
  readonly platformAlarmMs: number | null
}

/** One scenario's schedulers and their shared reporter record. */
export interface RaceSession {
  /** The scheduler on `connections[0]`. */
  readonly scheduler: AlarmScheduler
  /** A second scheduler on `connections[1]` (only with independent connections). */
  readonly second: AlarmScheduler | undefined
  /** The storage boundary of `scheduler` (its own scheduling points hold its transactions for a lock race). */
  readonly boundary: StorageBoundary
  /** Provides the configuration and the recording reporter to an implementation call. */
  readonly provide: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
  /** Takes the reporter calls recorded since the last take. */
  readonly takeReports: () => ReadonlyArray<Json>
  readonly observe: Effect.Effect<RaceObservation, HarnessError>
}

/** An implementation exit in the model's result shape (`{_tag: "Failure", error: {_tag}}` on failure). */
export const exitJson = <A>(exit: Exit.Exit<A, unknown>, value: (a: A) => Json): Json => coreExitJson(exit, value, errorTag)

/** Opens the session: one scheduler per boundary, both reading `budget` as their configuration. */
export const openRaceSession = (implementation: AlarmsImplementation, database: IsolatedDatabase, dialect: Dialect, budget: number, capabilities: AdapterCapabilities, withSecond: boolean): Effect.Effect<RaceSession, HarnessError> =>
  Effect.gen(function*() {
    let reports: Array<Json> = []
    const reporter: AlarmReporterFn = (event) => Effect.sync(() => {
      reports.push(parkedReportJson(event))
    })
    const configuration = toImplementationConfiguration({ unchangedAttemptBudget: budget })
    const provide = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      effect.pipe(Effect.provideService(UpstreamScheduleConfiguration, configuration), Effect.provideService(UpstreamAlarmReporter, reporter))
    // Faults reach an implementation only through a boundary; this property arms none.
    const firstBoundary = makeStorageBoundary(database.connections[0]!, database.platformAlarm, ALARMS_BOUNDARY)
    firstBoundary.arm(undefined)
    const build = (boundary: StorageBoundary) =>
      provide(implementation.make({ sql: boundary.sql, dialect, platformAlarm: boundary.platformAlarm })).pipe(Effect.mapError(buildFailure(implementation)))
    const scheduler = yield* build(firstBoundary)
    // An emulated platform alarm is a row of the same database: the second process reaches it through
    // its own connection (the adapter's is bound to connections[0], held by the first's transaction).
    const secondAlarm = (): PlatformAlarm => capabilities.platformAlarm === "emulated" ? emulatedPlatformAlarm(database.connections[1]!) : database.platformAlarm
    const secondBoundary = () => {
      const boundary = makeStorageBoundary(database.connections[1]!, secondAlarm(), ALARMS_BOUNDARY)
      boundary.arm(undefined)
      return boundary
    }
    const second = withSecond ? yield* build(secondBoundary()) : undefined
    const observe = Effect.gen(function*() {
      const statuses = yield* readApiStatuses(scheduler, VALID_REFS, provide)
      const platformAlarmMs = yield* database.platformAlarm.get.pipe(Effect.mapError(harnessError("reading the platform alarm")))
      return { statuses, platformAlarmMs }
    })
    const takeReports = () => {
      const taken = reports
      reports = []
      return taken
    }
    return { scheduler, second, boundary: firstBoundary, provide, takeReports, observe }
  })
