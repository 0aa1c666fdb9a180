/**
 * Scenarios at the reference's sizes (content.md "Parameters": 1 MiB chunks, 64 MiB max content).
 * Every other content scenario sets 4-byte chunks and a 12-byte limit, so that every path is reached in
 * a few steps; a store whose own defaults are not the reference's would pass them all. In one model
 * scenario in eight the store is built without those two settings, so the implementation's defaults
 * decide them (`storeSettingsOf`), and the model takes the reference's values. The scenario then ends
 * with a 9-byte upload (one chunk at 1 MiB, three at 4 bytes), and an upload, a read and a stream of the
 * large payload (`LARGE_PAYLOAD`, one byte over a chunk: two chunks, the second of one byte), in bytes or
 * streamed under the reference's limit. The observer checks every row's chunks against the 1 MiB cut (K2).
 *
 * Drawn after every other field of a model scenario, so every earlier draw keeps its bytes.
 *
 * @example fc.sample(referenceSizes, 1) // [{ parameters: { chunkBytes: 1048576, ... }, commands: [...] }] or [{ commands: [] }]
 */
import * as fc from "fast-check"
import { DEFAULT_MODEL_CONFIG } from "../../models/content/index.ts"
import { LARGE_PAYLOAD, PAYLOADS, TENANTS } from "./config.ts"
import type { Command, ContentParameters } from "./scenario.ts"

/** The reference's chunk size and size limit, in place of the properties' small ones. */
export const REFERENCE_SIZES: ContentParameters = {
  chunkBytes: DEFAULT_MODEL_CONFIG.chunkBytes,
  maxContentBytes: DEFAULT_MODEL_CONFIG.maxContentBytes
}

/** The payload under one reference chunk that the unit uploads first ("nine byte"). */
const SMALL_PAYLOAD = 3

if (PAYLOADS[SMALL_PAYLOAD]!.byteLength !== 9) throw new Error("referenceSizes: the small payload must be the 9-byte one")

/** What a model scenario gains at the reference's sizes: its parameters and the commands it ends with. */
export interface ReferenceSizesDraw {
  readonly parameters?: ContentParameters
  readonly commands: ReadonlyArray<Command>
}

/** The commands a scenario at the reference's sizes ends with, in `tenant`, the large upload streamed or not. */
const referenceSizeCommands = (tenant: number, stream: boolean): ReadonlyArray<Command> => [
  { op: "upload", tenant, payload: SMALL_PAYLOAD, stream: false },
  stream
    ? { op: "upload", tenant, payload: LARGE_PAYLOAD, stream: true, limit: DEFAULT_MODEL_CONFIG.maxContentBytes }
    : { op: "upload", tenant, payload: LARGE_PAYLOAD, stream: false },
  { op: "read", tenant, payload: LARGE_PAYLOAD, sizeDelta: 0 },
  { op: "stream", tenant, payload: LARGE_PAYLOAD, interrupt: false }
]

/** One model scenario in eight at the reference's sizes; the rest unchanged (it shrinks toward them). */
export const referenceSizes: fc.Arbitrary<ReferenceSizesDraw> = fc.oneof(
  { withCrossShrink: true },
  { weight: 7, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.record({ tenant: fc.nat({ max: TENANTS.length - 1 }), stream: fc.boolean() }) }
).map((drawn) => (drawn === undefined ? { commands: [] } : { parameters: REFERENCE_SIZES, commands: referenceSizeCommands(drawn.tenant, drawn.stream) }))
