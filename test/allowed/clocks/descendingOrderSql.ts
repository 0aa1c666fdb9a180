/**
 * A `SqlClient` that sends one `ORDER BY` of the clocks store in descending order: every statement
 * whose template text contains `ORDER BY <columns>` for the given columns gets `DESC` on each column.
 * Everything else (transactions, literals, other statements) goes to the wrapped client unchanged.
 */
import type { SqlClient } from "effect/sql"

/** The template text with `ORDER BY a, b, c` turned into `ORDER BY a DESC, b DESC, c DESC`. */
export const descendingOrderText = (text: string, columns: ReadonlyArray<string>): string =>
  text.replaceAll(`ORDER BY ${columns.join(", ")}`, `ORDER BY ${columns.map((column) => `${column} DESC`).join(", ")}`)

const isTemplate = (value: unknown): value is TemplateStringsArray => Array.isArray(value) && "raw" in value

const descendingTemplate = (strings: TemplateStringsArray, columns: ReadonlyArray<string>): TemplateStringsArray =>
  Object.assign(strings.map((text) => descendingOrderText(text, columns)), {
    raw: strings.raw.map((text) => descendingOrderText(text, columns))
  }) as unknown as TemplateStringsArray

/** `sql` with the statements ordered by `columns` sent in descending order of those columns. */
export const descendingOrderSql = (sql: SqlClient.SqlClient, columns: ReadonlyArray<string>): SqlClient.SqlClient => {
  const wrapped: SqlClient.SqlClient = new Proxy(sql, {
    apply(target, thisArgument, args: Array<unknown>) {
      const [first, ...rest] = args
      return Reflect.apply(target, thisArgument, isTemplate(first) ? [descendingTemplate(first, columns), ...rest] : args)
    },
    get(target, property) {
      if (property === "safe") return wrapped
      return Reflect.get(target, property, target)
    }
  })
  return wrapped
}
