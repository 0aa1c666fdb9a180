/**
 * From a generated command to the model's operation and the implementation's call. Indexes resolve
 * against the fixed world (`config.ts`) and the wallet: the grants this run was handed, with what
 * the model knows of each (the fields it binds, or that it is forged).
 */
import { Effect, Result } from "effect"
import type { Json } from "../../harness/Property.ts"
import type { ContentModelState, ContentOperation, GrantFacts, ReachedFault } from "../../models/content/index.ts"
import type { ContentStore } from "../../subjects/content/api.ts"
import { ACTORS, BLOBS, NAMES, PAYLOADS, otherTenant, PROPERTY_SETTINGS, TENANTS } from "./config.ts"
import { bodyOf, bytesJson, optionalGrantJson, streamJson, uploadJson } from "./driver.ts"
import type { Command, Misuse, PlaceSpec, Tamper } from "./scenario.ts"
import { tamperedGrant } from "./tamper.ts"

/** A grant the run was handed. */
export interface WalletEntry {
  readonly grant: string
  readonly facts: WalletFacts
}

/** What a call returns: its JSON result and, for uploads and grants, the grant handed out. */
export interface CallResult {
  readonly json: Json
  readonly grant?: string
}

/** What the harness knows of a grant a store handed out (signed by the store under test, or forged). */
export type WalletFacts = Extract<GrantFacts, { readonly kind: "signed" | "forged" }>

/** A resolved command: the model's operation, the call, and how a handed grant enters the wallet. */
export interface Resolved {
  readonly operation: ContentOperation
  readonly call: (store: ContentStore, forger: ContentStore) => Effect.Effect<CallResult, unknown>
  /** The wallet facts of a grant the call hands out, from the model's prediction. */
  readonly facts?: (predicted: Json) => WalletFacts | undefined
}

/** What resolution reads. */
export interface ResolveContext {
  readonly hashes: ReadonlyArray<string>
  readonly wallet: ReadonlyArray<WalletEntry>
  readonly atMs: number
  readonly model: ContentModelState
}

const MALFORMED_GRANT = "this is not a grant"

const placeOf = (spec: PlaceSpec) => ({ tenant: TENANTS[spec.tenant]!, actor: ACTORS[spec.actor]!, blob: BLOBS[spec.blob]!, name: NAMES[spec.name]! })

const signedFacts = (kind: "signed" | "forged", tenant: string, hash: string, size: number) => (predicted: Json): WalletFacts | undefined => {
  const value = predicted as { readonly expiresAt?: number } | null
  return value !== null && typeof value.expiresAt === "number" ? { kind, tenant, hash, size, expiresAt: value.expiresAt } : undefined
}

/** The grant and bound an attach or verify uses: a wallet entry, misused and tampered with as generated. */
const misused = (context: ResolveContext, walletIndex: number, misuse: Misuse, tamper: Tamper | undefined) => {
  // Index 0 is the most recent grant.
  const entry = context.wallet.length === 0 ? undefined : context.wallet[context.wallet.length - 1 - (walletIndex % context.wallet.length)]!
  const base = entry === undefined ? { tenant: TENANTS[0]!, hash: context.hashes[0]!, size: 0 } : { tenant: entry.facts.tenant, hash: entry.facts.hash, size: entry.facts.size }
  const tenant = misuse === "otherTenant" ? TENANTS[otherTenant(TENANTS.indexOf(base.tenant))]! : base.tenant
  const hash = misuse === "wrongHash" ? context.hashes.find((candidate) => candidate !== base.hash)! : base.hash
  const size = misuse === "wrongSize" ? base.size + 1 : base.size
  if (misuse === "malformed" || entry === undefined) return { grant: MALFORMED_GRANT, facts: { kind: "malformed" } as GrantFacts, tenant, hash, size }
  if (tamper !== undefined) return { grant: tamperedGrant(entry.grant, tamper), facts: { kind: "tampered" } as GrantFacts, tenant, hash, size }
  return { grant: entry.grant, facts: entry.facts as GrantFacts, tenant, hash, size }
}

/** Resolves a content-changing or reading command (not clock, restart or race commands). */
export const resolveCommand = (command: Command, context: ResolveContext): Resolved | undefined => {
  const atMs = context.atMs
  switch (command.op) {
    case "upload": {
      const tenant = TENANTS[command.tenant]!
      const bytes = PAYLOADS[command.payload]!
      const hash = context.hashes[command.payload]!
      const limit = command.limit ?? PROPERTY_SETTINGS.maxContentBytes
      const operation: ContentOperation = command.stream
        ? { kind: "uploadStream", tenant, hash, size: bytes.byteLength, limit, bodyFails: command.bodyFails === true, atMs }
        : { kind: "uploadBytes", tenant, hash, size: bytes.byteLength, atMs }
      return {
        operation,
        call: (store) =>
          Effect.flatMap(command.stream ? store.uploadStream(tenant, bodyOf(bytes, command.bodyFails === true), limit) : store.uploadBytes(tenant, bytes), (ref) =>
            Effect.map(uploadJson(store, tenant, ref), (json) => ({ json, grant: ref.grant }))),
        facts: signedFacts("signed", tenant, hash, bytes.byteLength)
      }
    }
    case "grant":
    case "forge": {
      const tenant = TENANTS[command.tenant]!
      const hash = context.hashes[command.payload]!
      const size = PAYLOADS[command.payload]!.byteLength + (command.op === "grant" ? command.sizeDelta : 0)
      return {
        operation: { kind: "grant", tenant, hash, size, atMs },
        call: (store, forger) =>
          Effect.flatMap((command.op === "grant" ? store : forger).grant(tenant, hash, size), (granted) =>
            Effect.map(optionalGrantJson(command.op === "grant" ? store : forger, tenant, granted), (json) =>
              granted._tag === "Some" ? { json, grant: granted.value.grant } : { json })),
        facts: signedFacts(command.op === "grant" ? "signed" : "forged", tenant, hash, size)
      }
    }
    case "attach": {
      const place = placeOf(command)
      const used = misused(context, command.wallet, command.misuse, command.tamper)
      const at = { ...place, tenant: used.tenant }
      return {
        operation: { kind: "attach", ...at, hash: used.hash, size: used.size, grant: used.facts, atMs },
        call: (store) => Effect.as(store.attach({ ...at, ref: { hash: used.hash, size: used.size, grant: used.grant } }), { json: null })
      }
    }
    case "detach": {
      const place = placeOf(command)
      return { operation: { kind: "detach", ...place }, call: (store) => Effect.map(store.detach(place), (existed) => ({ json: existed })) }
    }
    case "read": {
      const tenant = TENANTS[command.tenant]!
      const hash = context.hashes[command.payload]!
      const bytes = PAYLOADS[command.payload]!
      const size = bytes.byteLength + command.sizeDelta
      return {
        operation: { kind: "read", tenant, hash, size },
        call: (store) => Effect.map(store.read(tenant, hash, size), (read) => ({ json: read._tag === "Some" ? bytesJson(read.value, { hash, bytes }) : null }))
      }
    }
    case "stream": {
      const tenant = TENANTS[command.tenant]!
      const hash = context.hashes[command.payload]!
      const bytes = PAYLOADS[command.payload]!
      const size = bytes.byteLength + (command.sizeDelta ?? 0)
      return {
        operation: { kind: "stream", tenant, hash, size, interrupt: command.interrupt },
        call: (store) => Effect.map(streamJson(store, { tenant, hash, size }, command.interrupt, bytes), (json) => ({ json }))
      }
    }
    case "verify": {
      const used = misused(context, command.wallet, command.misuse, command.tamper)
      return {
        operation: { kind: "verify", tenant: used.tenant, hash: used.hash, size: used.size, grant: used.facts, atMs },
        call: (store) =>
          Effect.flatMap(store.verify(used.grant, { tenant: used.tenant, hash: used.hash, size: used.size }), (verified) =>
            Result.isSuccess(verified) ? Effect.succeed({ json: { expiresAt: verified.success } }) : Effect.fail({ _tag: "Refused", reason: verified.failure }))
      }
    }
    case "sweep":
      return { operation: { kind: "sweep", force: command.force, atMs }, call: (store) => Effect.map(store.sweep(command.force), (deleted) => ({ json: deleted })) }
    default:
      return undefined
  }
}

/** The operation with the fault it reached, as the model takes it. */
export const withReachedFault = (operation: ContentOperation, reached: { readonly transaction: number; readonly phase: string } | undefined): ContentOperation =>
  reached === undefined || operation.kind === "stream" || operation.kind === "verify"
    ? operation
    : { ...operation, fault: reached as ReachedFault }
