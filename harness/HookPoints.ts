/**
 * Named hook points placed between an implementation's statements (`yield* hookPoint("afterReferenceScan")`).
 *
 * Hook points are an optional refinement for finer interleavings, never the way faults reach an
 * implementation (faults come through the storage boundary, `StorageBoundary.ts`): an implementation
 * without them is certified the same way, with fewer interleavings explored. In production the
 * reference's default is a no-op. Under the harness a scripted controller records each hit and may
 * pause an operation there until the schedule releases it: no sleeps, only barriers.
 */
import { Context, Deferred, Effect } from "effect"
import { noteHookPoint } from "./HookVocabulary.ts"

/** The capability an implementation calls at each hook point. */
export interface HookPointsService {
  /** Called by implementations between statements; may pause or crash under the harness. */
  readonly at: (name: string) => Effect.Effect<void>
}

/** Hook points; the default does nothing, so an implementation runs unchanged outside the harness. */
export const HookPoints = Context.Reference<HookPointsService>("durable-conformance/harness/HookPoints", {
  defaultValue: () => ({ at: () => Effect.void })
})

/** Label of the operation the current fiber runs, so a schedule can pause one operation and not another. */
export const OperationLabel = Context.Reference<string>("durable-conformance/harness/OperationLabel", {
  defaultValue: () => "main"
})

/**
 * Marks a hook point in an implementation. Under the harness the name is checked against the subject's
 * declared hook points (`HookVocabulary.ts`) before the controller sees it.
 */
export const hookPoint = (name: string): Effect.Effect<void> =>
  Effect.andThen(noteHookPoint(name), Effect.flatMap(Effect.service(HookPoints), (hooks) => hooks.at(name)))

/** Runs `effect` labelled as operation `label` (see `OperationLabel`). */
export const labelled = <A, E, R>(label: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, OperationLabel, label)

/** One hit of a hook point, in the order hits happened. */
export interface HookHit {
  readonly hook: string
  readonly label: string
  /** 1 for the first hit of this hook name in the run, 2 for the second, ... */
  readonly occurrence: number
}

/** A paused operation, waiting for `release`. */
export interface PausedAt {
  readonly hook: string
  readonly label: string
}

/** Bound on remembered hits per run, so a runaway loop cannot grow memory without limit. */
export const MAX_RECORDED_HOOK_HITS = 10_000

/**
 * A scripted hook controller for one run: records hits and pauses chosen (label, hook) pairs until
 * released. Built per run; not shared between runs.
 */
export interface ScriptedHooks {
  readonly service: HookPointsService
  /** Hits so far, in order (bounded by `MAX_RECORDED_HOOK_HITS`). */
  readonly hits: () => ReadonlyArray<HookHit>
  /** Arms a pause: the next hit of `hook` (or of any of several) by operation `label` waits until `release(label)`. */
  readonly pauseAt: (label: string, hook: string | ReadonlyArray<string>) => Effect.Effect<void>
  /** Waits until operation `label` is paused at its armed hook. */
  readonly awaitPaused: (label: string) => Effect.Effect<PausedAt>
  /** Releases operation `label` from its pause. */
  readonly release: (label: string) => Effect.Effect<void>
}

interface PauseGate {
  readonly hooks: ReadonlyArray<string>
  readonly reached: Deferred.Deferred<PausedAt>
  readonly released: Deferred.Deferred<void>
}

/** Builds a scripted controller. */
export const makeScriptedHooks: Effect.Effect<ScriptedHooks> = Effect.sync(() => {
  const hits: Array<HookHit> = []
  const occurrences = new Map<string, number>()
  const gates = new Map<string, PauseGate>()

  const at = (name: string): Effect.Effect<void> =>
    Effect.flatMap(Effect.service(OperationLabel), (label) => {
      const occurrence = (occurrences.get(name) ?? 0) + 1
      occurrences.set(name, occurrence)
      if (hits.length < MAX_RECORDED_HOOK_HITS) hits.push({ hook: name, label, occurrence })
      const gate = gates.get(label)
      if (gate === undefined || !gate.hooks.includes(name)) return Effect.void
      gates.delete(label)
      return Deferred.succeed(gate.reached, { hook: name, label }).pipe(
        Effect.andThen(Deferred.await(gate.released))
      )
    })

  const gateFor = (label: string): PauseGate => {
    const gate = gates.get(label)
    if (gate === undefined) throw new Error(`no pause armed for operation ${label}`)
    return gate
  }
  const armed = new Map<string, PauseGate>()

  return {
    service: { at },
    hits: () => hits,
    pauseAt: (label, hook) =>
      Effect.gen(function*() {
        const gate: PauseGate = { hooks: typeof hook === "string" ? [hook] : hook, reached: yield* Deferred.make<PausedAt>(), released: yield* Deferred.make<void>() }
        gates.set(label, gate)
        armed.set(label, gate)
      }),
    awaitPaused: (label) =>
      Effect.suspend(() => {
        const gate = armed.get(label) ?? gateFor(label)
        return Deferred.await(gate.reached)
      }),
    release: (label) =>
      Effect.suspend(() => {
        const gate = armed.get(label)
        if (gate === undefined) return Effect.void
        armed.delete(label)
        return Deferred.succeed(gate.released, undefined).pipe(Effect.asVoid)
      })
  }
})

/** Runs `effect` with the scripted controller installed as the hook points service. */
export const withScriptedHooks = <A, E, R>(hooks: ScriptedHooks, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, HookPoints, hooks.service)

/**
 * The hook points of the calling fiber, captured with its operation label: a callback the harness
 * hands to an implementation (a handler, say) calls the returned function to reach the harness's
 * controller as that operation, even where the implementation runs it with hook points silenced or
 * under another label. The callback's points are the harness's own, so no implementation can skip
 * them: a race placed there holds for an implementation without hook points.
 *
 * @example const at = yield* capturedHookPoints; const handle = (event) => at("harness.handler.start")
 */
export const capturedHookPoints: Effect.Effect<(name: string) => Effect.Effect<void>> = Effect.gen(function*() {
  const hooks = yield* Effect.service(HookPoints)
  const label = yield* Effect.service(OperationLabel)
  return (name: string) => labelled(label, hooks.at(name))
})

/**
 * Whether operation `label` reached any of `points` among the hits after the first `mark` (`hits().length`
 * read before): the hits are bounded, so past `MAX_RECORDED_HOOK_HITS` this answers false.
 */
export const reachedSince = (hooks: ScriptedHooks, mark: number, label: string, points: ReadonlyArray<string>): boolean =>
  hooks.hits().slice(mark).some((hit) => hit.label === label && points.includes(hit.hook))

/** The hook point operation `label` reached last under `hooks` (where it is paused, when it is), if any. */
export const lastPointOf = (hooks: ScriptedHooks, label: string): string | undefined => {
  const hits = hooks.hits()
  for (let index = hits.length - 1; index >= 0; index--) if (hits[index]!.label === label) return hits[index]!.hook
  return undefined
}
