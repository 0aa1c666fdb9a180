/**
 * An independent implementation of the `clocks` subject (durable deferreds, absolute clocks and
 * their journal), written from the reference rules C1-C13 and seed 003 only, bound through
 * `run --implementation`.
 */
import type { ClocksImplementation } from "../../subjects/clocks/api.ts"
import { makeClocksService } from "./engine.ts"

/** The implementation: builds one engine instance per `make` (a restart calls it again). */
export const implementation: ClocksImplementation = {
  name: "independent-clocks",
  make: makeClocksService
}

/** The binding the CLI loads. */
export default { subject: "clocks", implementation, version: "0.1.0" } as const
