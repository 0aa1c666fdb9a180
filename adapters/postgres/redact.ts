/**
 * Connection strings are secrets: they carry a password. Everything the project prints, reports or
 * puts in an error message goes through `redactConnectionString` first.
 */

/** What replaces a password (or any secret query parameter) in a redacted connection string. */
export const REDACTED_SECRET = "***"

/** Query parameters of a libpq-style URL that can carry a secret. */
const SECRET_PARAMETERS: ReadonlyArray<string> = ["password", "sslpassword", "sslkey", "passfile"]

/**
 * Hides the password (and secret query parameters) of a Postgres connection string, keeping user, host,
 * port and database so a reader can still tell which server was meant.
 *
 * @example
 * redactConnectionString("postgres://app:s3cret@db.internal:5432/app")
 * // => "postgres://app:***@db.internal:5432/app"
 *
 * A string that does not parse as a URL is replaced whole (it may still contain a secret).
 */
export const redactConnectionString = (connectionString: string): string => {
  let url: URL
  try {
    url = new URL(connectionString)
  } catch {
    return "<unparseable connection string>"
  }
  if (url.password !== "") url.password = REDACTED_SECRET
  for (const name of SECRET_PARAMETERS) {
    if (url.searchParams.has(name)) url.searchParams.set(name, REDACTED_SECRET)
  }
  // URL escapes `*` in the password position as-is; decode the userinfo part back for readability.
  return url.toString().replace(`:${encodeURIComponent(REDACTED_SECRET)}@`, `:${REDACTED_SECRET}@`)
}

/**
 * Removes every occurrence of the connection string, and of its password, from `text` (an error
 * message from a driver, say), so it can be shown.
 */
export const scrubSecrets = (text: string, connectionString: string): string => {
  let scrubbed = text.split(connectionString).join(redactConnectionString(connectionString))
  let password = ""
  try {
    password = decodeURIComponent(new URL(connectionString).password)
  } catch {
    password = ""
  }
  if (password.length >= 3) scrubbed = scrubbed.split(password).join(REDACTED_SECRET)
  return scrubbed
}
