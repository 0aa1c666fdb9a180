import { describe, expect, it } from "vitest"
import { makeCertificate, renderCertificateHtml, renderCertificateJson } from "../../reports/certificate.ts"
import { renderHtml } from "../../reports/html.ts"
import { renderJson } from "../../reports/json.ts"
import { renderJunit } from "../../reports/junit.ts"
import { renderMarkdown } from "../../reports/markdown.ts"
import { redactSecrets, redactString, secretsFromEnvironment } from "../../reports/redact.ts"
import { makeReport, PLANTED_CONNECTION_STRING, PLANTED_PASSWORD, REPLAY_TOKEN } from "./fixtures.ts"

describe("redactString", () => {
  it.each([
    ["postgres://u:secret@h/db", "postgres://u:***@h/db"],
    ["postgresql://app:p%40ss@db.example.com:5432/prod?sslmode=require", "postgresql://app:***@db.example.com:5432/prod?sslmode=require"],
    ["mysql://root:p@ss@host/x", "mysql://root:***@host/x"],
    ["redis://:tok3n@cache:6379", "redis://:***@cache:6379"],
    ["host=db user=app password=hunter2 dbname=x", "host=db user=app password=*** dbname=x"],
    ["host=db password='two words' port=5432", "host=db password='***' port=5432"],
    ["postgres://h/db?user=a&password=hunter2&sslmode=disable", "postgres://h/db?user=a&password=***&sslmode=disable"],
    ["Server=db;User Id=sa;Password=Str0ng!;Database=x", "Server=db;User Id=sa;Password=***;Database=x"],
    ['{"user":"a","password":"hunter2"}', '{"user":"a","password":"***"}'],
    ["PGPASSWORD=hunter2 psql", "PGPASSWORD=*** psql"],
    ["client_secret: abc123", "client_secret: ***"]
  ])("%s", (input, expected) => {
    expect(redactString(input)).toBe(expected)
  })

  it("leaves ordinary text, URLs without credentials and replay tokens alone", () => {
    for (const text of [
      "http://localhost:5432/db",
      "postgres://postgres@localhost/db",
      "the password rule says nothing here",
      "scheduleAlarm at 2026-01-01T00:00:00Z",
      REPLAY_TOKEN
    ]) {
      expect(redactString(text)).toBe(text)
    }
  })

  it("replaces extra literal secrets wherever they appear", () => {
    expect(redactString("auth failed for hunter22 (hunter22)", ["hunter22"])).toBe("auth failed for *** (***)")
  })
})

describe("redactSecrets", () => {
  it("walks objects and arrays, redacts secret-named properties and leaves the input untouched", () => {
    const input = { a: [{ url: PLANTED_CONNECTION_STRING }], dbPassword: "plain", n: 3, nested: { ok: true, pwd: "x1" } }
    const output = redactSecrets(input)
    expect(output).toEqual({ a: [{ url: "postgres://u:***@h/db" }], dbPassword: "***", n: 3, nested: { ok: true, pwd: "***" } })
    expect(input.a[0]?.url).toBe(PLANTED_CONNECTION_STRING)
  })

  it("derives literal secrets from an environment", () => {
    expect(secretsFromEnvironment({ DATABASE_URL: "postgres://app:s3cr%21t@db/x", PGPASSWORD: "pgpw", HOME: "/root" })).toEqual([
      "pgpw",
      "s3cr!t",
      "s3cr%21t"
    ])
  })
})

describe("every format redacts the planted connection string", () => {
  const report = makeReport()
  const certificate = makeCertificate({
    report,
    adapter: "postgres",
    kind: "adapter",
    budget: { runsPerProperty: 100, seedCount: 1 },
    seeds: [42],
    filtered: false
  })
  const outputs: ReadonlyArray<readonly [string, string]> = [
    ["json", renderJson(report)],
    ["markdown", renderMarkdown(report)],
    ["html", renderHtml(report)],
    ["junit", renderJunit(report)],
    ["certificate json", renderCertificateJson(certificate)],
    ["certificate html", renderCertificateHtml(certificate)]
  ]
  it.each(outputs)("%s", (_format, text) => {
    expect(JSON.stringify(report)).toContain(PLANTED_PASSWORD)
    expect(text).not.toContain(PLANTED_CONNECTION_STRING)
    expect(text).not.toContain(`:${PLANTED_PASSWORD}@`)
    // Markdown shows the asterisks escaped (`\*`); unescaped they read `***`.
    expect(text.replace(/\\\*/g, "*")).toContain("u:***@h/db")
  })
})

describe("redaction by value, from the environment", () => {
  it("removes a bare password that no pattern recognises from every format", () => {
    const report = makeReport()
    // A driver quoting the bare password: no pattern can recognise it, the environment can.
    const leaky = {
      ...report,
      adapters: [{ ...report.adapters[0]!, requirements: [{ ...report.adapters[0]!.requirements[0]!, reason: "auth failed with Zq9-unusual-pw" }] }]
    }
    const safe = redactSecrets(leaky, secretsFromEnvironment({ DATABASE_URL: "postgres://app:Zq9-unusual-pw@db/x" }))
    expect(JSON.stringify(leaky)).toContain("Zq9-unusual-pw")
    for (const text of [renderJson(safe), renderMarkdown(safe), renderHtml(safe), renderJunit(safe)]) expect(text).not.toContain("Zq9-unusual-pw")
    // The formats that show a passing requirement's reason show it redacted.
    for (const text of [renderJson(safe), renderHtml(safe)]) expect(text).toContain("auth failed with ***")
  })
})
