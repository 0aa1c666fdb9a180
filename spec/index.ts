/**
 * The whole requirement catalog, in suite order (the adapter contract first).
 */
import { adapterRequirements } from "./adapter.ts"
import { alarmRequirements } from "./alarms.ts"
import { catalog, type Requirement } from "./Requirement.ts"

/** Every requirement of this suite version. */
export const allRequirements: ReadonlyArray<Requirement> = [...adapterRequirements, ...alarmRequirements]

/** The catalog by ID (refuses duplicates at load). */
export const requirementsById: ReadonlyMap<string, Requirement> = catalog(allRequirements)
