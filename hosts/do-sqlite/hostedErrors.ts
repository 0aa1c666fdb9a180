/**
 * Errors that cross the workerd RPC boundary. workerd transfers only an error's message, so the
 * Durable Object puts the hint into the message and the Node host splits it out again.
 */

/** Separator between message and hint in an error message thrown by the conformance object. */
const HINT_SEPARATOR = "\nhint: "

/** The message of an `Error` thrown over RPC, carrying `message` and `hint`. */
export const encodeHostedError = (message: string, hint: string): string => `${message}${HINT_SEPARATOR}${hint}`

/** Splits a message made by `encodeHostedError`; other messages get `fallbackHint`. */
export const decodeHostedError = (encoded: string, fallbackHint: string): { readonly message: string; readonly hint: string } => {
  const at = encoded.lastIndexOf(HINT_SEPARATOR)
  return at === -1
    ? { message: encoded, hint: fallbackHint }
    : { message: encoded.slice(0, at), hint: encoded.slice(at + HINT_SEPARATOR.length) }
}
