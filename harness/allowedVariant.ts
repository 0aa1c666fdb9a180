/**
 * The allowed-variant kit: the mirror of the known-bad kit. An allowed variant is the shipped
 * implementation with one choice changed that the reference leaves to the implementation (the order
 * of rows a query without `ORDER BY` returns, the order a pass takes its keys in, whether a no-op write
 * is sent). Every suite must pass every allowed variant: a verdict that fails one checks something no
 * rule requires (over-specification), and would fail an independent implementation that is right.
 *
 * Known-bads and mutation testing measure only whether a suite rejects wrong code; allowed variants
 * measure whether it accepts right code that differs from ours. A variant is a piece swap (exactly one
 * piece, as a known-bad) or a wrapper around the shipped implementation's public API.
 *
 * @example
 * ```ts
 * const variant = buildAllowedVariant(contentPieceKit, {
 *   name: "tenants-reversed",
 *   freedom: "K6 does not fix the order a sweep takes its tenants in",
 *   pieces: { tenantsOfPass: reversedTenantsOfPass }
 * })
 * const report = yield* runConformance({ kind: "run", adapters, suites: [contentSuite(variant.implementation)], ... })
 * rejections(report) // [] when no verdict over-specifies
 * ```
 */
import type { ConformanceReport } from "./RunResult.ts"
import { type PieceKit, purityProblems } from "./knownBad.ts"
import type { SubjectImplementation } from "./SubjectPlugin.ts"

/** Prefix of an allowed variant's name in reports: `allowed/<name>`. */
export const ALLOWED_VARIANT_PREFIX = "allowed/"

/** One allowed variant, built. */
export interface AllowedVariant<Implementation extends SubjectImplementation> {
  /** Stable name, e.g. `tenants-reversed`; the implementation is named `allowed/<name>`. */
  readonly name: string
  /**
   * The choice the reference leaves open, in one line, citing the rule that leaves it (or the rule
   * that fixes everything around it and says nothing of this).
   */
  readonly freedom: string
  readonly implementation: Implementation
}

/** An allowed variant declared as a piece swap. */
export interface AllowedPieceVariant<Pieces> {
  readonly name: string
  readonly freedom: string
  /** The one swapped piece: `{ [piece]: replacement }` (the kit refuses zero or several). */
  readonly pieces: Partial<Pieces>
}

const requireDeclared = (name: string, freedom: string): void => {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`allowed variant "${name}": name it in lowercase words joined by "-"`)
  if (freedom.trim().length === 0) throw new Error(`allowed variant ${name}: say which choice the reference leaves open, citing its rule`)
}

/**
 * Builds an allowed variant from the subject's shipped pieces with exactly one swapped, named
 * `allowed/<name>`. Throws when the swap is not pure or the freedom is not stated.
 */
export const buildAllowedVariant = <Pieces extends object, Implementation extends SubjectImplementation>(
  kit: PieceKit<Pieces, Implementation>,
  declaration: AllowedPieceVariant<Pieces>
): AllowedVariant<Implementation> => {
  requireDeclared(declaration.name, declaration.freedom)
  const allPieces: Pieces = { ...kit.defaults, ...declaration.pieces }
  const problems = purityProblems(kit.defaults, declaration.pieces, allPieces)
  if (problems.length > 0) throw new Error(`allowed variant ${declaration.name}: ${problems.join("; ")}`)
  return { name: declaration.name, freedom: declaration.freedom, implementation: kit.build(`${ALLOWED_VARIANT_PREFIX}${declaration.name}`, allPieces) }
}

/**
 * Declares an allowed variant built by wrapping the shipped implementation's public API (`wrap` gets
 * the variant's report name and returns the implementation). Throws when the freedom is not stated.
 */
export const wrappedAllowedVariant = <Implementation extends SubjectImplementation>(
  declaration: { readonly name: string; readonly freedom: string },
  wrap: (reportName: string) => Implementation
): AllowedVariant<Implementation> => {
  requireDeclared(declaration.name, declaration.freedom)
  const implementation = wrap(`${ALLOWED_VARIANT_PREFIX}${declaration.name}`)
  if (implementation.name !== `${ALLOWED_VARIANT_PREFIX}${declaration.name}`) {
    throw new Error(`allowed variant ${declaration.name}: the wrapped implementation must be named ${ALLOWED_VARIANT_PREFIX}${declaration.name}, not ${implementation.name}`)
  }
  return { name: declaration.name, freedom: declaration.freedom, implementation }
}

/** One requirement a report did not pass, though the implementation is an allowed variant. */
export interface Rejection {
  readonly adapter: string
  readonly requirementId: string
  /** `fail`, `unknown` or `error`. */
  readonly verdict: string
  readonly reason: string
}

/** Every requirement of `report` whose verdict is neither `pass` nor `not-applicable`, by adapter. */
export const rejections = (report: ConformanceReport): ReadonlyArray<Rejection> =>
  report.adapters.flatMap((adapter) =>
    adapter.requirements
      .filter((requirement) => requirement.verdict !== "pass" && requirement.verdict !== "not-applicable")
      .map((requirement) => ({ adapter: adapter.fingerprint.name, requirementId: requirement.requirementId, verdict: requirement.verdict, reason: requirement.reason }))
  )
