/**
 * Every known-bad alarms implementation is caught on do-sqlite (real Durable Object SQLite in workerd)
 * at the gate's budget and seed, with correct attribution, short counterexamples that replay inside
 * the object (`test/support/knownBadOnDoSqlite.ts`).
 */
import { alarmsSuite } from "../../../properties/alarms/index.ts"
import { describeKnownBadOnDoSqlite } from "../../support/knownBadOnDoSqlite.ts"
import { appliesOn, EXPECTATIONS } from "./expectations.ts"
import { knownBadAlarms } from "./index.ts"

/** Each failing property run searches its whole budget and minimizes every failed requirement inside the object. */
const CAUGHT_TIMEOUT_MS = 1_200_000

describeKnownBadOnDoSqlite(
  "alarms",
  knownBadAlarms.filter((bad) => appliesOn(bad.name, "do-sqlite")).map((bad) => ({ bad, suite: alarmsSuite(bad.implementation), maxSteps: EXPECTATIONS[bad.name]!.maxSteps })),
  CAUGHT_TIMEOUT_MS
)
