/**
 * Journal identities of the engine's records (C2). `K` is the JSON of an address, `src` the
 * engine's journal source.
 */

/** The JSON key `K` of a `(flowName, executionId, name)` address. */
export const addressKey = (flowName: string, executionId: string, name: string): string =>
  JSON.stringify([flowName, executionId, name])

/** `src:clock:K`: clock-scheduled (seq 0) and clock-completed (seq 1) of one clock. */
export const clockSource = (src: string, key: string): string => `${src}:clock:${key}`

/** `src:deferred:K`: the deferred-completed record (seq 0). */
export const deferredSource = (src: string, key: string): string => `${src}:deferred:${key}`

/** `src:deferred-consumed:K`: the deferred-consumed record (seq 0). */
export const consumedSource = (src: string, key: string): string => `${src}:deferred-consumed:${key}`

/** `src:wake:K`: the sweep's wake identity, stable across sweeps (C12). */
export const wakeSource = (src: string, key: string): string => `${src}:wake:${key}`
