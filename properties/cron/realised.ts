/**
 * The cron situations about what the harness realised (`REALISED_SITUATIONS` in
 * `models/cron/situations.ts`), decided from what the harness saw rather than from the model, and the
 * capabilities an adapter needs to reach them (`SubjectSuite.situationNeeds`).
 */
import type { CapabilityName } from "../../adapters/contract.ts"
import type { CronModelState, CronSituation, REALISED_SITUATIONS } from "../../models/cron/index.ts"
import type { RaceEvidence } from "./race.ts"
import type { Command } from "./scenario.ts"

/**
 * What only an adapter with these capabilities reaches: a race's overlap is watched from the server's
 * lock and session tables (`race.ts`), and bootstraps run at once need a connection per runner.
 */
export const CRON_SITUATION_NEEDS: Readonly<Partial<Record<CronSituation, ReadonlyArray<CapabilityName>>>> = {
  bootstrapAllConcurrent: ["independentConnections"],
  raceLockWait: ["independentConnections", "rowLocks"],
  raceOverlapped: ["independentConnections", "rowLocks"]
}

/** What the harness did when it ran one command: the race's evidence, and how many bootstrap transactions were open at once. */
export interface Realised {
  /** How the operations of this command's race met (null when the command was no race). */
  readonly race: RaceEvidence | null
  /** How many runners' bootstrap transactions this command's `bootstrapAll` held open at once (0 otherwise). */
  readonly bootstrapOpenTogether: number
}

/**
 * The harness-realised situations of `command`, run from model state `before`: a race whose second
 * operation waited on the first's row lock (`raceLockWait`) or whose transactions were both open with
 * their writes done (`raceOverlapped`), as the server reported; bootstraps of at least two runners
 * declaring entries whose transactions the harness really held open at once, on their own connections
 * (`bootstrapAllConcurrent`: counted as realised, so bootstraps that ran one after the other do not
 * count, whatever the adapter could have done).
 *
 * @example realisedSituations({ op: "race", ops, order: [1, 0] }, before, { race: "lockWait", bootstrapOpenTogether: 0 }) // ["raceLockWait"]
 */
export const realisedSituations = (command: Command, before: CronModelState, realised: Realised): ReadonlyArray<typeof REALISED_SITUATIONS[number]> => {
  if (command.op === "race") return realised.race === "lockWait" ? ["raceLockWait"] : realised.race === "overlapped" ? ["raceOverlapped"] : []
  if (command.op !== "bootstrapAll" || realised.bootstrapOpenTogether < 2) return []
  const declaring = before.runners.filter((runner) => (runner.schedule?.entries.length ?? 0) > 0).length
  return declaring >= 2 ? ["bootstrapAllConcurrent"] : []
}
