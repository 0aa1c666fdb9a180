/**
 * Secret redaction for every report writer.
 *
 * Reports are shared widely (CI artifacts, step summaries, certificates handed to customers), while the
 * values they quote come from adapters, error messages and environments that may contain connection
 * strings. Every writer in `reports/` passes the report through `redactSecrets` before rendering, so a
 * password can only reach a report by a route this module does not recognise.
 *
 * Recognised:
 * - the password of a URL's user info: `postgres://user:pass@host/db` -> `postgres://user:***@host/db`;
 * - `key=value` / `key: value` pairs whose key names a password or secret (`password=`, `PGPASSWORD=`,
 *   `sslpassword=`, `Pwd=`, `"secret": "..."`), in libpq keyword strings, URL query strings,
 *   ADO-style `;`-separated strings and JSON embedded in a string;
 * - object properties whose key names a password or secret: their string value becomes `***`;
 * - any literal secret the caller passes (`extraSecrets`), e.g. the password of `DATABASE_URL`.
 */

/** The text that replaces a secret. */
export const REDACTED = "***"

/** Key names (any case, as a whole word or a suffix such as `PGPASSWORD`) whose values are secrets. */
const SECRET_KEY = String.raw`[A-Za-z_.-]*?(?:password|passwd|passphrase|pwd|secret)`

/** `scheme://user:password@` - the password runs to the last `@` of the authority. */
const URL_PASSWORD = /([A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/?#@]*:)([^\s/?#]*)@/g

/** `password=value`, `password: value`, `"password": "value"`, `Pwd='va lue'`. */
const KEY_VALUE_PASSWORD = new RegExp(
  String.raw`(?<![A-Za-z0-9])(${SECRET_KEY})(["']?\s*[=:]\s*)("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s&;,'"}\]]+)`,
  "gi"
)

/** An object key that names a secret, e.g. `password`, `dbPassword`, `client_secret`. */
const SECRET_PROPERTY = /(?:password|passwd|passphrase|pwd|secret)$/i

/** The longest string scanned; longer strings are cut (a report never needs megabytes in one field). */
const MAX_STRING_CHARS = 1_000_000

/** How deep `redactSecrets` descends; deeper values are replaced by a marker rather than risked. */
const MAX_DEPTH = 200

const quoteOf = (value: string): string => (value.startsWith('"') ? '"' : value.startsWith("'") ? "'" : "")

/**
 * Redacts secrets inside one string.
 *
 * @example
 * redactString("postgres://app:hunter2@db:5432/x?sslpassword=p") // "postgres://app:***@db:5432/x?sslpassword=***"
 */
export const redactString = (text: string, extraSecrets: ReadonlyArray<string> = []): string => {
  let out = text.length > MAX_STRING_CHARS ? `${text.slice(0, MAX_STRING_CHARS)}…` : text
  for (const secret of extraSecrets) {
    // Very short "secrets" would shred ordinary text; they are too weak to be worth hiding anyway.
    if (secret.length >= 4) out = out.split(secret).join(REDACTED)
  }
  out = out.replace(URL_PASSWORD, (_match, prefix: string) => `${prefix}${REDACTED}@`)
  out = out.replace(KEY_VALUE_PASSWORD, (_match, key: string, separator: string, value: string) => {
    const quote = quoteOf(value)
    return `${key}${separator}${quote}${REDACTED}${quote}`
  })
  return out
}

const redactValue = (value: unknown, extraSecrets: ReadonlyArray<string>, depth: number): unknown => {
  if (typeof value === "string") return redactString(value, extraSecrets)
  if (value === null || typeof value !== "object") return value
  if (depth >= MAX_DEPTH) return "[redaction depth limit]"
  if (Array.isArray(value)) return value.map((item) => redactValue(item, extraSecrets, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    out[key] =
      typeof item === "string" && SECRET_PROPERTY.test(key) && item.length > 0
        ? REDACTED
        : redactValue(item, extraSecrets, depth + 1)
  }
  return out
}

/**
 * Returns a deep copy of `value` with secrets replaced by `***` in every string (keys are kept).
 * Plain JSON data in, plain JSON data out; the input is not modified.
 *
 * @example
 * redactSecrets({ url: "postgres://u:secret@h/db" }) // { url: "postgres://u:***@h/db" }
 */
export const redactSecrets = <T>(value: T, extraSecrets: ReadonlyArray<string> = []): T =>
  redactValue(value, extraSecrets, 0) as T

/**
 * Literal secrets found in an environment: the passwords of URL-valued variables (`DATABASE_URL`, ...)
 * and the values of variables named like passwords (`PGPASSWORD`). Pass them to `redactSecrets` as
 * `extraSecrets` to also catch a password quoted on its own (e.g. in a driver's error message).
 */
export const secretsFromEnvironment = (environment: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> => {
  const secrets = new Set<string>()
  for (const [name, raw] of Object.entries(environment)) {
    if (raw === undefined || raw.length === 0) continue
    if (/(?:password|passwd|pwd|secret)$/i.test(name)) secrets.add(raw)
    for (const match of raw.matchAll(URL_PASSWORD)) {
      const password = match[2]
      if (password !== undefined && password.length > 0) {
        secrets.add(password)
        try {
          secrets.add(decodeURIComponent(password))
        } catch {
          // not percent-encoded: the raw form is already listed
        }
      }
    }
  }
  return [...secrets].sort()
}
