/**
 * Entry point of the `durable-conformance` command (run through tsx: `npx durable-conformance ...`,
 * or `npm run conformance` for the gate).
 */
import { processIo } from "./io.ts"
import { main } from "./program.ts"

const code = await main(process.argv.slice(2), processIo())
// Servers and workers started by adapters are stopped by their scopes; exit explicitly so a stray
// handle in a vendor's adapter cannot keep the process alive after the verdict.
process.exit(code)
