/**
 * The release entry point for anomaly identification queries: what a release service calls with the secure generator.
 * It returns only the released bits and the data-independent charge; true answers, ball counts and flip probabilities
 * stay inside.
 *
 * Charge: each answered query is an eps-DP (mechanism "dp") or (eps, k)-sensitively private (mechanism "sp") release;
 * q queries on the same database compose sequentially, so the charge is q * eps under that notion (it depends on the
 * number of queries and the parameters only, never on the data).
 */
import { assertSecure, type Rng } from '../random'
import { countBalls } from './ball-count'
import { type AiqMechanism, type AiqParams, checkAiqParams, flipProbability, isAnomaly, mechanismLambda } from './mechanism'
import type { Metric } from './metric'
import { countOf, type Universe } from './records'

export interface AiqCharge {
  notion: 'eps-dp' | 'eps-k-sensitive'
  /** Total charge (queries * epsilonPerQuery). */
  epsilon: number
  epsilonPerQuery: number
  queries: number
  /** Present for the SP mechanism. */
  k?: number
}

export interface AiqRelease {
  /** One released answer per queried tuple: 1 = "anomaly". */
  bits: Uint8Array
  charge: AiqCharge
}

export interface AiqReleaseRequest extends AiqParams {
  mechanism: AiqMechanism
  metric: Metric
  radius: number
  /** The queried tuples (binned, row-major q x dims; encode raw values with `encodeRecord`). */
  queries: Int32Array
}

/** The charge of a release, computable before anything is run (admission). */
export function aiqCharge(mechanism: AiqMechanism, params: AiqParams, queries: number): AiqCharge {
  checkAiqParams(params)
  const charge: AiqCharge = {
    notion: mechanism === 'dp' ? 'eps-dp' : 'eps-k-sensitive',
    epsilon: queries * params.epsilon,
    epsilonPerQuery: params.epsilon,
    queries
  }
  if (mechanism === 'sp') charge.k = params.k
  return charge
}

/** Answer the queries with Construction 1. `rng` must be the secure generator (checked). */
export function releaseAiq(rng: Rng, universe: Universe, req: AiqReleaseRequest): AiqRelease {
  assertSecure(rng)
  const d = universe.dims
  if (req.queries.length % d !== 0) throw new RangeError(`queried tuples must have ${d} coordinates each`)
  const q = req.queries.length / d
  const charge = aiqCharge(req.mechanism, req, q)
  const balls = countBalls(universe.points, universe.counts, universe.kinds, req.metric, req.radius, req.queries)
  const own = new Float64Array(q)
  for (let i = 0; i < q; i++) own[i] = countOf(universe, req.queries.subarray(i * d, i * d + d))
  return { bits: aiqBits(rng, own, balls, req), charge }
}

/**
 * Construction 1 on given counts: one released bit per record from its x_i (`own`) and B(i, r) (`ball`), e.g. the
 * person-bounded counts of person-bound.ts. `rng` must be the secure generator (checked).
 */
export function aiqBits(rng: Rng, own: ArrayLike<number>, ball: ArrayLike<number>, req: AiqParams & { mechanism: AiqMechanism }): Uint8Array {
  assertSecure(rng)
  checkAiqParams(req)
  const bits = new Uint8Array(own.length)
  for (let i = 0; i < own.length; i++) {
    const truth = isAnomaly(own[i], ball[i], req.beta)
    const t = flipProbability(mechanismLambda(req.mechanism, own[i], ball[i], req), req.epsilon)
    const flip = rng.next() < t
    bits[i] = truth !== flip ? 1 : 0
  }
  return bits
}
