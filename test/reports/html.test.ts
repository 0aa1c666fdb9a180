import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { chromium } from "playwright-core"
import { describe, expect, it } from "vitest"
import { CERTIFICATION_BUDGET, makeCertificate, renderCertificateHtml } from "../../reports/certificate.ts"
import { renderHtml } from "../../reports/html.ts"
import { CHROMIUM_PATH, requireChromium } from "./chromiumSupport.ts"
import { makeReport, REPLAY_TOKEN, withAlsoExpected } from "./fixtures.ts"


describe("renderHtml (markup)", () => {
  const html = renderHtml(makeReport())

  it("is one self-contained document: no external scripts, styles, images or fonts", () => {
    expect(html.startsWith("<!doctype html>")).toBe(true)
    expect(html).not.toMatch(/<script/i)
    expect(html).not.toMatch(/<link/i)
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i)
    expect(html).not.toMatch(/@import|url\(/i)
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`)
  })

  it("has a requirements table per adapter, a timeline and a step table per failure", () => {
    expect(html).toContain(`id="requirements-sqlite"`)
    expect(html).toContain(`id="requirements-postgres"`)
    expect(html).toContain(`id="failure-postgres-alm-002"`)
    expect(html.match(/<svg class="timeline"/g)).toHaveLength(1)
    expect(html.match(/<tr class="step[ "]/g)).toHaveLength(5)
    expect(html).toContain(`<tr class="step divergent" id="step-postgres-alm-002-4">`)
    expect(html).toContain(`<tr class="step has-fault" id="step-postgres-alm-002-2">`)
    expect(html).toContain(`npx durable-conformance replay ${REPLAY_TOKEN}`)
    expect(html).toContain("the implementation had cleared the platform alarm and handled nothing.")
  })

  it("shows each value another allowed choice expected beside the model's", () => {
    expect(html).not.toContain("Or, by another allowed choice")
    const page = renderHtml(withAlsoExpected(makeReport(), [{ handled: 2 }]))
    expect(page.match(/<dt>Or, by another allowed choice<\/dt><dd><code class="json">\{[^<]*handled[^<]*2\}<\/code><\/dd>/g)).toHaveLength(1)
  })

  it("pinpoints the differing result field and state keys of a step", () => {
    expect(html.match(/<details class="result" open>/g)).toHaveLength(1)
    expect(html).toContain(`<summary class="has-diff">Result of step 4: 1 difference</summary>`)
    expect(html).toContain(`<tr class="diff"><td class="path mono">handled</td><td><code class="json">1</code></td><td><code class="json">0</code></td></tr>`)
    expect(html).toContain(`<summary class="has-diff">State after step 2: 1 difference</summary>`)
    expect(html).toContain(`<tr class="diff"><td class="path mono">platformAlarm</td>`)
    expect(html).toContain(`<summary class="">State after step 0: model and implementation agree (4 values)</summary>`)
  })

  it("escapes values from the report (no HTML injection)", () => {
    expect(html).not.toContain("<script>alert(1)</script>")
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; \\&quot;quotes\\&quot;")
    const report = makeReport()
    const hostile = {
      ...report,
      adapters: [{ ...report.adapters[0]!, fingerprint: { ...report.adapters[0]!.fingerprint, name: `"><img src=x onerror=alert(1)>` } }]
    }
    const page = renderHtml(hostile)
    expect(page).not.toContain("<img")
    expect(page).toContain(`id="requirements-img-src-x-onerror-alert-1"`)
  })

  it("gives two adapters whose names slug alike distinct ids", () => {
    const report = makeReport()
    const twins = {
      ...report,
      adapters: [
        { ...report.adapters[0]!, fingerprint: { ...report.adapters[0]!.fingerprint, name: "my adapter" } },
        { ...report.adapters[0]!, fingerprint: { ...report.adapters[0]!.fingerprint, name: "my-adapter" } }
      ]
    }
    const page = renderHtml(twins)
    expect(page).toContain(`id="requirements-my-adapter"`)
    expect(page).toContain(`id="requirements-my-adapter-2"`)
  })
})

describe("renderHtml in headless Chromium", () => {
  it("shows the requirement tables, the failure timeline and the certificate page (screenshots saved)", async (context) => {
    requireChromium(context)
    const workDir = mkdtempSync(join(tmpdir(), "dc-html-"))
    const userDataDir = join(workDir, "profile")
    mkdirSync(userDataDir)
    const htmlPath = join(workDir, "report.html")
    writeFileSync(htmlPath, renderHtml(makeReport()))
    const screenshotDir = resolve(".tmp", "reports")
    mkdirSync(screenshotDir, { recursive: true })
    const screenshotPath = join(screenshotDir, "report.png")
    const browserContext = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
    try {
      const page = browserContext.pages()[0] ?? (await browserContext.newPage())
      const requested: Array<string> = []
      const consoleErrors: Array<string> = []
      page.on("request", (request) => requested.push(request.url()))
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text())
      })
      const url = pathToFileURL(htmlPath).href
      await page.goto(url, { waitUntil: "load" })
      await page.screenshot({ path: screenshotPath, fullPage: true })

      // Only the file itself was loaded, and nothing was blocked by the page's CSP.
      expect(requested).toEqual([url])
      expect(consoleErrors).toEqual([])

      const box = async (selector: string) => {
        const handle = page.locator(selector).first()
        await expect.poll(() => handle.isVisible(), { timeout: 5_000 }).toBe(true)
        return handle.boundingBox()
      }
      for (const selector of ["#requirements-sqlite", "#requirements-postgres", "svg.timeline", "#failure-postgres-alm-002 table.steps"]) {
        const b = await box(selector)
        expect(b, selector).not.toBeNull()
        expect(b!.width, selector).toBeGreaterThan(300)
        expect(b!.height, selector).toBeGreaterThan(60)
      }
      // The timeline has a mark per step, a distinct fault mark and the divergent step, with readable ticks.
      expect(await page.locator("svg.timeline .tl-mark").count()).toBe(5)
      expect(await page.locator("svg.timeline .tl-fault").count()).toBe(1)
      expect(await page.locator("svg.timeline .tl-divergent").count()).toBe(1)
      expect(await page.locator("svg.timeline .tl-tick-label").allTextContents()).toEqual(
        expect.arrayContaining(["+0s", "+1h", "+2h"])
      )
      // The requirement tables list every requirement with its verdict badge.
      expect(await page.locator("#requirements-postgres tbody tr").count()).toBe(5)
      expect((await page.locator("#requirements-postgres tbody tr[data-verdict='fail'] .badge").textContent())?.trim()).toBe("FAIL")
      // The divergent step is highlighted and its state difference is open.
      const divergent = page.locator("#step-postgres-alm-002-4")
      // Runs in the page; the project's TypeScript lib has no DOM types, hence the narrow cast.
      const background = await divergent.locator("td").first().evaluate((cell) =>
        (globalThis as unknown as { getComputedStyle: (e: unknown) => { backgroundColor: string } }).getComputedStyle(cell).backgroundColor
      )
      expect(background).toBe("rgb(255, 235, 233)")
      expect(await page.locator("#failure-postgres-alm-002 details.state[open] tr.diff").count()).toBeGreaterThanOrEqual(3)
      expect(statSync(screenshotPath).size).toBeGreaterThan(20_000)

      // The certificate page renders in the same browser: outcome and one row per requirement.
      const certificatePath = join(workDir, "certificate.html")
      const certificate = makeCertificate({ report: makeReport(), adapter: "sqlite", kind: "adapter", budget: CERTIFICATION_BUDGET, seeds: [1, 2, 3], filtered: false })
      writeFileSync(certificatePath, renderCertificateHtml(certificate))
      await page.goto(pathToFileURL(certificatePath).href, { waitUntil: "load" })
      await page.screenshot({ path: join(screenshotDir, "certificate.png"), fullPage: true })
      expect(await page.locator("#certificate-outcome").textContent()).toContain("Conformant")
      expect(await page.locator("#certificate-requirements tbody tr").count()).toBe(5)
      expect((await page.locator("#certificate-requirements").boundingBox())?.height).toBeGreaterThan(100)
      expect(consoleErrors).toEqual([])
    } finally {
      await browserContext.close()
      rmSync(workDir, { recursive: true, force: true })
    }
  }, 60_000)
})
