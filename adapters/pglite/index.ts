/** The built-in `pglite` adapter (Postgres in-process) and its `SqlClient`. */
export {
  makePgliteAdapter,
  makePgliteAdapterFromSession,
  PGLITE_ADAPTER_NAME,
  pgliteAdapter,
  pgliteCapabilities
} from "./PgliteAdapter.ts"
export { makePgliteClient, makePgliteConnection, makePgliteSession } from "./PgliteClient.ts"
export type { PgliteSession } from "./PgliteClient.ts"
