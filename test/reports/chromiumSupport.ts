/**
 * Debian's Chromium for the HTML report tests. Outside CI a missing browser skips the test with the
 * reason recorded; in CI it is a failure, because `.ci/run` installs it. Not a test file itself.
 */
import { existsSync } from "node:fs"

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium"

/** Skips the calling test (outside CI) or fails it (in CI) when Chromium is not installed. */
export const requireChromium = (context: { readonly skip: (note?: string) => void }): void => {
  if (existsSync(CHROMIUM_PATH)) return
  if (process.env["CI"] === undefined) {
    context.skip(`${CHROMIUM_PATH} is missing and CI is not set: install Debian's chromium package (apt-get install -y chromium) to run this test`)
  }
  throw new Error(`${CHROMIUM_PATH} is missing in CI: .ci/run must install Debian's chromium package`)
}
