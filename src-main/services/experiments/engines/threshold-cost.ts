/**
 * Estimated cost of one trial of a threshold cell, for time left only (results never depend on it), in units of one
 * predicate tested by a single-step mechanism: NLM and TSLM cost k.
 *
 * PPWLM and DPPWLM cost the predicates their plan tests times a power of the number of eps levels they decide at (the
 * min-entropy search, and DPPWLM's scoring of candidate steps, grow with the levels). Both are expected values from the
 * workload: at planned step j (eps_j, band alpha_j = ln(m / (2 beta)) / eps_j) a predicate at distance d from its
 * threshold stays undecided with probability P(|d + Laplace(1 / eps_j)| <= alpha_j), which depends on |d| eps_j only; the
 * distances are summarised by at most DISTANCE_QUANTILES quantiles per workload. DPPWLM's adaptive steps are taken as the
 * geometric plan. The constants are fitted to the CPU time of the `mide` preset's 546 cells (taxi, k = 1,488); a cell's
 * estimate is within about a factor of 2 of its time, and the estimate of a sweep's share done holds much better.
 */
import {
  type ThresholdMechanism,
  type ThresholdParams,
  checkThresholdParams,
  geometricPlan,
  thresholdCharge
} from '../../../../src-worker/engine/mide'

export interface ThresholdCostInput {
  counts: Float64Array
  thresholds: Float64Array
}

const DISTANCE_QUANTILES = 64
/** Cost = perTest x expected predicates tested x (expected levels + 1)^levelsPower (test/bench/threshold-cost.bench.ts refits them). */
export const MULTI_STEP_COST = {
  ppwlm: { perTest: 1.33, levelsPower: 0.73 },
  dppwlm: { perTest: 1.45, levelsPower: 1.28 }
} as const

/**
 * A worker's first cells of a mechanism run slower while its code is compiled: the extra CPU time of a fresh process's
 * first cells of each mechanism, in the same units, counted on a worker's first batch of the mechanism
 * (test/bench/threshold-cost.bench.ts measures it).
 */
export const THRESHOLD_WARM_UP: Readonly<Record<ThresholdMechanism, number>> = { nlm: 5e6, tslm: 4.5e6, ppwlm: 15e6, dppwlm: 32e6 }

interface Distances {
  /** |count - threshold| at evenly spaced quantiles */
  values: Float64Array
  /** predicates each value stands for */
  weight: number
  /** expectedPlanWork by plan (alpha, beta, eps_1, m): PPWLM and DPPWLM cells of a sweep share plans */
  plans: Map<string, { tested: number; levels: number }>
}

const distancesOf = new WeakMap<Float64Array, Map<Float64Array, Distances>>()

function distances(w: ThresholdCostInput): Distances {
  let byThresholds = distancesOf.get(w.counts)
  if (byThresholds === undefined) distancesOf.set(w.counts, (byThresholds = new Map()))
  let d = byThresholds.get(w.thresholds)
  if (d === undefined) {
    const k = w.counts.length
    const all = new Float64Array(k)
    for (let i = 0; i < k; i++) all[i] = Math.abs(w.counts[i] - w.thresholds[i])
    all.sort()
    if (k <= DISTANCE_QUANTILES) d = { values: all, weight: 1, plans: new Map() }
    else {
      const values = new Float64Array(DISTANCE_QUANTILES)
      for (let q = 0; q < DISTANCE_QUANTILES; q++) values[q] = all[Math.floor(((q + 0.5) * k) / DISTANCE_QUANTILES)]
      d = { values, weight: k / DISTANCE_QUANTILES, plans: new Map() }
    }
    byThresholds.set(w.thresholds, d)
  }
  return d
}

/** P(|d + X| <= a) for X ~ Laplace(b), given y = |d| / b and band = a / b. */
function staysUndecided(y: number, band: number): number {
  return y <= band ? 1 - 0.5 * Math.exp(y - band) - 0.5 * Math.exp(-(band + y)) : 0.5 * Math.exp(band - y) - 0.5 * Math.exp(-(band + y))
}

/** Expected predicates tested over the plan's steps, and expected levels decided at. */
export function expectedPlanWork(params: ThresholdParams, w: ThresholdCostInput): { tested: number; levels: number } {
  const k = w.counts.length
  const { values, weight, plans } = distances(w)
  const key = `${params.alpha}/${params.beta}/${params.eps1}/${params.steps}`
  const known = plans.get(key)
  if (known !== undefined) return known
  const band = Math.log(params.steps / (2 * params.beta))
  const plan = geometricPlan(params)
  let tested = k
  let levels = 0
  let before = k
  for (let j = 0; j < plan.length; j++) {
    const eps = plan[j].epsilon
    let after = 0
    for (let q = 0; q < values.length; q++) after += staysUndecided(values[q] * eps, band)
    after *= weight
    if (before - after > 0.5) levels++
    if (j < plan.length - 1) tested += after
    before = after
  }
  const work = { tested, levels }
  plans.set(key, work)
  return work
}

export function thresholdTrialCost(mechanism: ThresholdMechanism, params: ThresholdParams, w: ThresholdCostInput): number {
  const k = w.counts.length
  // Parameters the engine refuses fail their cell's batch with the engine's sentence; the estimate never throws.
  if (checkThresholdParams(mechanism, params) !== null) return k
  if (thresholdCharge(mechanism, params).denied) return 1
  if (mechanism !== 'ppwlm' && mechanism !== 'dppwlm') return k
  const { tested, levels } = expectedPlanWork(params, w)
  const c = MULTI_STEP_COST[mechanism]
  return c.perTest * tested * Math.pow(levels + 1, c.levelsPower)
}
