/**
 * The HTML report of a failing run with a many-step counterexample, checked in headless Chromium:
 * the page fits its width, the timeline's labels never overlap or leave the figure, the one-instant
 * counterexample is an ordered list, representation-only differences are not highlighted, and the
 * step table is readable. Screenshots go to this test's output folder, `.tmp/reports/html-many-steps/`.
 *
 * Without /usr/bin/chromium the test is skipped with the reason recorded, outside CI only; in CI a
 * missing Chromium is a failure (`.ci/run` installs Debian's chromium).
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { chromium, type Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { renderHtml } from "../../reports/html.ts"
import { CHROMIUM_PATH, requireChromium } from "./chromiumSupport.ts"
import { makeManyStepReport, manySteps } from "./manyStepFixtures.ts"

const OUTPUT_DIR = resolve(".tmp", "reports", "html-many-steps")

interface Box {
  readonly left: number
  readonly top: number
  readonly right: number
  readonly bottom: number
}

/** Screen boxes of every element matching `selector` (runs in the page; the project's lib has no DOM types). */
const boxes = (page: Page, selector: string): Promise<ReadonlyArray<Box>> =>
  page.locator(selector).evaluateAll((elements) =>
    elements.map((element) => {
      const rect = (element as unknown as { getBoundingClientRect: () => Box }).getBoundingClientRect()
      return { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom }
    })
  )

const overlaps = (a: Box, b: Box): boolean => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5

const backgroundOf = (page: Page, selector: string): Promise<string> =>
  page.locator(selector).first().evaluate((cell) =>
    (globalThis as unknown as { getComputedStyle: (e: unknown) => { backgroundColor: string } }).getComputedStyle(cell).backgroundColor
  )

const launch = (profile: string) =>
  chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
  })

/** Checks the many-step timeline: a mark per step, labels apart from each other and inside the figure. */
const checkTimeline = async (page: Page) => {
  const figure = "#timeline-postgres-alm-021"
  expect(await page.locator(`${figure} .tl-mark`).count()).toBe(manySteps().length)
  expect(await page.locator(`${figure} .tl-fault`).count()).toBe(1)
  expect(await page.locator(`${figure} .tl-divergent`).count()).toBe(1)
  const [svg] = await boxes(page, figure)
  const labels = await boxes(page, `${figure} text.tl-label`)
  for (const label of labels) {
    expect(label.left).toBeGreaterThanOrEqual(svg!.left - 0.5)
    expect(label.right).toBeLessThanOrEqual(svg!.right + 0.5)
  }
  const clashes = labels.flatMap((a, i) => labels.slice(i + 1).filter((b) => overlaps(a, b)).map((b) => [a, b]))
  expect(clashes).toEqual([])
  await page.locator(figure).screenshot({ path: join(OUTPUT_DIR, "timeline-many-steps.png") })
}

/** Checks the one-instant counterexample: an ordered list in step order, its exit row not highlighted. */
const checkInstantList = async (page: Page) => {
  const list = page.locator("#timeline-postgres-adp-001 ol.tl-list")
  await expect.poll(() => list.isVisible(), { timeout: 5_000 }).toBe(true)
  expect(await page.locator("#failure-postgres-adp-001 svg.timeline").count()).toBe(0)
  expect(await list.locator("li code").allTextContents()).toEqual(["createTable", "commitBaseline", "injectFailure", "endTransaction"])
  const items = await boxes(page, "#timeline-postgres-adp-001 ol.tl-list li")
  for (let index = 1; index < items.length; index++) expect(items[index]!.top).toBeGreaterThanOrEqual(items[index - 1]!.bottom - 0.5)
  const repr = "#step-postgres-adp-001-3 + tr.state-row details.result tr.repr td.path"
  const diff = "#step-postgres-adp-001-3 + tr.state-row details.result tr.diff td.path"
  expect(await page.locator(repr).allTextContents()).toEqual(["exit"])
  expect(await page.locator(diff).allTextContents()).toEqual(["rows[0][1]"])
  expect(await backgroundOf(page, repr)).not.toBe(await backgroundOf(page, diff))
  await page.locator("#failure-postgres-adp-001").screenshot({ path: join(OUTPUT_DIR, "one-instant-failure.png") })
}

describe("the HTML report of a many-step failure in headless Chromium", () => {
  it("fits the page, keeps timeline labels apart, lists a one-instant timeline and highlights only real differences", async (context) => {
    requireChromium(context)
    mkdirSync(OUTPUT_DIR, { recursive: true })
    const workDir = mkdtempSync(join(tmpdir(), "dc-html-many-"))
    const htmlPath = join(workDir, "report.html")
    writeFileSync(htmlPath, renderHtml(makeManyStepReport()))
    const browser = await launch(join(workDir, "profile"))
    try {
      const page = browser.pages()[0] ?? (await browser.newPage())
      const consoleErrors: Array<string> = []
      page.on("console", (message) => void (message.type() === "error" && consoleErrors.push(message.text())))
      await page.goto(pathToFileURL(htmlPath).href, { waitUntil: "load" })
      await page.screenshot({ path: join(OUTPUT_DIR, "report.png"), fullPage: true })
      for (const width of [1280, 900]) {
        await page.setViewportSize({ width, height: 900 })
        const overflow = await page.evaluate(() => {
          const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement
          return root.scrollWidth - root.clientWidth
        })
        expect(overflow, `horizontal overflow at ${width} px`).toBeLessThanOrEqual(0)
      }
      await page.setViewportSize({ width: 1280, height: 900 })
      await checkTimeline(page)
      await checkInstantList(page)
      expect(await page.locator("#failure-postgres-alm-021 table.steps tr.step").count()).toBe(manySteps().length)
      expect(await backgroundOf(page, "#step-postgres-alm-021-40 td")).toBe("rgb(255, 235, 233)")
      expect(consoleErrors).toEqual([])
      for (const file of ["report.png", "timeline-many-steps.png", "one-instant-failure.png"]) expect(statSync(join(OUTPUT_DIR, file)).size).toBeGreaterThan(10_000)
    } finally {
      await browser.close()
      rmSync(workDir, { recursive: true, force: true })
    }
  }, 90_000)
})
