/**
 * Every known-bad cron implementation is caught on do-sqlite (real Durable Object SQLite in workerd)
 * at the gate's budget and seed, with correct attribution, short counterexamples that replay inside
 * the object (`test/support/knownBadOnDoSqlite.ts`).
 */
import { cronSuite } from "../../../properties/cron/index.ts"
import { describeKnownBadOnDoSqlite } from "../../support/knownBadOnDoSqlite.ts"
import { CRON_PROPERTY_ORDER, MAX_STEPS } from "./expectations.ts"
import { knownBadCrons } from "./index.ts"

describeKnownBadOnDoSqlite(
  "cron",
  knownBadCrons.map((bad) => ({ bad, suite: cronSuite(bad.implementation), propertyOrder: CRON_PROPERTY_ORDER, maxSteps: MAX_STEPS[bad.name]! })),
  600_000
)
