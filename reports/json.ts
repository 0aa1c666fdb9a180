/**
 * The JSON report: rendering with a stable key order, validation against the versioned JSON Schema
 * (`reports/schema/report-v2.schema.json`), and reading a report file back.
 *
 * Key order follows the schema's declaration order (so `schemaVersion` comes first and every report
 * reads the same way); free-form JSON inside the report (operation arguments, results, state) has its
 * keys sorted. Two renders of equal reports are byte-identical.
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import type { ErrorObject } from "ajv/dist/2020.js"
import { type ConformanceReport, REPORT_SCHEMA_VERSION } from "../harness/RunResult.ts"
import { redactSecrets } from "./redact.ts"
import reportSchema from "./schema/report-v2.schema.json" with { type: "json" }

/**
 * The report schema version these writers produce and read: 2 since a property run is a union keyed by
 * its verdict (version 1 had one optional `counterexample` per property run).
 */
export { REPORT_SCHEMA_VERSION }

/** The JSON Schema document of version 2 of the report. */
export const reportSchemaV2: object = reportSchema

/** One schema violation: where (a JSON Pointer into the report) and what is wrong. */
export interface ReportValidationError {
  /** JSON Pointer of the offending value, `""` for the root. */
  readonly pointer: string
  /** The JSON Schema keyword that failed (`required`, `type`, `additionalProperties`, ...). */
  readonly keyword: string
  /** Plain words, e.g. `must have required property 'seed'`. */
  readonly message: string
}

/** Result of `validateReport`. */
export type ReportValidation =
  | { readonly valid: true; readonly report: ConformanceReport }
  | { readonly valid: false; readonly errors: ReadonlyArray<ReportValidationError> }

/** Thrown by `readReport` when a file is not a readable report; `message` says what to do. */
export class ReportReadError extends Error {
  override readonly name = "ReportReadError"
  constructor(
    message: string,
    /** Schema violations, empty when the text was not JSON at all. */
    readonly errors: ReadonlyArray<ReportValidationError>
  ) {
    super(message)
  }
}

const ajv = new Ajv2020({ strict: true, allErrors: true })
const validateCompiled = ajv.compile(reportSchema)

/** Most errors reported per validation; a badly broken file would otherwise produce thousands. */
const MAX_ERRORS = 50

const toValidationError = (error: ErrorObject): ReportValidationError => {
  const extra =
    error.keyword === "additionalProperties" && typeof error.params["additionalProperty"] === "string"
      ? ` ('${error.params["additionalProperty"]}')`
      : error.keyword === "enum" && Array.isArray(error.params["allowedValues"])
        ? ` (${(error.params["allowedValues"] as ReadonlyArray<unknown>).map((v) => JSON.stringify(v)).join(", ")})`
        : ""
  return { pointer: error.instancePath, keyword: error.keyword, message: `${error.message ?? "is invalid"}${extra}` }
}

/**
 * Checks a parsed value against the report schema.
 *
 * @example
 * const result = validateReport(JSON.parse(text))
 * if (!result.valid) console.error(result.errors.map((e) => `${e.pointer} ${e.message}`))
 */
export const validateReport = (value: unknown): ReportValidation => {
  if (validateCompiled(value)) return { valid: true, report: value as unknown as ConformanceReport }
  const errors = (validateCompiled.errors ?? []).slice(0, MAX_ERRORS).map(toValidationError)
  return { valid: false, errors }
}

/** A schema node as far as key ordering needs it. */
interface SchemaNode {
  readonly $ref?: string
  readonly properties?: Readonly<Record<string, SchemaNode>>
  readonly additionalProperties?: SchemaNode | boolean
  readonly items?: SchemaNode
  readonly anyOf?: ReadonlyArray<SchemaNode>
  readonly type?: string
}

const resolve = (root: SchemaNode & { readonly $defs?: Readonly<Record<string, SchemaNode>> }, node: SchemaNode): SchemaNode => {
  let current = node
  // Refs in this schema are one level deep (`#/$defs/x`); the bound guards against a cycle.
  for (let hops = 0; hops < 8 && current.$ref !== undefined; hops++) {
    const name = current.$ref.replace(/^#\/\$defs\//, "")
    current = root.$defs?.[name] ?? {}
  }
  return current
}

/** Sorts object keys recursively: the order for free-form JSON. */
export const sortKeysDeep = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeysDeep)
  if (value === null || typeof value !== "object") return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep((value as Record<string, unknown>)[key])
  return out
}

const orderBySchema = (root: SchemaNode, node: SchemaNode | undefined, value: unknown, depth: number): unknown => {
  if (node === undefined || depth > 64) return sortKeysDeep(value)
  const schema = resolve(root, node)
  if (Array.isArray(value)) return value.map((item) => orderBySchema(root, schema.items, item, depth + 1))
  if (value === null || typeof value !== "object") return value
  if (schema.anyOf !== undefined) {
    const objectBranch = schema.anyOf.map((branch) => resolve(root, branch)).find((branch) => branch.properties !== undefined)
    return orderBySchema(root, objectBranch, value, depth + 1)
  }
  const record = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  const declared = schema.properties ?? {}
  for (const key of Object.keys(declared)) {
    if (key in record && record[key] !== undefined) out[key] = orderBySchema(root, declared[key], record[key], depth + 1)
  }
  const additional = typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined
  for (const key of Object.keys(record).filter((k) => !(k in declared)).sort()) {
    if (record[key] !== undefined) out[key] = orderBySchema(root, additional, record[key], depth + 1)
  }
  return out
}

/**
 * Renders the report as JSON text: secrets redacted, keys in schema order, two-space indent, trailing
 * newline. Equal reports give identical bytes.
 *
 * @example
 * fs.writeFileSync("report.json", renderJson(report))
 */
export const renderJson = (report: ConformanceReport): string => {
  const root = reportSchema as SchemaNode
  return `${JSON.stringify(orderBySchema(root, root, redactSecrets(report), 0), null, 2)}\n`
}

/**
 * Parses and validates a report file's text. Throws `ReportReadError` naming the problem (not JSON,
 * another schema version, or the schema violations) so a corrupt or foreign file is refused clearly.
 */
export const readReport = (text: string): ConformanceReport => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause)
    throw new ReportReadError(`not a durable-conformance report: the file is not valid JSON (${detail}); pass the report.json a run wrote`, [])
  }
  if (parsed !== null && typeof parsed === "object" && "schemaVersion" in parsed && parsed.schemaVersion !== REPORT_SCHEMA_VERSION) {
    throw new ReportReadError(
      `report schema version ${JSON.stringify(parsed.schemaVersion)} is not supported (this harness reads version ${REPORT_SCHEMA_VERSION}); use the durable-conformance version that wrote it`,
      []
    )
  }
  const result = validateReport(parsed)
  if (result.valid) return result.report
  const listed = result.errors.slice(0, 5).map((e) => `${e.pointer === "" ? "(root)" : e.pointer} ${e.message}`)
  const more = result.errors.length > listed.length ? ` (and ${result.errors.length - listed.length} more)` : ""
  throw new ReportReadError(
    `not a valid durable-conformance report (schema version ${REPORT_SCHEMA_VERSION}): ${listed.join("; ")}${more}; the file may be truncated or edited`,
    result.errors
  )
}
