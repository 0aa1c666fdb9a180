/**
 * What a caller can read from a typed error beyond its tag: the fields upstream declares on it (a
 * `StorageOperationError`'s `operation` and `cause`, say) and, where upstream gives the class a message
 * getter, a message. Keeping upstream's error handling means keeping these: code that logs
 * `error.operation` or follows `error.cause` breaks when an implementation raises the right tag
 * without them.
 *
 * A subject lists what upstream declares, per tag, in an `ErrorFieldCatalog`; its properties add the
 * defects `errorShapeDefects` finds to the error they compare with the model, so an error with the
 * right tag and a missing field differs from the model's under the same requirement as a wrong tag.
 * Only what the catalog names is checked: no wording, no field upstream does not show.
 */

/**
 * What one field must hold: `text` a non-empty string; `present` any value but `undefined`;
 * `explained` a non-empty string or an object whose `message` is one (a cause that says what failed);
 * `quotesCause` a non-empty string containing the error's `cause`'s explanation (a message built from
 * its cause, as upstream's `${ErrorMessage.causeMessage(this.cause)}`).
 */
export type FieldNeed = "text" | "present" | "explained" | "quotesCause"

/** Per error tag, the fields upstream declares and what each must hold. */
export type ErrorFieldCatalog = Readonly<Record<string, Readonly<Record<string, FieldNeed>>>>

/** What `value` says: itself when a string, else its `message` when that is a string, else "". */
const explanationOf = (value: unknown): string => {
  if (typeof value === "string") return value
  if (typeof value !== "object" || value === null) return ""
  const message: unknown = (value as { readonly message?: unknown }).message
  return typeof message === "string" ? message : ""
}

const defectOf = (error: object, value: unknown, need: FieldNeed): string | undefined => {
  if (value === undefined) return "missing"
  if (need === "present") return undefined
  if (need === "explained") return explanationOf(value) === "" ? "says nothing (no message)" : undefined
  if (typeof value !== "string") return `not a string (${typeof value})`
  if (value === "") return "empty"
  if (need !== "quotesCause") return undefined
  const cause = explanationOf((error as { readonly cause?: unknown }).cause)
  return cause !== "" && !value.includes(cause) ? "does not say its cause's message" : undefined
}

/**
 * The fields `error` lacks or holds wrongly, as `field: defect`, in the catalog's field order: `[]`
 * when its tag is not in the catalog or it carries everything the catalog names.
 *
 * @example
 * errorShapeDefects(new StorageOperationError({ operation: "", cause }), { StorageOperationError: { operation: "text" } })
 * // ["operation: empty"]
 */
export const errorShapeDefects = (error: unknown, catalog: ErrorFieldCatalog): ReadonlyArray<string> => {
  if (typeof error !== "object" || error === null) return []
  const tag: unknown = (error as { readonly _tag?: unknown })._tag
  const fields = typeof tag === "string" && Object.hasOwn(catalog, tag) ? catalog[tag]! : undefined
  if (fields === undefined) return []
  const defects: Array<string> = []
  for (const [field, need] of Object.entries(fields)) {
    const defect = defectOf(error, (error as Readonly<Record<string, unknown>>)[field], need)
    if (defect !== undefined) defects.push(`${field}: ${defect}`)
  }
  return defects
}

/**
 * `name` (an error's tag as a subject's model names it) followed by `error`'s defects in parentheses,
 * when it has any: the one-string form of an error for models that name errors by a string.
 *
 * @example namedWithDefects("ContentTooLarge", new ContentTooLarge({}), catalog) // "ContentTooLarge (maxBytes: missing)"
 */
export const namedWithDefects = (name: string, error: unknown, catalog: ErrorFieldCatalog): string => {
  const defects = errorShapeDefects(error, catalog)
  return defects.length === 0 ? name : `${name} (${defects.join(", ")})`
}
