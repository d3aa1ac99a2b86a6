/**
 * (beta, r)-anomaly identification queries and Construction 1 (ALGORITHMS.md section 2).
 *
 * Inputs are x_i (copies of the queried record in the database) and B = B_x(i, r) (the closed ball count, i's own
 * copies included, so B >= x_i). Everything here is a function of (x_i, B, beta, k, eps) only.
 */

export type AiqMechanism = 'dp' | 'sp'

export interface AiqParams {
  /** Anomaly threshold, a whole number >= 1: i is an anomaly iff x_i >= 1 and B <= beta. */
  beta: number
  /** Sensitivity parameter k, a whole number >= 1 (used by the SP mechanism and for "sensitive"). */
  k: number
  /** Privacy parameter eps > 0. */
  epsilon: number
}

export function checkAiqParams(p: AiqParams): void {
  if (!Number.isInteger(p.beta) || p.beta < 1) throw new RangeError(`beta must be a whole number >= 1 (got ${p.beta})`)
  if (!Number.isInteger(p.k) || p.k < 1) throw new RangeError(`k must be a whole number >= 1 (got ${p.k})`)
  if (!(p.epsilon > 0) || !Number.isFinite(p.epsilon)) throw new RangeError(`epsilon must be a finite number > 0 (got ${p.epsilon})`)
}

function checkCounts(xi: number, B: number): void {
  if (!Number.isInteger(xi) || xi < 0 || !Number.isInteger(B) || B < xi) {
    throw new RangeError(`need whole numbers 0 <= x_i <= B (got x_i = ${xi}, B = ${B})`)
  }
}

/** g(i, x): is i a (beta, r)-anomaly? */
export function isAnomaly(xi: number, B: number, beta: number): boolean {
  return xi >= 1 && B <= beta
}

/** Is a record with ball count B k-sensitive (adding k records would make it normal)? */
export function isSensitive(B: number, beta: number, k: number): boolean {
  return B + k > beta
}

/** mdd-function Delta_G(i, x): add/remove-one-record steps to the nearest database that flips the answer. */
export function mdd(xi: number, B: number, beta: number): number {
  checkCounts(xi, B)
  if (xi === 0) return B < beta ? 1 : 2 + B - beta
  return B <= beta ? Math.min(xi, beta + 1 - B) : B - beta
}

/** lambda_k(i, x): the 1-Lipschitz lower bound on the mdd in the k-sensitive neighbourhood graph. */
export function lambdaK(xi: number, B: number, beta: number, k: number): number {
  if (B >= beta + 1 - k) return mdd(xi, B, beta)
  checkCounts(xi, B)
  return beta + 1 - B + Math.min(0, xi - k)
}

/** Construction 1: t = e^(-eps (lambda - 1)) / (1 + e^eps), written so that it never overflows. */
export function flipProbability(lambda: number, epsilon: number): number {
  if (!(lambda >= 1)) throw new RangeError(`lambda must be >= 1 (got ${lambda})`)
  return Math.exp(-epsilon * lambda) / (1 + Math.exp(-epsilon))
}

export function mechanismLambda(mechanism: AiqMechanism, xi: number, B: number, p: AiqParams): number {
  return mechanism === 'dp' ? mdd(xi, B, p.beta) : lambdaK(xi, B, p.beta, p.k)
}

/** Ground truth and exact mechanism behaviour for a batch of queried records (struct of arrays). For simulations. */
export interface AiqTable {
  size: number
  count: Float64Array
  ballCount: Float64Array
  isAnomaly: Uint8Array
  sensitive: Uint8Array
  mdd: Float64Array
  lambdaK: Float64Array
  /** Exact flip probability of the optimal eps-DP mechanism (lambda = mdd). */
  flipDp: Float64Array
  /** Exact flip probability of the (eps, k)-SP mechanism (lambda = lambda_k). */
  flipSp: Float64Array
}

export function aiqTable(counts: ArrayLike<number>, balls: ArrayLike<number>, p: AiqParams): AiqTable {
  checkAiqParams(p)
  const n = counts.length
  if (balls.length !== n) throw new RangeError('counts and ball counts must have the same length')
  const t: AiqTable = {
    size: n,
    count: Float64Array.from(counts),
    ballCount: Float64Array.from(balls),
    isAnomaly: new Uint8Array(n),
    sensitive: new Uint8Array(n),
    mdd: new Float64Array(n),
    lambdaK: new Float64Array(n),
    flipDp: new Float64Array(n),
    flipSp: new Float64Array(n)
  }
  for (let i = 0; i < n; i++) {
    const xi = counts[i]
    const B = balls[i]
    t.isAnomaly[i] = isAnomaly(xi, B, p.beta) ? 1 : 0
    t.sensitive[i] = isSensitive(B, p.beta, p.k) ? 1 : 0
    t.mdd[i] = mdd(xi, B, p.beta)
    t.lambdaK[i] = lambdaK(xi, B, p.beta, p.k)
    t.flipDp[i] = flipProbability(t.mdd[i], p.epsilon)
    t.flipSp[i] = flipProbability(t.lambdaK[i], p.epsilon)
  }
  return t
}

/** The bound of Theorem 4.6 on the SP error for a non-sensitive record: e^(-eps (beta + 1 - k - B)). */
export function nonSensitiveErrorBound(B: number, p: AiqParams): number {
  return Math.exp(-p.epsilon * (p.beta + 1 - p.k - B))
}
