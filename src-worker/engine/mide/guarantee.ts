/** Plain, data-independent numbers a UI can show before a threshold query runs. */
import { minEntropyLevels } from './min-entropy'
import {
  type PlannedStep,
  type ThresholdMechanism,
  type ThresholdParams,
  assertThresholdParams,
  geometricPlan,
  isMultiStep,
  thresholdCharge
} from './params'

export interface ThresholdGuarantee {
  mechanism: ThresholdMechanism
  /** eps charged to the ledger if admitted (worst case of the plan) */
  epsilon: number
  epsMax: number
  /** true when epsilon > epsMax: the query would be denied */
  denied: boolean
  /** bound on the false-negative probability of every positive predicate; null for NLM (no guarantee) */
  falseNegativeBound: number | null
  /**
   * True counts in [threshold - width, threshold] may be reported positive; one further below is reported with
   * probability at most beta (`falsePositiveBand`). Null for NLM (no guarantee).
   */
  uncertaintyWidth: number | null
  /** planned steps (multi-step mechanisms; DPPWLM may skip levels and pick points between them, never above the last) */
  plan: PlannedStep[]
  /** min-entropy (normalised by ln k) if every predicate ended at the charge: the worst ex-post case of the plan */
  minEntropyAtCharge: number | null
  /** one-sentence summary */
  summary: string
}

/**
 * Each mechanism's bounds in one statement, data-independent: a predicate whose true count exceeds its threshold is
 * missed with probability at most `missProbability`; one more than `band` below its threshold is flagged with
 * probability at most `missProbability` too (between the two, anything may happen); the charge is `epsilon`.
 */
export interface ThresholdBounds {
  missProbability: number
  band: number
  epsilon: number
}

/**
 * The false-positive band (in the mechanism's units, sensitivity 1):
 * - TSLM: 2 alpha. A count c - 2 alpha - d is flagged when Lap(1/eps) > alpha + d: probability below
 *   exp(-eps alpha) / 2 = beta.
 * - PPWLM: 2 alpha. Step j flags c - B as decided when its noise exceeds B + alpha_j (probability <= beta/m), and the last
 *   step, whose alpha_m = alpha, reports undecided ones above c - alpha (probability <= beta/m at B = 2 alpha).
 * - DPPWLM: 2 ln(m/(2 beta)) / eps_last, where eps_last is the least epsilon its last step can take. The undecided are
 *   reported at the step that consumes the last planned level, whose candidates lie on the fine grid of
 *   (eps_{m-1}, eps_m]: the least is eps_{m-1} + (eps_m - eps_{m-1}) / m_f, with beta share at least beta/m, so its
 *   alpha ln(m/(2 beta r))/eps can reach ln(m/(2 beta))/eps_last, and the band is twice that: about 5.8 alpha at the
 *   paper's defaults (m = 4, m_f = 3, eps_1 = 1e-5), 2 alpha only when m_f = 1.
 * NLM has no guarantee (null).
 */
export function falsePositiveBand(mechanism: ThresholdMechanism, params: ThresholdParams): number | null {
  assertThresholdParams(mechanism, params)
  if (mechanism === 'nlm') return null
  if (mechanism !== 'dppwlm') return 2 * params.alpha
  const plan = geometricPlan(params)
  const m = plan.length
  const lo = plan[m - 2].epsilon
  const hi = plan[m - 1].epsilon
  const epsLast = params.fineSteps === 1 ? hi : lo + (hi - lo) / params.fineSteps
  return (2 * Math.log(m / (2 * params.beta))) / epsLast
}

/** `ThresholdBounds` of a guaranteed mechanism (TSLM, PPWLM, DPPWLM). */
export function thresholdBounds(mechanism: Exclude<ThresholdMechanism, 'nlm'>, params: ThresholdParams): ThresholdBounds {
  return { missProbability: params.beta, band: falsePositiveBand(mechanism, params)!, epsilon: thresholdCharge(mechanism, params).epsilon }
}

export function thresholdEpsilon(mechanism: ThresholdMechanism, params: ThresholdParams): number {
  return thresholdCharge(mechanism, params).epsilon
}

export function describeGuarantee(mechanism: ThresholdMechanism, params: ThresholdParams, k?: number): ThresholdGuarantee {
  const { epsilon, denied } = thresholdCharge(mechanism, params)
  const plan = isMultiStep(mechanism) ? geometricPlan(params) : [{ epsilon, beta: params.beta, alpha: mechanism === 'tslm' ? params.alpha : 0 }]
  const minEntropyAtCharge = k !== undefined && k >= 1 ? minEntropyLevels([{ epsilon, count: k }]).normalized : null
  const guaranteed = mechanism !== 'nlm'
  const band = falsePositiveBand(mechanism, params)
  const e = Number(epsilon.toPrecision(4))
  const summary = denied
    ? `Denied: this accuracy needs epsilon ${e}, above the maximum ${params.epsMax}.`
    : guaranteed
      ? `Costs at most epsilon ${e}; every predicate above its threshold is missed with probability at most ${params.beta}; ` +
        `predicates within ${Number(band!.toPrecision(4))} below their threshold may be reported.`
      : `Costs epsilon ${e}; no bound on missed predicates (baseline).`
  return {
    mechanism,
    epsilon,
    epsMax: params.epsMax,
    denied,
    falseNegativeBound: guaranteed ? params.beta : null,
    uncertaintyWidth: band,
    plan,
    minEntropyAtCharge,
    summary
  }
}
