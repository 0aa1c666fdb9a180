/**
 * The alarms suite bound to each known-bad implementation, as a module exporting `suites`: the shape
 * the do-sqlite host bundles into its worker (`extraSuitesModule`) and the workerd test worker registers,
 * so the conformance object can run `alarms/*` properties bound to `known-bad/<id>`.
 */
import type { SubjectSuite } from "../../harness/Suite.ts"
import { alarmsSuite } from "../../properties/alarms/index.ts"
import { knownBadAlarms } from "../known-bad/alarms/index.ts"
import { cronSuite } from "../../properties/cron/index.ts"
import { knownBadCrons } from "../known-bad/cron/index.ts"
import { catchingEverything, keepsGoingAfterCrash, withoutHookPoints } from "../subjects/alarmsVariants.ts"
import { contentSuite } from "../../properties/content/index.ts"
import { knownBadContents } from "../known-bad/content/index.ts"
import { clocksSuite } from "../../properties/clocks/index.ts"
import { knownBadClocks } from "../known-bad/clocks/index.ts"

/**
 * One alarms suite per known-bad implementation (implementation name `known-bad/<id>`), and one per
 * storage-fault variant of the shipped scheduler (`test/subjects/alarmsVariants.ts`).
 */
export const suites: ReadonlyArray<SubjectSuite> = [
  ...knownBadAlarms.map((bad) => alarmsSuite(bad.implementation)),
  ...[withoutHookPoints, catchingEverything, keepsGoingAfterCrash].map((implementation) => alarmsSuite(implementation)),
  ...knownBadCrons.map((bad) => cronSuite(bad.implementation)),
  ...knownBadContents.map((bad) => contentSuite(bad.implementation)),
  ...knownBadClocks.map((bad) => clocksSuite(bad.implementation))
]
