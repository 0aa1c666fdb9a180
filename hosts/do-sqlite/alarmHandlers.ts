/**
 * What a real platform alarm delivery does inside the conformance Durable Object.
 *
 * workerd calls the object's `alarm()` when its alarm fires (in tests: `runDurableObjectAlarm(stub)`
 * from `cloudflare:test`). The object then runs every registered handler, in registration order, with
 * a SQL client over its storage and its platform alarm slot. A subject registers its dispatch here
 * (the alarms subject: "process the due alarms"), so tests can watch real deliveries.
 */
import type { Effect } from "effect"
import type { PlatformAlarmDelivery } from "../../harness/SubjectPlugin.ts"

/**
 * Everything a handler gets for one delivery: a client over the object's SQLite storage, its platform
 * alarm slot (already cleared by workerd), workerd's retry counter, and the virtual time the alarm was
 * set for when workerd reports it (null for `runDurableObjectAlarm` deliveries). The subject plugins'
 * `platformAlarmDelivery` handlers take exactly this.
 */
export type AlarmDelivery = PlatformAlarmDelivery

/**
 * One delivery's work. A failure makes `alarm()` throw: workerd retries a scheduled alarm, while
 * `runDurableObjectAlarm` (tests) rejects and leaves the slot empty.
 */
export type AlarmHandler = (delivery: AlarmDelivery) => Effect.Effect<void, unknown>

/** Most handlers that may be registered at once (one per subject is the expected use). */
export const MAX_ALARM_HANDLERS = 16

const handlers = new Map<string, AlarmHandler>()

/**
 * Registers `handler` under `name` (replacing an earlier one of that name) and returns a function
 * that removes it again. Throws when `MAX_ALARM_HANDLERS` different names are registered.
 */
export const registerAlarmHandler = (name: string, handler: AlarmHandler): () => void => {
  if (!handlers.has(name) && handlers.size >= MAX_ALARM_HANDLERS) {
    throw new Error(`at most ${MAX_ALARM_HANDLERS} alarm handlers may be registered; unregister one first`)
  }
  handlers.set(name, handler)
  return () => {
    if (handlers.get(name) === handler) handlers.delete(name)
  }
}

/** The registered handlers, in registration order, with their names. */
export const registeredAlarmHandlers = (): ReadonlyArray<readonly [string, AlarmHandler]> => [...handlers.entries()]

/**
 * Registers the platform alarm delivery of every plugin that offers one, under the plugin's name, and
 * returns a function that removes them all again.
 *
 * @example registerPluginDeliveries(subjectPlugins) // the alarms plugin's delivery, under "alarms"
 */
export const registerPluginDeliveries = (
  plugins: ReadonlyArray<{ readonly name: string; readonly platformAlarmDelivery?: AlarmHandler }>
): () => void => {
  const unregisters = plugins.flatMap((plugin) =>
    plugin.platformAlarmDelivery === undefined ? [] : [registerAlarmHandler(plugin.name, plugin.platformAlarmDelivery)]
  )
  return () => unregisters.forEach((unregister) => unregister())
}
