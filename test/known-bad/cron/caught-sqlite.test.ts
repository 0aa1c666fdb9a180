/** Every known-bad cron implementation is caught on sqlite (see `caughtOn.ts`). */
import { makeSqliteAdapter } from "../../../adapters/sqlite/index.ts"
import { describeCaughtOn } from "./caughtOn.ts"

const adapter = makeSqliteAdapter()
describeCaughtOn("sqlite", () => adapter)
