/**
 * A third-party implementation module in the shape `--implementation` takes (a default-exported
 * binding, no `suites` export), wrapping the shipped scheduler under another name: the do-sqlite host
 * test bundles it with `extraSuitesModule` to show such modules run inside the Durable Object.
 */
import { shippedAlarms } from "../../subjects/alarms/index.ts"

/** Name of the wrapped implementation in reports. */
export const SHIPPED_AS_THIRD_PARTY_NAME = "third-party/shipped-copy"

export default {
  subject: "alarms",
  implementation: { name: SHIPPED_AS_THIRD_PARTY_NAME, make: shippedAlarms.make },
  version: "1.0.0"
} as const
