/**
 * Prop. 3 of the paper: the expected number of queries of the binarised search with the log-odds stopping rule.
 *
 * The paper writes E[T] <= (log(n+1) + log(1/delta) + eps) / (1 - h_b(p)). `1 - h_b(p)` is the capacity of a binary
 * symmetric channel in BITS, so the logarithms must be base 2 for the ratio to be a number of queries; with natural logs in
 * the numerator and 1 - h_b in nats in the denominator (as ALGORITHMS.md states it) the "bound" is up to 20x too small
 * for p near 1/2 and is violated by simulation (see docs/papers/binary-search.md). We use the unit-consistent form
 *   (log2(n+1) + log2(1/delta) + log2((1-p)/p)) / (1 - h2(p)),
 * where log2((1-p)/p) = eps / ln 2 for randomized response (the paper's "+ eps" term, converted to bits).
 */
import { binaryErrorBound, rrFlipProbability, type OracleKind } from './oracles'

/** Binary entropy in bits. */
export function binaryEntropyBits(p: number): number {
  if (p <= 0 || p >= 1) return 0
  return -(p * Math.log2(p) + (1 - p) * Math.log2(1 - p))
}

/** The error probability p that Prop. 3 uses: RR's flip probability, or the Eq. 24 bound (binary; also shown for direct). */
export function oracleErrorProbability(kind: OracleKind, eps: number, tLow: number, tHigh: number): number {
  return kind === 'rr' ? rrFlipProbability(eps) : binaryErrorBound(eps, tLow, tHigh)
}

/** Prop. 3 bound for N = n+1 individuals, error probability p and target error delta (log-odds rule). */
export function expectedQueriesBound(individuals: number, p: number, delta: number): number {
  if (!(p < 0.5)) return Infinity
  const pc = Math.max(p, Number.MIN_VALUE)
  const num = Math.log2(individuals) + Math.log2(1 / delta) + Math.log2((1 - pc) / pc)
  return num / (1 - binaryEntropyBits(p))
}

/** The same bound as ALGORITHMS.md writes it (natural logs over 1 - h_b in nats); kept to show the discrepancy. */
export function expectedQueriesBoundAsWritten(individuals: number, p: number, delta: number, eps: number): number {
  const hNats = p <= 0 || p >= 1 ? 0 : -(p * Math.log(p) + (1 - p) * Math.log(1 - p))
  return (Math.log(individuals) + Math.log(1 / delta) + eps) / (1 - hNats)
}

/**
 * The delta equivalent to a posterior-max rule: max f > tau  <=>  log(f/(1-f)) > log(tau/(1-tau)), i.e. delta = (1-tau)/tau.
 * The bound applies to whichever posterior rule fires first, so with several rules the smallest bound holds.
 */
export function deltaOfTau(tau: number): number {
  // For tau < 1/2 the rule stops no later than tau = 1/2 would, so the delta = 1 bound still holds.
  return Math.min(1, (1 - tau) / tau)
}
