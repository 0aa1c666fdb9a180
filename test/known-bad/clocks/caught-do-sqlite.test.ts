/**
 * Every known-bad clocks implementation is caught on do-sqlite (real Durable Object SQLite in workerd)
 * at the gate's budget and seed, with correct attribution (the liveness bugs only under the liveness
 * requirements), short counterexamples that replay inside the object (`test/support/knownBadOnDoSqlite.ts`).
 */
import { clocksSuite } from "../../../properties/clocks/index.ts"
import { describeKnownBadOnDoSqlite } from "../../support/knownBadOnDoSqlite.ts"
import { EXPECTATIONS } from "./expectations.ts"
import { knownBadClocks } from "./index.ts"

describeKnownBadOnDoSqlite(
  "clocks",
  knownBadClocks.map((bad) => {
    const expectation = EXPECTATIONS[bad.name]!
    return {
      bad,
      suite: clocksSuite(bad.implementation),
      propertyOrder: expectation.properties,
      maxSteps: expectation.maxSteps,
      ...(expectation.reportedUnder === undefined ? {} : { reportedUnder: expectation.reportedUnder })
    }
  }),
  900_000
)
