/**
 * The content reference model on its own: pure steps, the horizons (K2, K4, K6), the refusal reasons of
 * grants (K4, K5), the deletion bounds, a sweep's paging and re-check, races between a scan and its
 * delete, and the meaning of storage faults at transaction boundaries.
 */
import { describe, expect, it } from "vitest"
import {
  contentModel,
  type ContentModelState,
  type ContentOperation,
  DEFAULT_MODEL_CONFIG,
  earliestDeletionMs,
  type GrantFacts,
  operationAlternatives,
  withTurnRegistered
} from "../../models/content/index.ts"

const L = DEFAULT_MODEL_CONFIG.grantLifetimeMs
const { graceMs: G, turnMs: T, skewMs: S } = DEFAULT_MODEL_CONFIG
const HASH_A = "a".repeat(64)
const HASH_B = "b".repeat(64)

const run = (operations: ReadonlyArray<ContentOperation>, config = DEFAULT_MODEL_CONFIG) => {
  let state: ContentModelState = contentModel.init(config)
  const results: Array<unknown> = []
  for (const operation of operations) {
    const outcome = contentModel.step(state, operation)
    state = outcome.state
    results.push(outcome.result)
  }
  return { state, results }
}

const upload = (tenant: string, hash: string, size: number, atMs: number): ContentOperation => ({ kind: "uploadBytes", tenant, hash, size, atMs })
const signed = (tenant: string, hash: string, size: number, expiresAt: number): GrantFacts => ({ kind: "signed", tenant, hash, size, expiresAt })

describe("content model", () => {
  it("upload raises granted_until to greatest(old, now + L) and registers the tenant (K2)", () => {
    const { state, results } = run([upload("t1", HASH_A, 3, 0), upload("t1", HASH_A, 3, 10)])
    expect(results).toEqual([{ _tag: "Success", value: { hash: HASH_A, size: 3, expiresAt: L } }, { _tag: "Success", value: { hash: HASH_A, size: 3, expiresAt: L + 10 } }])
    expect(state.sweptAtMs).toEqual({ t1: 0 })
  })

  it("deduplication is per tenant (K1)", () => {
    const { state } = run([upload("t1", HASH_A, 3, 0), upload("t2", HASH_A, 3, 5)])
    expect(Object.keys(state.contents).sort()).toEqual([`t1/${HASH_A}`, `t2/${HASH_A}`])
  })

  it("grant answers none for missing content or another size (K4)", () => {
    const { results } = run([upload("t1", HASH_A, 3, 0), { kind: "grant", tenant: "t1", hash: HASH_A, size: 4, atMs: 1 }, { kind: "grant", tenant: "t2", hash: HASH_A, size: 3, atMs: 1 }])
    expect(results.slice(1)).toEqual([{ _tag: "Success", value: null }, { _tag: "Success", value: null }])
  })

  it("attach refuses malformed, forged, foreign, mis-sized and expiring-within-S grants (K5)", () => {
    const place = { tenant: "t1", actor: "alice", blob: "file", name: "a" }
    const attach = (grant: GrantFacts, atMs: number, size = 3): ContentOperation => ({ kind: "attach", ...place, hash: HASH_A, size, grant, atMs })
    const { results, state } = run([
      attach({ kind: "malformed" }, 0),
      attach({ kind: "forged", tenant: "t1", hash: HASH_A, size: 3, expiresAt: L }, 0),
      attach(signed("t2", HASH_A, 3, L), 0),
      attach(signed("t1", HASH_A, 3, L), 0, 4),
      attach(signed("t1", HASH_A, 3, L), L - S),
      attach(signed("t1", HASH_A, 3, L), L - S - 1)
    ])
    expect(results).toEqual([
      { _tag: "Failure", error: "InvalidContentRef:malformed" },
      { _tag: "Failure", error: "InvalidContentRef:invalid" },
      { _tag: "Failure", error: "InvalidContentRef:invalid" },
      { _tag: "Failure", error: "InvalidContentRef:invalid" },
      { _tag: "Failure", error: "InvalidContentRef:expired" },
      { _tag: "Success", value: null }
    ])
    // Attach checks the grant only: no content row is needed.
    expect(Object.keys(state.refs)).toEqual(["t1/alice/file/a"])
  })

  it("a grant both for other content and expired may be refused as invalid or expired: K5 fixes no priority", () => {
    const place = { tenant: "t1", actor: "alice", blob: "file", name: "a" }
    const operations: ReadonlyArray<ContentOperation> = [
      { kind: "attach", ...place, hash: HASH_A, size: 3, grant: signed("t2", HASH_A, 3, L), atMs: L - S },
      { kind: "verify", tenant: "t1", hash: HASH_A, size: 3, grant: signed("t1", HASH_A, 4, L), atMs: L },
      { kind: "verify", tenant: "t1", hash: HASH_A, size: 3, grant: { kind: "forged", tenant: "t1", hash: HASH_A, size: 3, expiresAt: L }, atMs: L }
    ]
    const state = contentModel.init(DEFAULT_MODEL_CONFIG)
    const results = operations.map((operation) => operationAlternatives(state, operation).map((alternative) => contentModel.step(state, alternative).result))
    expect(results).toEqual([
      [{ _tag: "Failure", error: "InvalidContentRef:invalid" }, { _tag: "Failure", error: "InvalidContentRef:expired" }],
      [{ _tag: "Failure", error: "invalid" }, { _tag: "Failure", error: "expired" }],
      [{ _tag: "Failure", error: "invalid" }]
    ])
  })

  it("a tampered grant may be refused as malformed or invalid, as the store's encoding decides", () => {
    const verify: ContentOperation = { kind: "verify", tenant: "t1", hash: HASH_A, size: 3, grant: { kind: "tampered" }, atMs: 0 }
    const state = contentModel.init(DEFAULT_MODEL_CONFIG)
    expect(operationAlternatives(state, verify).map((alternative) => contentModel.step(state, alternative).result)).toEqual([
      { _tag: "Failure", error: "malformed" },
      { _tag: "Failure", error: "invalid" }
    ])
  })

  it("unreferenced content goes at the first forced sweep after granted_until + G + T + S, not before", () => {
    const at = L + G + T + S
    const early = run([upload("t1", HASH_A, 3, 0), { kind: "sweep", force: true, atMs: at }])
    expect(early.results[1]).toEqual({ _tag: "Success", value: 0 })
    const late = run([upload("t1", HASH_A, 3, 0), { kind: "sweep", force: true, atMs: at + 1 }])
    expect(late.results[1]).toEqual({ _tag: "Success", value: 1 })
    expect(earliestDeletionMs(DEFAULT_MODEL_CONFIG, { tenant: "t1", hash: HASH_A, size: 3, grantedUntilMs: L })).toBe(at + 1)
  })

  it("a read whose storage failed fails with the storage error and changes nothing; the next read returns the bytes (K7)", () => {
    const { state } = run([upload("t1", HASH_A, 3, 0)])
    const failed = contentModel.step(state, { kind: "read", tenant: "t1", hash: HASH_A, size: 3, fault: { transaction: 1, phase: "readFails" } })
    expect(failed.result).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(failed.state).toBe(state)
    expect(contentModel.step(failed.state, { kind: "read", tenant: "t1", hash: HASH_A, size: 3 }).result).toEqual({ _tag: "Success", value: { hash: HASH_A, size: 3 } })
  })

  it("T is the longest turn ever registered: a shorter one registered later does not lower the horizon", () => {
    const longMs = 2 * 3_600_000
    const uploaded = run([upload("t1", HASH_A, 3, 0)]).state
    const deployed = withTurnRegistered(withTurnRegistered(uploaded, longMs), 1_000)
    expect(deployed.config.turnMs).toBe(longMs)
    expect(deployed.registeredTurnMs).toBe(1_000)
    const pastShorterMs = L + G + 1_000 + S + 1
    const swept = contentModel.step(deployed, { kind: "sweep", force: true, atMs: pastShorterMs })
    expect(swept.result).toEqual({ _tag: "Success", value: 0 })
    expect(swept.situations).toContain("longestTurn")
    const atLongest = contentModel.step(deployed, { kind: "sweep", force: true, atMs: earliestDeletionMs(deployed.config, deployed.contents[`t1/${HASH_A}`]!) })
    expect(atLongest.result).toEqual({ _tag: "Success", value: 1 })
    expect(() => withTurnRegistered(uploaded, 0)).toThrow(RangeError)
  })

  it("a referenced candidate stays (i); an hourly sweep records the tenant, a forced one does not", () => {
    const at = L + G + T + S + 1
    const place = { tenant: "t1", actor: "alice", blob: "file", name: "a" }
    const { results, state } = run([
      upload("t1", HASH_A, 3, 0),
      upload("t1", HASH_B, 1, 0),
      { kind: "attach", ...place, hash: HASH_A, size: 3, grant: signed("t1", HASH_A, 3, L), atMs: 0 },
      { kind: "sweep", force: true, atMs: at },
      { kind: "sweep", force: false, atMs: at }
    ])
    expect(results.slice(3)).toEqual([{ _tag: "Success", value: 1 }, { _tag: "Success", value: 0 }])
    expect(Object.keys(state.contents)).toEqual([`t1/${HASH_A}`])
    expect(state.sweptAtMs).toEqual({ t1: at })
  })

  it("a grant between the scan and the delete keeps the content (iii); after the delete it answers none", () => {
    const at = L + G + T + S + 1
    const grant: ContentOperation & { kind: "grant" } = { kind: "grant", tenant: "t1", hash: HASH_A, size: 3, atMs: at }
    const between = contentModel.step(run([upload("t1", HASH_A, 3, 0)]).state, { kind: "sweep", force: true, atMs: at, competitor: { operation: grant, betweenScanAndDelete: true } })
    expect(between.result).toEqual({ _tag: "Success", value: 0 })
    expect(between.competitor?.result).toEqual({ _tag: "Success", value: { expiresAt: at + L } })
    const after = contentModel.step(run([upload("t1", HASH_A, 3, 0)]).state, { kind: "sweep", force: true, atMs: at, competitor: { operation: grant, betweenScanAndDelete: false } })
    expect(after.result).toEqual({ _tag: "Success", value: 1 })
    expect(after.competitor?.result).toEqual({ _tag: "Success", value: null })
  })

  it("pages candidates by (granted_until, hash) in batches, so ties across a batch boundary are all deleted", () => {
    const config = { ...DEFAULT_MODEL_CONFIG, sweepBatch: 1 }
    const { results } = run([upload("t1", HASH_A, 3, 0), upload("t1", HASH_B, 3, 0), { kind: "sweep", force: true, atMs: L + G + T + S + 1 }], config)
    expect(results[2]).toEqual({ _tag: "Success", value: 2 })
  })

  it("a crash inside a transaction keeps nothing, after it everything; a lost reply fails the call", () => {
    const inside = run([{ ...upload("t1", HASH_A, 3, 0), fault: { transaction: 1, phase: "inside" } } as ContentOperation])
    expect(inside.results[0]).toEqual({ _tag: "Crashed", transaction: 1, phase: "inside" })
    expect(inside.state.contents).toEqual({})
    const lost = run([{ ...upload("t1", HASH_A, 3, 0), fault: { transaction: 1, phase: "lostReply" } } as ContentOperation])
    expect(lost.results[0]).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(Object.keys(lost.state.contents)).toEqual([`t1/${HASH_A}`])
  })

  it("a refused commit keeps nothing and fails the call with the storage error; the next upload stores it", () => {
    const refused = run([{ ...upload("t1", HASH_A, 3, 0), fault: { transaction: 1, phase: "commitRefused" } } as ContentOperation, upload("t1", HASH_A, 3, 0)])
    expect(refused.results[0]).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(refused.results[1]).toMatchObject({ _tag: "Success" })
    expect(Object.keys(refused.state.contents)).toEqual([`t1/${HASH_A}`])
    expect(run([{ ...upload("t1", HASH_A, 3, 0), fault: { transaction: 1, phase: "commitRefused" } } as ContentOperation]).state.contents).toEqual({})
  })

  it("a failed statement keeps nothing and fails the call with the storage error, as a refused commit does", () => {
    const failed = run([{ ...upload("t1", HASH_A, 3, 0), fault: { transaction: 1, phase: "statementFails" } } as ContentOperation, upload("t1", HASH_A, 3, 0)])
    expect(failed.results[0]).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(failed.results[1]).toMatchObject({ _tag: "Success" })
    expect(run([{ ...upload("t1", HASH_A, 3, 0), fault: { transaction: 1, phase: "statementFails" } } as ContentOperation]).state.contents).toEqual({})
    // A statement that struck before the body ran past the limit is the failure (the model is told it only then).
    const tooLarge = { kind: "uploadStream", tenant: "t1", hash: HASH_A, size: DEFAULT_MODEL_CONFIG.maxContentBytes + 1, limit: DEFAULT_MODEL_CONFIG.maxContentBytes, bodyFails: false, atMs: 0 } as const
    expect(run([{ ...tooLarge, fault: { transaction: 1, phase: "statementFails" } } as ContentOperation]).results[0]).toEqual({ _tag: "Failure", error: "SqlError" })
    expect(run([tooLarge as ContentOperation]).results[0]).toEqual({ _tag: "Failure", error: "ContentTooLarge" })
  })

  it("too large and failing bodies write nothing (K3)", () => {
    const { results, state } = run([
      { kind: "uploadStream", tenant: "t1", hash: HASH_A, size: DEFAULT_MODEL_CONFIG.maxContentBytes + 1, limit: DEFAULT_MODEL_CONFIG.maxContentBytes, bodyFails: false, atMs: 0 },
      { kind: "uploadStream", tenant: "t1", hash: HASH_A, size: 3, limit: 10, bodyFails: true, atMs: 0 }
    ])
    expect(results).toEqual([{ _tag: "Failure", error: "ContentTooLarge" }, { _tag: "Failure", error: "BodyFailed" }])
    expect(state).toEqual(contentModel.init(DEFAULT_MODEL_CONFIG))
  })

  it("steps never mutate their input state", () => {
    const before = run([upload("t1", HASH_A, 3, 0)]).state
    const frozen = JSON.stringify(before)
    contentModel.step(before, { kind: "sweep", force: true, atMs: 10 * G })
    contentModel.step(before, upload("t1", HASH_B, 1, 5))
    expect(JSON.stringify(before)).toBe(frozen)
  })
})
