/**
 * Named faults, drawn from the same seed as the operations, so they live in the search space and
 * shrink like any other generated data. The harness gives them names and plumbing; each subject's
 * property gives them meaning (which hook points exist, what a redelivery is for that subject).
 */
import * as fc from "fast-check"

/** A crash at the `occurrence`-th hit of hook point `hook`: the open transaction rolls back and the service is rebuilt from storage. */
export interface CrashFault {
  readonly kind: "crash"
  readonly hook: string
  readonly occurrence: number
}

/** The operation at step `step` commits, but the caller is told it failed (Jepsen's `:info` outcome). */
export interface LostAcknowledgementFault {
  readonly kind: "lostAck"
  readonly step: number
}

/** The delivery at step `step` (an alarm, a timer) is delivered twice. */
export interface RedeliveryFault {
  readonly kind: "redelivery"
  readonly step: number
}

/** The handler (or reporter) invoked at step `step` fails. */
export interface HandlerFailureFault {
  readonly kind: "handlerFailure"
  readonly step: number
}

/** The host evicts the object after step `step`: in-memory state is lost, storage survives. */
export interface EvictionFault {
  readonly kind: "eviction"
  readonly step: number
}

/** One named fault. */
export type Fault = CrashFault | LostAcknowledgementFault | RedeliveryFault | HandlerFailureFault | EvictionFault

/** The faults of one scenario, in the order they were drawn. */
export type FaultPlan = ReadonlyArray<Fault>

/** Fault kinds a property may ask for. */
export type FaultKind = Fault["kind"]

/** What a property tells the generator about its fault space. */
export interface FaultSpace {
  /** Hook point names the implementation has (crash targets). */
  readonly hooks: ReadonlyArray<string>
  /** Kinds this property can interpret. */
  readonly kinds: ReadonlyArray<FaultKind>
  /** Highest step index a step-addressed fault may name. */
  readonly maxStep: number
  /** Highest hook occurrence a crash may name (default 4). */
  readonly maxOccurrence?: number
  /** Most faults in one plan (default 2). Plans shrink toward no faults. */
  readonly maxFaults?: number
}

/** Generates fault plans over `space`; shrinks toward the empty plan. */
export const faultPlanArbitrary = (space: FaultSpace): fc.Arbitrary<FaultPlan> => {
  const step = fc.nat({ max: Math.max(0, space.maxStep) })
  const byKind: Record<FaultKind, fc.Arbitrary<Fault> | undefined> = {
    crash: space.hooks.length === 0 ? undefined : fc.record({
      kind: fc.constant("crash" as const),
      hook: fc.constantFrom(...space.hooks),
      occurrence: fc.integer({ min: 1, max: space.maxOccurrence ?? 4 })
    }),
    lostAck: fc.record({ kind: fc.constant("lostAck" as const), step }),
    redelivery: fc.record({ kind: fc.constant("redelivery" as const), step }),
    handlerFailure: fc.record({ kind: fc.constant("handlerFailure" as const), step }),
    eviction: fc.record({ kind: fc.constant("eviction" as const), step })
  }
  const choices = space.kinds.flatMap((kind) => {
    const arbitrary = byKind[kind]
    return arbitrary === undefined ? [] : [arbitrary]
  })
  if (choices.length === 0) return fc.constant([])
  return fc.array(fc.oneof(...choices), { maxLength: space.maxFaults ?? 2 })
}

/** The fault in plain words, for reports and step traces. */
export const describeFault = (fault: Fault): string => {
  switch (fault.kind) {
    case "crash":
      return `crash at hook ${fault.hook} (hit ${fault.occurrence})`
    case "lostAck":
      return `lost acknowledgement of step ${fault.step}`
    case "redelivery":
      return `redelivery at step ${fault.step}`
    case "handlerFailure":
      return `handler failure at step ${fault.step}`
    case "eviction":
      return `eviction after step ${fault.step}`
  }
}

/** The crash of a plan, if it has one (a run crashes at most once per armed point). */
export const crashesOf = (plan: FaultPlan): ReadonlyArray<CrashFault> =>
  plan.filter((fault): fault is CrashFault => fault.kind === "crash")

/** True when the plan has a step-addressed fault of `kind` at `step`. */
export const hasStepFault = (plan: FaultPlan, kind: Exclude<FaultKind, "crash">, step: number): boolean =>
  plan.some((fault) => fault.kind === kind && fault.step === step)
