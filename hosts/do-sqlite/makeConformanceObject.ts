/**
 * The Durable Object class in which do-sqlite properties run.
 *
 * Durable Object SQLite exists only inside the object, so the runner, the property and the subject's
 * implementation all run there, against `makeDoSqliteAdapter(this.ctx)`. The class is built from a
 * property lookup so the shipped object (`ConformanceObject.ts`, the suite's registry) and test objects
 * (with test-only properties) share one implementation.
 */
import type { AlarmInvocationInfo } from "@cloudflare/workers-types"
import { DurableObject } from "cloudflare:workers"
import { Cause, Effect, Exit } from "effect"
import type { AdapterFingerprint, HostedRunRequest, HostedScenarioRequest, StorageAdapter } from "../../adapters/contract.ts"
import type { ExecutionTrace, PropertyDefinition } from "../../harness/Property.ts"
import { executeScenario, runProperty } from "../../harness/Runner.ts"
import { type Shard, shardProblem } from "../../harness/Shard.ts"
import type { PropertyRun } from "../../harness/RunResult.ts"
import { makeDoSqliteAdapter, makeDoSqlClient, nativePlatformAlarm, NATIVE_ALARM_HORIZON_MS } from "../../adapters/do-sqlite/adapter.ts"
import { registeredAlarmHandlers } from "./alarmHandlers.ts"
import { encodeHostedError } from "./hostedErrors.ts"

/** Bindings the conformance object reads. */
export interface ConformanceEnv {
  /** Version of the workerd binary (set by the host; workerd cannot report it from inside). */
  readonly WORKERD_VERSION?: string
}

/**
 * Finds a registered property by id, bound to `implementation` when one is named (see
 * `hostedSuites.ts`, `findHostedProperty`).
 */
export type PropertyLookup = (propertyId: string, implementation?: string) => PropertyDefinition<any> | undefined

/** Most property runs that may wait for this object at once; runs execute one after another. */
export const MAX_QUEUED_RUNS = 64

const describeCause = (cause: Cause.Cause<unknown>): { message: string; hint: string } => {
  const error = Cause.squash(cause)
  if (typeof error === "object" && error !== null && "message" in error) {
    const hint = "hint" in error && typeof error.hint === "string" ? error.hint : "rerun with --verbose for the stack"
    return { message: String(error.message), hint }
  }
  return { message: String(error), hint: "rerun with --verbose for the stack" }
}

const isHostedRunRequest = (value: unknown): value is HostedRunRequest =>
  typeof value === "object" && value !== null &&
  typeof (value as HostedRunRequest).propertyId === "string" &&
  typeof (value as HostedRunRequest).seed === "number" &&
  typeof (value as HostedRunRequest).runs === "number"

/**
 * Optional wall-clock budgets a request may carry beyond `HostedRunRequest` (`timeLimitMs`,
 * `runTimeoutMs` of the runner); forwarded when they are positive numbers.
 */
const runBudgets = (request: HostedRunRequest): { timeLimitMs?: number; runTimeoutMs?: number; stopAfterFailures?: number; checkDeterminism?: boolean; shard?: Shard } => {
  const extra = request as HostedRunRequest & { readonly timeLimitMs?: unknown; readonly runTimeoutMs?: unknown; readonly stopAfterFailures?: unknown; readonly checkDeterminism?: unknown; readonly shard?: unknown }
  const budgets: { timeLimitMs?: number; runTimeoutMs?: number; stopAfterFailures?: number; checkDeterminism?: boolean; shard?: Shard } = {}
  if (extra.checkDeterminism === true) budgets.checkDeterminism = true
  const shard = extra.shard as Partial<Shard> | undefined
  if (typeof shard === "object" && shard !== null && typeof shard.index === "number" && typeof shard.count === "number" && shardProblem({ index: shard.index, count: shard.count }) === undefined) {
    budgets.shard = { index: shard.index, count: shard.count }
  }
  if (typeof extra.timeLimitMs === "number" && extra.timeLimitMs > 0) budgets.timeLimitMs = extra.timeLimitMs
  if (typeof extra.runTimeoutMs === "number" && extra.runTimeoutMs > 0) budgets.runTimeoutMs = extra.runTimeoutMs
  if (typeof extra.stopAfterFailures === "number" && Number.isSafeInteger(extra.stopAfterFailures) && extra.stopAfterFailures > 0) {
    budgets.stopAfterFailures = extra.stopAfterFailures
  }
  return budgets
}

const isHostedScenarioRequest = (value: unknown): value is HostedScenarioRequest =>
  typeof value === "object" && value !== null &&
  typeof (value as HostedScenarioRequest).propertyId === "string" &&
  typeof (value as HostedScenarioRequest).implementation === "string" &&
  "scenario" in value

/** The implementation a request names, when it names one as a string. */
const requestedImplementation = (request: { readonly implementation?: unknown }): string | undefined =>
  typeof request.implementation === "string" ? request.implementation : undefined

const unknownProperty = (propertyId: string, implementation: string | undefined): Error =>
  new Error(encodeHostedError(
    implementation === undefined
      ? `no property ${propertyId} is registered in the conformance object`
      : `no property ${propertyId} bound to implementation ${implementation} is registered in the conformance object`,
    implementation === undefined
      ? "list properties with `durable-conformance list`; the worker bundle may be older than the suite"
      : "bundle the module exporting that implementation's suites into the worker (host option extraSuitesModule)"
  ))

/** Builds the conformance Durable Object class over `findProperty`. */
export const makeConformanceObject = (findProperty: PropertyLookup) =>
  class ConformanceObjectBase extends DurableObject<ConformanceEnv> {
    /** Runs are serialized: the object holds one database, and each scenario wipes it. */
    #tail: Promise<unknown> = Promise.resolve()
    #queued = 0

    /** The do-sqlite adapter bound to this object (private: not callable over RPC). */
    #adapter(): StorageAdapter {
      const workerdVersion = this.env.WORKERD_VERSION
      return makeDoSqliteAdapter(this.ctx, workerdVersion === undefined ? {} : { workerdVersion })
    }

    /** RPC: what this object certifies (adapter, engine, capabilities). */
    async fingerprint(): Promise<AdapterFingerprint> {
      return Effect.runPromise(this.#adapter().fingerprint)
    }

    /**
     * RPC: runs a registered property here with the shared runner. Throws an `Error` whose message
     * carries message and hint (see `hostedErrors.ts`) when the request or the run is invalid.
     */
    async runProperty(request: HostedRunRequest): Promise<PropertyRun> {
      if (!isHostedRunRequest(request)) {
        throw new Error(encodeHostedError("invalid run request", "send { propertyId: string, seed: number, runs: number }"))
      }
      const implementation = requestedImplementation(request)
      const property = findProperty(request.propertyId, implementation)
      if (property === undefined) throw unknownProperty(request.propertyId, implementation)
      return this.#serialized(() =>
        runProperty({ property, adapter: this.#adapter(), seed: request.seed, runs: request.runs, ...runBudgets(request) })
      )
    }

    /**
     * RPC: executes one scenario of a registered property on a fresh database here (replay), under
     * the same deterministic run environment as the runner. Throws like `runProperty`.
     */
    async executeScenario(request: HostedScenarioRequest): Promise<ExecutionTrace> {
      if (!isHostedScenarioRequest(request)) {
        throw new Error(encodeHostedError("invalid scenario request", "send { propertyId: string, implementation: string, scenario: JSON }"))
      }
      const property = findProperty(request.propertyId, request.implementation)
      if (property === undefined) throw unknownProperty(request.propertyId, request.implementation)
      const extra = request as HostedScenarioRequest & { readonly runTimeoutMs?: unknown }
      const runTimeoutMs = typeof extra.runTimeoutMs === "number" && extra.runTimeoutMs > 0 ? extra.runTimeoutMs : undefined
      return this.#serialized(() => executeScenario(property, this.#adapter(), request.scenario, runTimeoutMs))
    }

    /** Runs `work` after every earlier run of this object, at most `MAX_QUEUED_RUNS` waiting. */
    #serialized<A>(work: () => Effect.Effect<A, unknown>): Promise<A> {
      if (this.#queued >= MAX_QUEUED_RUNS) {
        throw new Error(encodeHostedError(`more than ${MAX_QUEUED_RUNS} runs are waiting for this object`, "send runs one after another"))
      }
      this.#queued += 1
      const run = this.#tail.then(async () => {
        const exit = await Effect.runPromiseExit(work())
        if (Exit.isSuccess(exit)) return exit.value
        const { message, hint } = describeCause(exit.cause)
        throw new Error(encodeHostedError(message, hint))
      }).finally(() => {
        this.#queued -= 1
      })
      this.#tail = run.catch(() => undefined)
      return run
    }

    /**
     * A real platform alarm delivery: runs the registered handlers (see `alarmHandlers.ts`). A handler
     * failure makes this throw, so workerd retries a scheduled alarm (`runDurableObjectAlarm` rejects).
     */
    async alarm(info?: AlarmInvocationInfo): Promise<void> {
      const storage = this.ctx.storage
      const handlers = registeredAlarmHandlers()
      if (handlers.length === 0) return
      const exit = await Effect.runPromiseExit(Effect.scoped(Effect.gen(function*() {
        const sql = yield* makeDoSqlClient(storage)
        const delivery = {
          sql,
          platformAlarm: nativePlatformAlarm(storage),
          retryCount: info?.retryCount ?? 0,
          isRetry: info?.isRetry ?? false,
          scheduledAtMs: info?.scheduledTime === undefined ? null : info.scheduledTime - NATIVE_ALARM_HORIZON_MS
        }
        for (const [name, handler] of handlers) {
          yield* handler(delivery).pipe(Effect.mapError((cause) =>
            new Error(`handler ${name}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
          ))
        }
      })))
      if (Exit.isFailure(exit)) {
        const { message } = describeCause(exit.cause)
        throw new Error(`platform alarm handler failed: ${message}`)
      }
    }
  }
