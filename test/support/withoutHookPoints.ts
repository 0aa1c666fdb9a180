/**
 * Running an implementation's effects without hook points: DESIGN.md ("Verdicts hold for code we did
 * not write") requires that an implementation faithful to upstream, without our hook points, passes.
 * `withoutHookPoints(effect)` gives `effect` the production default (every hook point a no-op), so
 * the harness's scripted controller never sees it pause.
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
