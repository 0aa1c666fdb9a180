/** The built-in `sqlite` adapter (better-sqlite3) and its `SqlClient`. */
export { makeSqliteAdapter, SQLITE_ADAPTER_NAME, sqliteAdapter, sqliteCapabilities } from "./SqliteAdapter.ts"
export type { SqliteAdapterOptions } from "./SqliteAdapter.ts"
export { makeSqliteClient, makeSqliteConnection } from "./SqliteClient.ts"
export type { SqliteClientOptions } from "./SqliteClient.ts"
