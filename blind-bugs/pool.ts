import type { BlindBugSet } from "./BlindBug.ts"

const file = "examples/third-party-pool/theirPool.ts"

export const bugs: BlindBugSet = {
  subject: "pool",
  implementation: "examples/third-party-pool",
  bugs: [
    {
      id: "admission-limit-off-by-one",
      file,
      find: "if (admittedCheckouts >= admissionLimit) {",
      replace: "if (admittedCheckouts > admissionLimit) {",
      rules: ["P1"],
      summary: "Refuse a checkout only once the admitted count exceeds the admission limit.",
      observable: "With maxConnections + 64 checkouts held, one more checkout is still admitted and queued instead of being refused at once."
    },
    {
      id: "gate-serves-newest-waiter",
      file,
      find: "const oldest = waiters.shift()",
      replace: "const oldest = waiters.pop()",
      rules: ["P2"],
      summary: "Take the next waiter off the end of the waiter array when a gate slot is freed.",
      observable: "With two or more checkouts queued on a full pool, a freed connection goes to the most recent waiter, so early callers starve behind later ones."
    },
    {
      id: "handover-hook-before-slot-finalizer",
      file,
      find: "Effect.andThen(Effect.addFinalizer(() => release), waited ? restore(handedOver) : Effect.void))",
      replace: "Effect.andThen(waited ? restore(handedOver) : Effect.void, Effect.addFinalizer(() => release)))",
      rules: ["P2", "P4"],
      summary: "Run the hand-over step first and register the gate slot's release only once the waiter has taken over.",
      observable: "A waiter interrupted right when it is handed a connection never gives its gate slot back; the pool loses capacity for good and later checkouts hang."
    },
    {
      id: "commit-check-on-unprepared-rows",
      file,
      find: "connection.executeRaw(\"COMMIT\", []), (result) =>\n    (result as PgConnection.Result).command",
      replace: "connection.executeUnprepared(\"COMMIT\", [], undefined), (result) =>\n    (result as unknown as PgConnection.Result).command",
      rules: ["P5"],
      summary: "Send COMMIT unprepared like the other transaction controls, keeping the ROLLBACK check on its result.",
      observable: "A transaction that caught a failed statement and then commits reports success although Postgres answered ROLLBACK and nothing was written."
    },
    {
      id: "notify-through-client-statement",
      file,
      find: "Effect.scoped(Effect.flatMap(acquirer, (connection) => connection.executeRaw(\"SELECT pg_notify($1, $2)\", [channel, payload])))",
      replace: "client.unsafe(\"SELECT pg_notify($1, $2)\", [channel, payload])",
      rules: ["P6", "P4"],
      summary: "Send NOTIFY as an ordinary client statement instead of hand-acquiring a connection for it.",
      observable: "notify called inside withTransaction runs on the transaction's connection: it is delivered only at commit and lost if the transaction rolls back."
    },
    {
      id: "channel-name-length-in-chars",
      file,
      find: "if (new TextEncoder().encode(channel).byteLength <= MAX_CHANNEL_NAME_BYTES) return Effect.void",
      replace: "if (channel.length <= MAX_CHANNEL_NAME_BYTES) return Effect.void",
      rules: ["P6"],
      summary: "Check the channel name length against the 63 limit directly on the string.",
      observable: "A channel name of at most 63 characters but more than 63 UTF-8 bytes (non-ASCII) is not rejected up front and the NOTIFY statement is sent to the server."
    },
    {
      id: "refusal-recognises-any-connection-error",
      file,
      find: "cause instanceof SqlError && cause.reason._tag === \"ConnectionError\" && cause.reason.cause instanceof PoolRefused",
      replace: "cause instanceof SqlError && cause.reason._tag === \"ConnectionError\"",
      rules: ["P7", "P1"],
      summary: "Recognise a pool refusal by its ConnectionError reason rather than by the wrapped cause class.",
      observable: "A statement whose connection broke mid-flight is classified as a pool refusal and retryPoolRefusal re-runs a statement that may already have executed."
    },
    {
      id: "listen-skips-admission",
      file,
      find: "listen: (channel: string) => Effect.flatMap(reserved, (session) => session.listen(channel)),",
      replace: "listen: (channel: string) => Effect.flatMap(driverPool.reserve, (session) => session.listen(channel)),",
      rules: ["P1", "P3"],
      summary: "Let long-lived listeners reserve their connection straight from the driver pool, outside the checkout gates.",
      observable: "Listeners hold connections the gate still counts as free, so other checkouts queue inside the driver pool out of order and are never refused past the admission bound."
    }
  ]
}
