/**
 * The fixed world of content scenarios: the store's parameters (upstream's time margins; small chunks,
 * a small size limit and small batches so every path is reached in a few steps), the byte payloads,
 * tenants, actors, blobs and names drawn from, and the grant keys.
 */
import { createHash } from "node:crypto"
import { type ContentModelConfig, DEFAULT_MODEL_CONFIG } from "../../models/content/index.ts"
import type { ContentSettings } from "../../subjects/content/api.ts"
import type { ContentParameters } from "./scenario.ts"

/** Grant key of the store under test. */
export const GRANT_KEY = "durable-conformance grant key"
/** Key of the forging store: its grants carry a MAC the store under test must refuse. */
export const FORGER_KEY = "a key the store under test does not know"

/** The store's parameters in content scenarios (upstream's L, G, S, T and interval). */
export const PROPERTY_SETTINGS: Omit<ContentSettings, "grantKey" | "singleConnection"> = {
  grantLifetimeMs: 3_600_000,
  graceMs: 86_400_000,
  skewMs: 60_000,
  turnMs: 30_000,
  chunkBytes: 4,
  maxContentBytes: 12,
  sweepBatch: 2,
  sweepTenants: 100,
  sweepIntervalMs: 3_600_000
}

/**
 * `settings` without the values that are the reference's parameters (content.md "Parameters",
 * `DEFAULT_MODEL_CONFIG`): those are left to the implementation's defaults, which must be the
 * reference's, so a store with another default diverges from the model.
 */
const withoutReferenceValues = (settings: Partial<ContentModelConfig>): Partial<Omit<ContentSettings, "grantKey" | "singleConnection">> =>
  Object.fromEntries(Object.entries(settings).filter(([key, value]) => DEFAULT_MODEL_CONFIG[key as keyof ContentModelConfig] !== value))

/**
 * The settings the properties hand to `make`: only those of `PROPERTY_SETTINGS` that differ from the
 * reference's parameters. The rest (L, G, S, T, the tenant limit and the interval) are left to the
 * implementation's defaults.
 */
export const STORE_SETTINGS: Partial<Omit<ContentSettings, "grantKey" | "singleConnection">> = withoutReferenceValues(PROPERTY_SETTINGS)

/** The same parameters as the model takes them. */
export const MODEL_CONFIG: ContentModelConfig = {
  grantLifetimeMs: PROPERTY_SETTINGS.grantLifetimeMs,
  graceMs: PROPERTY_SETTINGS.graceMs,
  skewMs: PROPERTY_SETTINGS.skewMs,
  turnMs: PROPERTY_SETTINGS.turnMs,
  chunkBytes: PROPERTY_SETTINGS.chunkBytes,
  maxContentBytes: PROPERTY_SETTINGS.maxContentBytes,
  sweepBatch: PROPERTY_SETTINGS.sweepBatch,
  sweepTenants: PROPERTY_SETTINGS.sweepTenants,
  sweepIntervalMs: PROPERTY_SETTINGS.sweepIntervalMs
}

/**
 * The parameter variants a race scenario may draw. Under the reference's L = 1 h and T = 30 s a racing
 * raise puts the horizon at `NOW + L`, far above the delete's re-check bound `sweepStart - T - S`, so a
 * re-check against a wrong bound keeps the same rows. A long turn (T = 2 h, above L) puts a raised
 * horizon under `sweepStart + T`, a short lifetime (L = 10 s, below S - T) under `sweepStart - T + S`:
 * the bound must be the rule's. Under that L every grant is born expired (the harness reads it as
 * `verify` does, `grantAsRead`), so every attach of those scenarios is refused.
 */
export const PARAMETER_VARIANTS: ReadonlyArray<ContentParameters> = [{ turnMs: 7_200_000 }, { grantLifetimeMs: 10_000 }]

/**
 * The settings the properties hand to `make` under `parameters` (absent: `STORE_SETTINGS`): a
 * parameter set to the reference's value is left out, so the implementation's default decides it.
 */
export const storeSettingsOf = (parameters: ContentParameters | undefined): Partial<Omit<ContentSettings, "grantKey" | "singleConnection">> =>
  parameters === undefined ? STORE_SETTINGS : withoutReferenceValues({ ...PROPERTY_SETTINGS, ...parameters })

/** The model's config under `parameters` (absent: `MODEL_CONFIG`). */
export const modelConfigOf = (parameters: ContentParameters | undefined): ContentModelConfig =>
  parameters === undefined ? MODEL_CONFIG : { ...MODEL_CONFIG, ...parameters }

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text)

/** Bytes of the large payload: one more than the reference's 1 MiB chunk (content.md "Parameters"). */
export const LARGE_PAYLOAD_BYTES = 1024 * 1024 + 1

/** `size` bytes of a fixed pattern that repeats every 251 bytes, a prime, so no chunk equals another. */
const patternBytes = (size: number): Uint8Array => {
  // A plain loop: `Uint8Array.from` with a mapping function took ~50 ms for 1 MiB at every module load.
  const bytes = new Uint8Array(size)
  for (let index = 0; index < size; index++) bytes[index] = (index * 7 + 3) % 251
  return bytes
}

/**
 * Payloads: empty, under one chunk, exactly one chunk, three chunks (partly filled), one byte over the
 * store's limit, and exactly at it (12 bytes, so the limit is tested at, above and, by the others, below);
 * then, not drawn by random commands (`DRAWN_PAYLOADS`), one byte over the reference's 1 MiB chunk,
 * which only scenarios at the reference's sizes upload (`referenceSizes.ts`).
 */
export const PAYLOADS: ReadonlyArray<Uint8Array> = [
  new Uint8Array(0),
  bytesOf("abc"),
  bytesOf("four"),
  bytesOf("nine byte"),
  bytesOf("thirteen byte"),
  bytesOf("twelve bytes"),
  patternBytes(LARGE_PAYLOAD_BYTES)
]

/** How many of `PAYLOADS`, from the first, random commands draw from: every one but the large one. */
export const DRAWN_PAYLOADS = 6

/** The index in `PAYLOADS` of the large payload. */
export const LARGE_PAYLOAD = 6

/** Tenants (the same payloads in several tenants share hashes, K1). */
export const TENANTS: ReadonlyArray<string> = ["t1", "t2", "t3"]
/** The index of the tenant after tenant index `tenant` in `TENANTS` (a detach in another tenant, K1, K5). */
export const otherTenant = (tenant: number): number => (tenant + 1) % TENANTS.length
/** Actors, on both sides of the key `n` (a scan missing a key range misses some). */
export const ACTORS: ReadonlyArray<string> = ["alice", "nina", "zed"]
export const BLOBS: ReadonlyArray<string> = ["file", "thumb"]
export const NAMES: ReadonlyArray<string> = ["a", "b"]

/** How long a stream may run before it is interrupted (virtual ms). */
export const STREAM_TIMEOUT_MS = 30_000

/**
 * Lowercase hex SHA-256, computed by the harness independently of any implementation. Synchronous
 * (`node:crypto`, also in workerd under `nodejs_compat`): WebCrypto's digest hands every call to
 * another thread and back, which cost the observation of every step more than the hashing itself.
 */
export const sha256HexOf = (bytes: Uint8Array): string => sha256HexOfParts([bytes])

/** `sha256HexOf` of the parts' bytes one after the other, without joining them. */
export const sha256HexOfParts = (parts: ReadonlyArray<Uint8Array>): string => {
  const hash = createHash("sha256")
  for (const part of parts) hash.update(part)
  return hash.digest("hex")
}

let payloadHashesOnce: ReadonlyArray<string> | undefined

/** `sha256HexOf` of every payload, in `PAYLOADS` order: computed once per process, since the payloads are constants. */
export const payloadHashes = (): ReadonlyArray<string> => (payloadHashesOnce ??= PAYLOADS.map(sha256HexOf))
