import type { BlindBugSet } from "./BlindBug.ts"

/** A third blind set for pool, written by another author who had not read the suite. */
export const bugs: BlindBugSet = {
  subject: "pool",
  implementation: "examples/third-party-pool",
  bugs: [
    {
      id: "gate-keeps-last-slot-for-handover",
      file: "examples/third-party-pool/theirPool.ts",
      find: "if (freeSlots > 0 && waiters.length === 0) {",
      replace: "if (freeSlots > 1 && waiters.length === 0) {",
      rules: ["P2"],
      summary: "Only take a gate slot on the fast path while more than one is free, keeping the last one for the hand-over path.",
      observable: "At most maxConnections - 1 checkouts run at once while a connection sits idle; with maxConnections 1 every checkout waits forever."
    },
    {
      id: "release-returns-slot-and-wakes-waiter",
      file: "examples/third-party-pool/theirPool.ts",
      find: "    if (oldest === undefined) freeSlots += 1\n    else Deferred.doneUnsafe(oldest, Exit.void)",
      replace: "    freeSlots += 1\n    if (oldest !== undefined) Deferred.doneUnsafe(oldest, Exit.void)",
      rules: ["P2", "P3"],
      summary: "Always return a freed slot to the free count, then wake the oldest waiter, so the free count stays accurate.",
      observable: "After a release while callers wait, a newly arriving checkout also gets a slot: more than maxConnections checkouts pass the gate and the extra ones wait inside the driver pool, out of arrival order."
    },
    {
      id: "cancelled-waiter-always-passes-on",
      file: "examples/third-party-pool/theirPool.ts",
      find: "          if (index >= 0) waiters.splice(index, 1)\n          else passOn() // it was handed the slot already: pass it to the next waiter",
      replace: "          if (index >= 0) waiters.splice(index, 1)\n          passOn() // a waiter that gives up passes its turn on to the next waiter",
      rules: ["P2", "P4", "P3"],
      summary: "Have an interrupted waiter always pass its turn on to the next waiter, whether or not it had been handed a slot yet.",
      observable: "Each queued checkout cancelled before its turn (e.g. by a timeout) conjures an extra gate slot: afterwards more than maxConnections checkouts run at once and the surplus queues inside the driver pool out of order."
    },
    {
      id: "admission-counts-refused-checkouts",
      file: "examples/third-party-pool/theirPool.ts",
      find: "    if (admittedCheckouts >= admissionLimit) {\n      return Effect.fail(poolRefusal(new PoolRefused({ admittedCheckouts, admissionLimit })))\n    }\n    admittedCheckouts += 1\n",
      replace: "    admittedCheckouts += 1\n    if (admittedCheckouts > admissionLimit) {\n      return Effect.fail(poolRefusal(new PoolRefused({ admittedCheckouts, admissionLimit })))\n    }\n",
      rules: ["P1", "P4"],
      summary: "Count the checkout before comparing with the limit, so a refusal reports the count including the refused request.",
      observable: "Every refused checkout keeps an admission slot for good: after one overload burst the pool refuses checkouts although far fewer than maxConnections + 64 are held, eventually refusing everything."
    },
    {
      id: "transaction-takes-slots-twice",
      file: "examples/third-party-pool/theirPool.ts",
      find: "transactionAcquirer: Effect.map(reserved, asSqlConnection),",
      replace: "transactionAcquirer: Effect.map(Effect.andThen(slots, reserved), asSqlConnection),",
      rules: ["P4", "P2", "P1"],
      summary: "Make the transaction acquirer take its checkout slots explicitly before reserving its connection.",
      observable: "Each withTransaction holds two gate and two admission slots: with maxConnections 1 a transaction hangs forever, and N concurrent transactions on N connections deadlock."
    },
    {
      id: "long-channel-name-only-warns",
      file: "examples/third-party-pool/theirPool.ts",
      find: "return Effect.fail(new SqlError({ reason: new UnknownError({ cause: new Error(message), message, operation: \"notify\" }) }))",
      replace: "return Effect.logWarning(message)",
      rules: ["P6"],
      summary: "Downgrade the channel-name length check to a warning; the server enforces the limit itself.",
      observable: "notify with a channel name over 63 bytes is not rejected up front: a pg_notify statement is sent to the server and the caller gets the server's error (or a truncated channel) instead."
    },
    {
      id: "retry-delay-clamped-with-max",
      file: "examples/third-party-pool/theirPool.ts",
      find: "Effect.succeed(Duration.min(duration, Duration.millis(RETRY_MAX_DELAY_MS)))",
      replace: "Effect.succeed(Duration.max(duration, Duration.millis(RETRY_MAX_DELAY_MS)))",
      rules: ["P7"],
      summary: "Clamp each refusal retry delay against the 250 ms bound.",
      observable: "A refused checkout under retryPoolRefusal first retries after 250 ms instead of 10 ms, and later delays grow past 250 ms (320, 640 ms ...)."
    },
    {
      id: "borrowed-statement-retries-refusal",
      file: "examples/third-party-pool/theirPool.ts",
      find: "Effect.scoped(Effect.andThen(slots, driverPool.use((session) => f(asSqlConnection(session)))))",
      replace: "Effect.scoped(Effect.andThen(retryPoolRefusal(slots), driverPool.use((session) => f(asSqlConnection(session)))))",
      rules: ["P1"],
      summary: "Let plain statements ride out a transient admission refusal by retrying their checkout internally.",
      observable: "A plain statement issued while maxConnections + 64 checkouts are held is not refused at once; it hangs, retrying, until a slot frees up."
    }
  ]
}
