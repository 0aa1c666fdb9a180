import type { BlindBugSet } from "./BlindBug.ts"

/** A second blind set for pool, written by another author who had not read the suite. */
export const bugs: BlindBugSet = {
  subject: "pool",
  implementation: "examples/third-party-pool",
  bugs: [
    {
      id: "cancelled-waiter-splice-drops-followers",
      file: "examples/third-party-pool/theirPool.ts",
      find: "if (index >= 0) waiters.splice(index, 1)",
      replace: "if (index >= 0) waiters.splice(index)",
      rules: ["P2", "P4"],
      summary: "Simplify the removal of a cancelled waiter's turn from the waiter list.",
      observable: "When a queued checkout is cancelled (e.g. by a timeout), every checkout that queued after it is dropped from the queue and hangs forever even once connections are free."
    },
    {
      id: "gate-wait-uninterruptible",
      file: "examples/third-party-pool/theirPool.ts",
      find: "Effect.flatMap(take(restore), (waited) =>",
      replace: "Effect.flatMap(take(Effect.uninterruptible), (waited) =>",
      rules: ["P4", "P2"],
      summary: "Keep the wait for a hand-over uninterruptible, so a slot can never be lost between being handed over and registered.",
      observable: "A checkout queued on a full pool ignores cancellation: Effect.timeout or interrupting the caller does nothing until some connection is released."
    },
    {
      id: "admission-taken-after-gate",
      file: "examples/third-party-pool/theirPool.ts",
      find: "return Effect.andThen(admission.enter, gate.enter)",
      replace: "return Effect.andThen(gate.enter, admission.enter)",
      rules: ["P1"],
      summary: "Take the admission slot only once the gate has a connection slot, so queued callers don't hold admission.",
      observable: "Checkouts on a full pool are never refused: more than maxConnections + 64 callers all queue and wait instead of getting a pool refusal at once."
    },
    {
      id: "admission-limit-is-waiters-only",
      file: "examples/third-party-pool/theirPool.ts",
      find: "const admission = makeAdmission(connectionCount + POOL_WAITERS)",
      replace: "const admission = makeAdmission(POOL_WAITERS)",
      rules: ["P1"],
      summary: "Bound admission by POOL_WAITERS, the documented cap on checkouts a pool holds.",
      observable: "With maxConnections 10, the 65th concurrent checkout is already refused although up to 74 must be admitted (and with more than 64 connections the pool can never use them all)."
    },
    {
      id: "borrowed-statement-releases-slots-early",
      file: "examples/third-party-pool/theirPool.ts",
      find: "Effect.scoped(Effect.andThen(slots, driverPool.use((session) => f(asSqlConnection(session)))))",
      replace: "Effect.andThen(Effect.scoped(slots), driverPool.use((session) => f(asSqlConnection(session))))",
      rules: ["P4", "P2", "P3", "P1"],
      summary: "Scope the slot check tightly to the checkout; driverPool.use already returns the connection when the statement ends.",
      observable: "Plain statements run concurrently beyond maxConnections queue inside the driver pool, out of arrival order, and are never refused past maxConnections + 64."
    },
    {
      id: "channel-limit-namedatalen",
      file: "examples/third-party-pool/theirPool.ts",
      find: "const MAX_CHANNEL_NAME_BYTES = 63",
      replace: "const MAX_CHANNEL_NAME_BYTES = 64",
      rules: ["P6"],
      summary: "Use Postgres's NAMEDATALEN (64) as the channel name limit.",
      observable: "notify with a channel name of exactly 64 bytes is not rejected up front and its pg_notify statement is sent to the server."
    },
    {
      id: "refusal-cause-readable-error",
      file: "examples/third-party-pool/theirPool.ts",
      find: "return Effect.fail(poolRefusal(new PoolRefused({ admittedCheckouts, admissionLimit })))",
      replace: "return Effect.fail(poolRefusal(new Error(`admission full: ${admittedCheckouts}/${admissionLimit} checkouts held`)))",
      rules: ["P1", "P7"],
      summary: "Give a refused checkout a plain, readable cause with the counts instead of a bespoke tagged error.",
      observable: "A refused checkout is no longer recognisable as a pool refusal: isPoolRefusal returns false for it and retryPoolRefusal fails at once instead of retrying."
    },
    {
      id: "retry-ladder-jittered",
      file: "examples/third-party-pool/theirPool.ts",
      find: "Effect.succeed(Duration.min(duration, Duration.millis(RETRY_MAX_DELAY_MS))))\n)",
      replace: "Effect.succeed(Duration.min(duration, Duration.millis(RETRY_MAX_DELAY_MS)))),\n  Schedule.jittered\n)",
      rules: ["P7"],
      summary: "Add jitter to the refusal retry ladder so refused callers don't all come back at the same instant.",
      observable: "Retries of a refused checkout are not at 10, 20, 40 ms ... capped at 250 ms: each delay is off by up to 20%, and capped delays reach up to 300 ms."
    }
  ]
}
