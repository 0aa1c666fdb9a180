/**
 * Typed definitions (R29) in the alarms properties: a scenario with `knownTags` uses the scheduler
 * through `defineAlarms`, declaring each tag with a JSON payload schema, for every call (schedules,
 * cancels, transactions, handler writes and forked writes) and dispatches through its per-tag
 * handlers, so an undeclared tag is rejected on write and a stored row of an undeclared tag fails on
 * dispatch. Untyped scenarios (`knownTags` null) use the scheduler as it is. A redeploy may narrow
 * some tags' payload schema to numbers (`numberTags`): a schedule of another payload is refused, and a
 * row stored before with another payload fails to decode on dispatch.
 */
import { type Effect, Schema } from "effect"
import type { AlarmEvent, AlarmScheduler } from "../../subjects/alarms/api.ts"
import { defineAlarms } from "../../subjects/alarms/index.ts"

/** The typed definitions of `tags`: every tag's payload is any JSON value, or a number for `numberTags`. */
const definitionsOf = (tags: ReadonlyArray<string>, numberTags: ReadonlyArray<string>) =>
  defineAlarms(Object.fromEntries(tags.map((tag) => [tag, { payload: numberTags.includes(tag) ? Schema.Number : Schema.Json }])))

/**
 * The scheduler the scenario's calls go through: the typed view when `knownTags` is given. The typed
 * view has the untyped surface (its inputs are narrower only in their static types).
 *
 * @example typedScheduler(scheduler, ["a"]).scheduleAlarm({ tag: "b", ... }) // fails with InvalidAlarmRefError
 */
export const typedScheduler = (scheduler: AlarmScheduler, knownTags: ReadonlyArray<string> | null, numberTags: ReadonlyArray<string> = []): AlarmScheduler =>
  knownTags === null ? scheduler : (definitionsOf(knownTags, numberTags).make(scheduler) as unknown as AlarmScheduler)

/**
 * The dispatch handler: `handle` itself, or the typed definitions' per-tag handler table with `handle`
 * for every declared tag (a stored row of an undeclared tag fails with `StoredAlarmDecodeError`).
 */
export const typedHandler = <E>(
  handle: (event: AlarmEvent) => Effect.Effect<void, E>,
  knownTags: ReadonlyArray<string> | null,
  numberTags: ReadonlyArray<string> = []
): (event: AlarmEvent) => Effect.Effect<unknown, unknown> =>
  knownTags === null ? handle : definitionsOf(knownTags, numberTags).handlers(Object.fromEntries(knownTags.map((tag) => [tag, handle])))
