/**
 * Typed alarm definitions (R29): a thin layer over any `AlarmScheduler` that binds each tag to a
 * payload schema.
 *
 * Scheduling or cancelling an undeclared tag fails with `InvalidAlarmRefError`; a payload that does not
 * encode fails with `InvalidAlarmPayloadError`. On dispatch, a stored row with an undeclared tag or an
 * undecodable payload is a handler failure (`StoredAlarmDecodeError`), so backoff and parking apply.
 *
 * @example
 * ```ts
 * const Alarms = defineAlarms({ email: { payload: Schema.Struct({ to: Schema.String }) } })
 * const typed = Alarms.make(alarms)
 * yield* typed.scheduleAlarm({ tag: "email", id: "1", payload: { to: "a@b" }, runAt })
 * yield* typed.processDueAlarms(Alarms.handlers({ email: (event) => send(event.payload.to) }))
 * ```
 */
import { Effect, Schema } from "effect"
import type {
  AlarmEvent,
  AlarmPayload,
  AlarmRef,
  AlarmScheduler,
  AlarmTransaction,
  ProcessDueAlarmsHandler,
  ScheduleAlarmInput
} from "./api.ts"
import type { StorageOperationError } from "./api.ts"
import { InvalidAlarmPayloadError, InvalidAlarmRefError, StoredAlarmDecodeError } from "./api.ts"
import { storageIdOf } from "./schema.ts"

/** The payload schema of one tag: the decoded type in code, a JSON value in storage. */
export interface AlarmDefinition<A = any> {
  readonly payload: Schema.Codec<A, any, never, never>
}

/** Definitions keyed by tag. */
export type AlarmDefinitions = Readonly<Record<string, AlarmDefinition>>

/** The decoded payload type of a tag. */
export type PayloadOf<D extends AlarmDefinitions, Tag extends keyof D> = D[Tag]["payload"]["Type"]

/** Schedule input with a typed payload. */
export type DefinedScheduleAlarmInput<D extends AlarmDefinitions> = {
  readonly [Tag in keyof D & string]: Omit<ScheduleAlarmInput<Tag>, "payload"> & { readonly payload: PayloadOf<D, Tag> }
}[keyof D & string]

/** Mutations of a typed transaction. */
export interface DefinedAlarmTransaction<D extends AlarmDefinitions> {
  readonly scheduleAlarm: (input: DefinedScheduleAlarmInput<D>) => ReturnType<AlarmTransaction["scheduleAlarm"]>
  readonly scheduleAlarmEarlier: (input: DefinedScheduleAlarmInput<D>) => ReturnType<AlarmTransaction["scheduleAlarm"]>
  readonly cancelAlarm: (input: AlarmRef<keyof D & string>) => ReturnType<AlarmTransaction["cancelAlarm"]>
}

/** A typed view of a scheduler. */
export interface DefinedAlarmScheduler<D extends AlarmDefinitions> extends DefinedAlarmTransaction<D> {
  readonly getAlarmStatus: (input: AlarmRef<keyof D & string>) => ReturnType<AlarmScheduler["getAlarmStatus"]>
  readonly transaction: <A, E, R>(
    closure: (alarms: DefinedAlarmTransaction<D>) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StorageOperationError, R>
  readonly processDueAlarms: AlarmScheduler["processDueAlarms"]
}

/** A typed event: the payload decoded by its tag's schema. */
export interface DefinedAlarmEvent<D extends AlarmDefinitions, Tag extends keyof D & string> extends Omit<AlarmEvent<Tag>, "payload"> {
  readonly payload: PayloadOf<D, Tag>
}

/** One handler per tag. */
export type DefinedAlarmHandlers<D extends AlarmDefinitions, R, E> = {
  readonly [Tag in keyof D & string]: (event: DefinedAlarmEvent<D, Tag>) => Effect.Effect<unknown, E, R>
}

const unknownTag = (tag: string) => new InvalidAlarmRefError({ cause: new Error(`unknown alarm tag "${tag}"`) })

/** Binds tags to payload schemas. */
export const defineAlarms = <const D extends AlarmDefinitions>(definitions: D) => {
  const definitionFor = (tag: string): AlarmDefinition | undefined =>
    Object.hasOwn(definitions, tag) ? definitions[tag] : undefined

  const bind = (mutations: AlarmTransaction): DefinedAlarmTransaction<D> => {
    // Upstream's span names (seed: `Effect.fn("DefinedAlarms.scheduleAlarm")`, `"DefinedAlarms.cancelAlarm"`).
    const schedule = (method: "scheduleAlarm" | "scheduleAlarmEarlier") =>
      Effect.fn("DefinedAlarms.scheduleAlarm")(function*(input: DefinedScheduleAlarmInput<D>) {
        const definition = definitionFor(input.tag)
        if (definition === undefined) return yield* Effect.fail(unknownTag(input.tag))
        const encoded = yield* Schema.encodeEffect(definition.payload)(input.payload).pipe(
          Effect.flatMap((value) => Schema.decodeUnknownEffect(Schema.Json)(value)),
          Effect.mapError((cause) => new InvalidAlarmPayloadError({ cause }))
        )
        yield* mutations[method]({ ...input, payload: encoded as AlarmPayload })
      })
    return {
      scheduleAlarm: schedule("scheduleAlarm"),
      scheduleAlarmEarlier: schedule("scheduleAlarmEarlier"),
      cancelAlarm: Effect.fn("DefinedAlarms.cancelAlarm")(function*(input: AlarmRef<keyof D & string>) {
        if (definitionFor(input.tag) === undefined) return yield* Effect.fail(unknownTag(input.tag))
        yield* mutations.cancelAlarm(input)
      })
    }
  }

  return {
    definitions,
    /** A typed view of `alarms`. */
    make: (alarms: AlarmScheduler): DefinedAlarmScheduler<D> => ({
      ...bind(alarms),
      // Reads pass straight through, as upstream does: a status read of an undeclared tag is
      // simply absent (only writes are checked against the definitions, R29).
      getAlarmStatus: (input) => alarms.getAlarmStatus(input),
      transaction: (closure) => alarms.transaction((tx) => closure(bind(tx))),
      processDueAlarms: alarms.processDueAlarms
    }),
    /**
     * A `processDueAlarms` handler dispatching by tag. An undeclared stored tag or an undecodable
     * payload fails the row with `StoredAlarmDecodeError` (a handler failure: backoff and parking apply).
     */
    handlers: <R, E>(handlers: DefinedAlarmHandlers<D, R, E>): ProcessDueAlarmsHandler<R, E | StoredAlarmDecodeError> =>
    (event) =>
      Effect.gen(function*() {
        const definition = definitionFor(event.tag)
        const handler = Object.hasOwn(handlers, event.tag)
          ? (handlers as Record<string, (event: DefinedAlarmEvent<D, any>) => Effect.Effect<unknown, E, R>>)[event.tag]
          : undefined
        if (definition === undefined || handler === undefined) {
          return yield* Effect.fail(
            new StoredAlarmDecodeError({ cause: new Error("unknown alarm tag"), storageId: storageIdOf(event), tag: event.tag, id: event.id })
          )
        }
        const payload = yield* Schema.decodeUnknownEffect(definition.payload)(event.payload).pipe(
          Effect.mapError((cause) => new StoredAlarmDecodeError({ cause, storageId: storageIdOf(event), tag: event.tag, id: event.id }))
        )
        return yield* handler({ ...event, payload })
      })
  }
}
