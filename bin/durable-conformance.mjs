#!/usr/bin/env node
// The published command: registers tsx so the TypeScript sources (and vendors' .ts adapter modules)
// load directly, then runs the CLI.
import { register } from "tsx/esm/api"

register()
await import("../cli/main.ts")
