/**
 * notify on the caller's connection (P6, own): notify runs `pg_notify` through the client, so inside a
 * transaction it joins the caller's transaction (delivered only if and when it commits) instead of
 * taking a checkout of its own.
 *
 * Breaks POL-006.
 */
import { Effect } from "effect"
import { knownBadPool } from "./kit.ts"

/** The notify-in-transaction known-bad. */
export const notifyOnCallerTransaction = knownBadPool({
  name: "notify-on-caller-transaction",
  bug: "P6: notify runs on the caller's transaction connection instead of a checkout of its own",
  breaks: ["POL-006"],
  pieces: { notify: (runtime, channel, payload) => Effect.asVoid(runtime.client`SELECT pg_notify(${channel}, ${payload})`) }
})
