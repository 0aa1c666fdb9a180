#!/usr/bin/env node
// The published command: registers tsx (its ES-module and its CommonJS hooks, as `node --import tsx`
// does) so the TypeScript sources and vendors' adapter and implementation modules load directly,
// whatever their package.json says (see cli/loadModule.ts), then runs the CLI.
import { register as registerEsm } from "tsx/esm/api"
import { register as registerCjs } from "tsx/cjs/api"

registerEsm()
registerCjs()
await import("../cli/main.ts")
