/**
 * Escaping for HTML and XML output. Every value a writer puts into markup goes through one of these,
 * so report contents (operation arguments, error messages, adapter names) cannot inject markup.
 */

/** Characters XML 1.0 forbids even when escaped (C0 controls other than tab, newline, return; lone surrogates; U+FFFE/U+FFFF). */
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * Escapes text for HTML element content and double- or single-quoted attribute values.
 *
 * @example
 * escapeHtml(`<a href="x">`) // "&lt;a href=&quot;x&quot;&gt;"
 */
export const escapeHtml = (value: string): string =>
  value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/**
 * Escapes text for XML content and attributes: markup characters become entities, characters XML
 * cannot carry become U+FFFD, and in attributes newlines and tabs become character references so a
 * parser keeps them (attribute value normalization would turn them into spaces).
 *
 * @example
 * escapeXml('a < b & "c"') // "a &lt; b &amp; &quot;c&quot;"
 */
export const escapeXml = (value: string, inAttribute = true): string => {
  const text = value
    .replace(INVALID_XML_CHARS, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
  return inAttribute
    ? text.replace(/"/g, "&quot;").replace(/'/g, "&apos;").replace(/\r/g, "&#13;").replace(/\n/g, "&#10;").replace(/\t/g, "&#9;")
    : text.replace(/\r/g, "&#13;")
}
