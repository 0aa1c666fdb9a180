/**
 * A blind bug applied to a copy of its implementation folder, for a test that checks the suite still
 * catches it: the copy (`examples/<folder>-<bug>-<pid>.blind`, gitignored, unique per bug and process so
 * parallel test files, and two bugs in one file, never share one: a module is loaded once per path) is
 * made before the file's tests and removed after them.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll } from "vitest"
import type { BlindBugSet } from "../../blind-bugs/BlindBug.ts"
import { applyBug } from "../../blind-bugs/study.ts"

const ROOT = resolve(import.meta.dirname, "../..")

/** The implementation as written and with the bug applied, each loaded from its folder's `index.ts` default export. */
export interface BlindCopy<I> {
  readonly original: () => I
  readonly blind: () => I
}

/**
 * Registers the hooks that copy `set`'s implementation, apply bug `bugId` to the copy and load both.
 * Throws at registration when the set has no such bug.
 *
 * @example const copies = useBlindCopy<ContentImplementation>(contentBugs, "read-failure-reads-as-missing")
 */
export const useBlindCopy = <I>(set: BlindBugSet, bugId: string): BlindCopy<I> => {
  const bug = set.bugs.find((entry) => entry.id === bugId)
  if (bug === undefined) throw new Error(`blind bug set of ${set.implementation} has no bug ${bugId}`)
  const copy = `${set.implementation}-${bug.id}-${process.pid}.blind`
  let original: I | undefined
  let blind: I | undefined
  beforeAll(async () => {
    rmSync(join(ROOT, copy), { recursive: true, force: true })
    cpSync(join(ROOT, set.implementation), join(ROOT, copy), { recursive: true })
    const file = join(ROOT, copy, bug.file.slice(set.implementation.length + 1))
    writeFileSync(file, applyBug(readFileSync(file, "utf8"), bug))
    original = (await import(pathToFileURL(join(ROOT, set.implementation, "index.ts")).href)).default.implementation
    blind = (await import(pathToFileURL(join(ROOT, copy, "index.ts")).href)).default.implementation
  })
  afterAll(() => rmSync(join(ROOT, copy), { recursive: true, force: true }))
  const loaded = (value: I | undefined, which: string): I => {
    if (value === undefined) throw new Error(`the ${which} implementation of ${set.implementation} is loaded only once the file's tests start`)
    return value
  }
  return { original: () => loaded(original, "original"), blind: () => loaded(blind, "blind") }
}
