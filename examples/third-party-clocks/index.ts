/**
 * Binding an upstream-shaped clocks engine to the suite: what an implementation author writes.
 *
 *   npx durable-conformance run --implementation ./examples/third-party-clocks/index.ts --adapter sqlite --subject clocks
 *
 * The module default-exports `{ subject: "clocks", implementation, version }`, where `implementation`
 * is a `ClocksImplementation` (subjects/clocks/api.ts): `make(environment)` provides the upstream
 * engine's context services from what the harness hands over and passes the rest as upstream's
 * `Dependencies`. Nothing else is adapted: names, persisted layout, journal identities and error
 * handling are upstream's.
 */
import { Effect } from "effect"
import type { ClocksImplementation } from "../../subjects/clocks/api.ts"
import { EngineState, JournalService, make } from "./upstreamShape.ts"

/** The bound implementation. */
export const upstreamClocks: ClocksImplementation = {
  name: "upstream-shaped-clocks",
  make: (environment) =>
    make({
      owner: environment.owner,
      journalSource: environment.journalSource,
      scheduleResume: environment.scheduleResume,
      ...(environment.fireRetryPolicy === undefined ? {} : { fireRetryPolicy: environment.fireRetryPolicy })
    }).pipe(
      Effect.provideService(EngineState, { sql: environment.sql, dialect: environment.dialect, runs: environment.runs }),
      Effect.provideService(JournalService, environment.journal)
    )
}

export default { subject: "clocks", implementation: upstreamClocks, version: "1.0.0-rc.4" }
