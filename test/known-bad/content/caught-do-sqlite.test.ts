/**
 * Every known-bad content implementation is caught on do-sqlite (real Durable Object SQLite in
 * workerd) at the gate's budget and seed, with correct attribution, short counterexamples that replay
 * inside the object (`test/support/knownBadOnDoSqlite.ts`).
 */
import { contentSuite } from "../../../properties/content/index.ts"
import { describeKnownBadOnDoSqlite } from "../../support/knownBadOnDoSqlite.ts"
import { EXPECTATIONS } from "./expectations.ts"
import { knownBadContents } from "./index.ts"

describeKnownBadOnDoSqlite(
  "content",
  knownBadContents.map((bad) => {
    const expectation = EXPECTATIONS[bad.name]!
    return { bad, suite: contentSuite(bad.implementation), propertyOrder: expectation.properties, maxSteps: expectation.maxSteps }
  }),
  900_000
)
