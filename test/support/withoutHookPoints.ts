/**
 * Running an implementation's effects without hook points: DESIGN.md ("Verdicts hold for code we did
 * not write") requires that an implementation faithful to upstream, without our hook points, passes.
 * `withoutHookPoints(effect)` gives `effect` the production default (every hook point a no-op), so
 * the harness's scripted controller never sees it pause; `hooklessService(service)` does so for every
 * method of a service, and fibers the implementation forks inside a call inherit the no-op too.
 */
import { Effect, Stream } from "effect"
import { HookPoints, type HookPointsService } from "../../harness/HookPoints.ts"

/** The production hook points: none pauses. */
const NO_HOOK_POINTS: HookPointsService = { at: () => Effect.void }

/** `effect` run as if the implementation had no hook points. */
export const withoutHookPoints = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, HookPoints, NO_HOOK_POINTS)

/** `stream` run as if the implementation had no hook points. */
export const streamWithoutHookPoints = <A, E, R>(stream: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.provideService(stream, HookPoints, NO_HOOK_POINTS)

/** A plain object with methods (a service a method builds, like cron's relay), as opposed to data. */
const isServiceObject = (value: unknown): value is object =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype &&
  Object.values(value).some((member) => typeof member === "function")

/**
 * `service` with every method's effect or stream run without hook points, and every service a method
 * returns (cron's `runtime.relay(...)`) treated the same (other members as they are).
 *
 * @example const store = hooklessService(yield* shippedContent.make(options))
 */
export const hooklessService = <S extends object>(service: S): S =>
  Object.fromEntries(Object.entries(service).map(([key, member]) => [
    key,
    typeof member !== "function" ? member : (...args: Array<unknown>) => {
      const result: unknown = (member as (...inner: Array<unknown>) => unknown).apply(service, args)
      if (Effect.isEffect(result)) return withoutHookPoints(result)
      if (Stream.isStream(result)) return streamWithoutHookPoints(result)
      return isServiceObject(result) ? hooklessService(result) : result
    }
  ])) as S

/** What `hooklessOf` wraps: any subject's implementation, a name and a `make` that builds its service. */
export interface HookedImplementation {
  readonly name: string
  readonly make: (deps: never) => Effect.Effect<object, unknown, unknown>
}

/**
 * `implementation` with every hook point removed: its service is built and every method runs with the
 * production no-op hook points.
 *
 * @example const bad = hooklessOf(casOwnerFenced.implementation)
 */
export const hooklessOf = <I extends HookedImplementation>(implementation: I, name = `${implementation.name}-without-hook-points`): I =>
  ({ ...implementation, name, make: (deps: never) => Effect.map(withoutHookPoints(implementation.make(deps)), hooklessService) }) as I
