/** Every known-bad cron implementation is caught on postgres (the server the vitest globalSetup started; see `caughtOn.ts`). */
import { describeCaughtOn } from "./caughtOn.ts"
import { usePostgresAdapter } from "../../support/nodeAdapters.ts"

const postgres = usePostgresAdapter()
describeCaughtOn("postgres", () => postgres())
