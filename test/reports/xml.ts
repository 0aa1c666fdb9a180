/**
 * A tiny, strict XML reader for the tests: elements, attributes, text, the five predefined entities
 * and numeric character references. Enough to parse JUnit output back and to refuse malformed XML
 * (mismatched or unclosed tags, bare `&` or `<`, duplicate attributes). No DTDs, no namespaces.
 */

/** One parsed element. */
export interface XmlElement {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: ReadonlyArray<XmlElement>
  /** Concatenated text content directly inside this element (entities decoded). */
  readonly text: string
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*/

const decode = (raw: string, where: number): string =>
  raw.replace(/&([^;]*);|&|</g, (match, entity: string | undefined) => {
    if (match === "&" || match === "<") throw new Error(`xml: bare '${match}' near offset ${where}`)
    switch (entity) {
      case "amp":
        return "&"
      case "lt":
        return "<"
      case "gt":
        return ">"
      case "quot":
        return '"'
      case "apos":
        return "'"
    }
    const numeric = /^#(x[0-9A-Fa-f]+|[0-9]+)$/.exec(entity ?? "")
    if (numeric?.[1] === undefined) throw new Error(`xml: unknown entity &${entity}; near offset ${where}`)
    const code = numeric[1].startsWith("x") ? Number.parseInt(numeric[1].slice(1), 16) : Number.parseInt(numeric[1], 10)
    return String.fromCodePoint(code)
  })

interface Building {
  name: string
  attributes: Record<string, string>
  children: Array<XmlElement>
  text: string
}

/** Parses a whole document and returns its root element; throws on anything malformed. */
export const parseXml = (source: string): XmlElement => {
  let at = 0
  const stack: Array<Building> = []
  let root: XmlElement | undefined
  const expect = (condition: boolean, message: string): void => {
    if (!condition) throw new Error(`xml: ${message} at offset ${at}`)
  }
  if (source.startsWith("<?xml")) {
    const end = source.indexOf("?>")
    expect(end !== -1, "unterminated XML declaration")
    at = end + 2
  }
  for (let guard = 0; at < source.length; guard++) {
    expect(guard < 10_000_000, "document too large")
    const lt = source.indexOf("<", at)
    const textEnd = lt === -1 ? source.length : lt
    const text = source.slice(at, textEnd)
    if (text.length > 0) {
      const top = stack[stack.length - 1]
      if (top === undefined) expect(text.trim() === "", "text outside the root element")
      else top.text += decode(text, at)
    }
    if (lt === -1) break
    at = lt
    if (source.startsWith("<!--", at)) {
      const end = source.indexOf("-->", at)
      expect(end !== -1, "unterminated comment")
      at = end + 3
      continue
    }
    if (source.startsWith("<![CDATA[", at)) {
      const end = source.indexOf("]]>", at)
      expect(end !== -1 && stack.length > 0, "bad CDATA section")
      const top = stack[stack.length - 1]
      if (top !== undefined) top.text += source.slice(at + 9, end)
      at = end + 3
      continue
    }
    if (source.startsWith("</", at)) {
      const name = NAME.exec(source.slice(at + 2))?.[0]
      expect(name !== undefined, "bad closing tag")
      const close = source.indexOf(">", at)
      expect(close !== -1 && source.slice(at + 2 + (name ?? "").length, close).trim() === "", "bad closing tag")
      const open = stack.pop()
      expect(open !== undefined && open.name === name, `closing </${name}> does not match <${open?.name ?? "nothing"}>`)
      const done: XmlElement = { name: open!.name, attributes: open!.attributes, children: open!.children, text: open!.text }
      const parent = stack[stack.length - 1]
      if (parent === undefined) {
        expect(root === undefined, "two root elements")
        root = done
      } else parent.children.push(done)
      at = close + 1
      continue
    }
    // Opening or self-closing tag.
    at += 1
    const name = NAME.exec(source.slice(at))?.[0]
    expect(name !== undefined, "bad tag name")
    at += name!.length
    const attributes: Record<string, string> = {}
    for (;;) {
      const ws = /^\s*/.exec(source.slice(at))?.[0] ?? ""
      at += ws.length
      if (source.startsWith("/>", at) || source.startsWith(">", at)) break
      expect(ws.length > 0, "missing whitespace before attribute")
      const attrName = NAME.exec(source.slice(at))?.[0]
      expect(attrName !== undefined, "bad attribute name")
      at += attrName!.length
      expect(source[at] === "=", "missing '=' after attribute name")
      const quote = source[at + 1]
      expect(quote === '"' || quote === "'", "attribute value must be quoted")
      const end = source.indexOf(quote!, at + 2)
      expect(end !== -1, "unterminated attribute value")
      expect(!(attrName! in attributes), `duplicate attribute ${attrName}`)
      const rawValue = source.slice(at + 2, end)
      // Attribute value normalization: literal whitespace becomes a space; references keep theirs.
      attributes[attrName!] = decode(rawValue.replace(/[\t\n\r]/g, " "), at)
      at = end + 1
    }
    const selfClosing = source.startsWith("/>", at)
    at += selfClosing ? 2 : 1
    const element: Building = { name: name!, attributes, children: [], text: "" }
    if (selfClosing) {
      const parent = stack[stack.length - 1]
      if (parent === undefined) {
        expect(root === undefined, "two root elements")
        root = element
      } else parent.children.push(element)
    } else stack.push(element)
  }
  expect(stack.length === 0, `unclosed <${stack[stack.length - 1]?.name}>`)
  expect(root !== undefined, "no root element")
  return root!
}

/** All descendants (depth first) with the given element name. */
export const findAll = (element: XmlElement, name: string): ReadonlyArray<XmlElement> => {
  const out: Array<XmlElement> = []
  const visit = (e: XmlElement, depth: number): void => {
    if (depth > 200) return
    for (const child of e.children) {
      if (child.name === name) out.push(child)
      visit(child, depth + 1)
    }
  }
  visit(element, 0)
  return out
}
