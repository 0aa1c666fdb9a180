/**
 * P1 and P7 from the caller's side. `refusal`: admission filled to `maxConnections + 64` checkouts,
 * one more is refused at once with a retryable `SqlError` that `isPoolRefusal` recognises (P1).
 * `foreign`: failures the pool never makes, and a failed statement whose cause is a real refusal's
 * cause, are never recognised as refusals, never retried by `retryPoolRefusal` (P7, I5) and never turn
 * into a defect (`isPoolRefusal` answers for any value).
 */
import { Data, Effect, Fiber, Option } from "effect"
import { ConnectionError, SqlError, UnknownError } from "effect/sql/SqlError"
import type { Check } from "../../harness/ModelBased.ts"
import type { HarnessError } from "../../harness/errors.ts"
import { POOL_WAITERS } from "../../subjects/pool/api.ts"
import type { ForeignError } from "./surfaceScenario.ts"
import { errorShape, failureOf, outcomeOf, type ProbeResult, retryableOf, RETRY_WINDOW_MS, runBounded, type SurfaceContext } from "./surfaceRuntime.ts"

/** A domain error of the caller's own, which the pool never makes. */
export class ForeignDomainError extends Data.TaggedError("ForeignDomainError")<{ readonly detail: string }> {}

/** A failure of kind `kind` that is not a pool refusal. */
export const foreignError = (kind: ForeignError): unknown => {
  switch (kind) {
    case "tagged":
      return new ForeignDomainError({ detail: "the caller's own failure" })
    case "string":
      return "a failure that is a plain string"
    case "object":
      return { code: "E_FOREIGN", message: "a plain object without a reason" }
    case "connection":
      return new SqlError({ reason: new ConnectionError({ cause: new Error("socket closed by the server"), message: "connection lost while a statement ran", operation: "execute" }) })
  }
}

/** `isPoolRefusal(value)`, or how it failed to answer. */
const recognised = (isPoolRefusal: (cause: unknown) => boolean, value: unknown): string => {
  try {
    return String(isPoolRefusal(value))
  } catch (error) {
    return `threw ${error instanceof Error ? error.name : typeof error}`
  }
}

/** The checks of one foreign failure: not recognised, tried once, surfaced unchanged. */
const foreignChecks = (context: SurfaceContext, label: string, error: unknown, rules: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Check>, HarnessError> =>
  Effect.gen(function*() {
    let attempts = 0
    const failing = Effect.suspend(() => {
      attempts += 1
      return Effect.fail(error)
    })
    const exit = yield* runBounded(context, context.implementation.retryPoolRefusal(failing), RETRY_WINDOW_MS)
    const same = exit !== undefined && Option.getOrUndefined(failureOf(exit)) === error
    return [
      {
        observable: `isPoolRefusal(${label})`,
        expected: "false",
        actual: recognised(context.implementation.isPoolRefusal, error),
        rules,
        why: "isPoolRefusal recognises only the pool's pre-statement refusal, and answers for any value"
      },
      {
        observable: `retryPoolRefusal of an effect failing with ${label}`,
        expected: { attempts: 1, outcome: "failed with the same error" },
        actual: { attempts, outcome: same ? "failed with the same error" : outcomeOf(exit) },
        rules,
        why: "the retry helper retries only pool refusals: any other failure is surfaced at once, unchanged"
      }
    ]
  })

/** The `foreign` probe. */
export const foreignProbe = (context: SurfaceContext, kind: ForeignError): Effect.Effect<ProbeResult, HarnessError> =>
  Effect.map(foreignChecks(context, `a ${kind} failure`, foreignError(kind), kind === "connection" ? ["I5", "P7"] : ["P7"]), (checks) => ({
    checks,
    covered: kind === "connection" ? ["POL-007", "POL-012"] : ["POL-007"],
    implementation: checks.map((check) => check.actual),
    model: checks.map((check) => check.expected)
  }))

/** Holds `count` checkouts (each a reservation kept until interrupted), forked. */
const fill = (context: SurfaceContext, count: number) =>
  Effect.forEach(Array.from({ length: count }), () => Effect.forkChild(Effect.scoped(Effect.andThen(context.pool.reserve, Effect.never))))

/** The `refusal` probe. */
export const refusalProbe = (context: SurfaceContext): Effect.Effect<ProbeResult, HarnessError> =>
  Effect.gen(function*() {
    const fibers = yield* fill(context, context.maxConnections + POOL_WAITERS)
    yield* context.quiet
    const exit = yield* runBounded(context, Effect.scoped(context.pool.reserve))
    yield* Fiber.interruptAll([...fibers].reverse())
    yield* context.quiet
    const refusal = exit === undefined ? undefined : Option.getOrUndefined(failureOf(exit))
    const shape = refusal === undefined ? outcomeOf(exit) : `failed: ${errorShape(refusal)}`
    const checks: Array<Check> = [{
      observable: `a checkout past maxConnections + ${POOL_WAITERS} admitted ones`,
      expected: { outcome: "failed: SqlError", retryable: true, isPoolRefusal: "true" },
      actual: { outcome: shape, retryable: refusal === undefined ? "no error" : retryableOf(refusal), isPoolRefusal: refusal === undefined ? "no error" : recognised(context.implementation.isPoolRefusal, refusal) },
      rules: ["P1"],
      why: "past the bound a checkout is refused at once with a retryable error (a SqlError, the client's error type) recognisable as a pool refusal"
    }]
    if (refusal !== undefined) {
      // A failed statement whose cause is the refusal's own cause: a statement failure, never a refusal.
      const inner = (refusal as { readonly reason?: { readonly cause?: unknown } }).reason?.cause ?? refusal
      const wrapped = new SqlError({ reason: new UnknownError({ cause: inner, message: "the statement failed on the server", operation: "execute" }) })
      checks.push(...(yield* foreignChecks(context, "a failed statement's SqlError wrapping a refusal's cause", wrapped, ["I5", "P7"])))
    }
    return { checks, covered: ["POL-001", "POL-007", "POL-012"], implementation: checks.map((check) => check.actual), model: checks.map((check) => check.expected) }
  })
