/**
 * The whole requirement catalog, in suite order (the adapter contract first, then each subject
 * plugin's catalog in registry order). Only the top of the stack imports this file (the CLI, scripts,
 * tests); the catalogs themselves live one file per subject beside it.
 */
import { subjectPlugins } from "../properties/plugins.ts"
import { adapterRequirements } from "./adapter.ts"
import { catalog, type Requirement } from "./Requirement.ts"

/** Every requirement of this suite version. */
export const allRequirements: ReadonlyArray<Requirement> = [
  ...adapterRequirements,
  ...subjectPlugins.flatMap((plugin) => plugin.requirements)
]

/** The catalog by ID (refuses duplicates at load). */
export const requirementsById: ReadonlyMap<string, Requirement> = catalog(allRequirements)
