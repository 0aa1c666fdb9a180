/**
 * `npm run docs`: regenerates the requirement tables in README.md from the catalog.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { allRequirements } from "../spec/index.ts"
import { updateReadmeSection } from "../spec/document.ts"

const path = new URL("../README.md", import.meta.url)
writeFileSync(path, updateReadmeSection(readFileSync(path, "utf8"), allRequirements))
console.log(`README.md: ${allRequirements.length} requirements`)
