/**
 * notify encodes its payload as JSON (P6, own): `pg_notify(channel, to_json(payload)::text)` on a
 * checkout of its own, so the statement is sent once, outside any transaction, and every listener
 * receives a notification: but with a quoted payload (`"pool-op-o2"`), which no listener's consumer
 * asked for. Only checking what listeners receive catches it.
 *
 * Breaks POL-006.
 */
import { Effect } from "effect"
import { knownBadPool } from "./kit.ts"

/** The JSON-payload notify known-bad. */
export const notifyPayloadAsJson = knownBadPool({
  name: "notify-payload-as-json",
  bug: "P6: notify sends the payload JSON-encoded, so listeners receive it quoted",
  breaks: ["POL-006"],
  pieces: {
    notify: (runtime, channel, payload) =>
      Effect.scoped(Effect.flatMap(runtime.ownCheckout, (connection) => connection.executeRaw("SELECT pg_notify($1, to_json($2::text)::text)", [channel, payload])))
        .pipe(Effect.asVoid)
  }
})
