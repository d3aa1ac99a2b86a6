/** Plain, data-independent numbers a UI can show before a threshold query runs. */
import { minEntropyLevels } from './min-entropy'
import { type PlannedStep, type ThresholdMechanism, type ThresholdParams, geometricPlan, isMultiStep, thresholdCharge } from './params'

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
   * True counts in [threshold - width, threshold] may be reported positive (false positives allowed). Null for NLM (no
   * guarantee) and for DPPWLM: when it stops between planned levels its last band ln(m/(2 beta r))/eps_j can be wider
   * than alpha, so the paper's 2 alpha region is not guaranteed there.
   */
  uncertaintyWidth: number | null
  /** planned steps (multi-step mechanisms; DPPWLM may skip levels and pick points between them, never above the last) */
  plan: PlannedStep[]
  /** min-entropy (normalised by ln k) if every predicate ended at the charge: the worst ex-post case of the plan */
  minEntropyAtCharge: number | null
  /** one-sentence summary */
  summary: string
}

export function thresholdEpsilon(mechanism: ThresholdMechanism, params: ThresholdParams): number {
  return thresholdCharge(mechanism, params).epsilon
}

export function describeGuarantee(mechanism: ThresholdMechanism, params: ThresholdParams, k?: number): ThresholdGuarantee {
  const { epsilon, denied } = thresholdCharge(mechanism, params)
  const plan = isMultiStep(mechanism) ? geometricPlan(params) : [{ epsilon, beta: params.beta, alpha: mechanism === 'tslm' ? params.alpha : 0 }]
  const minEntropyAtCharge = k !== undefined && k >= 1 ? minEntropyLevels([{ epsilon, count: k }]).normalized : null
  const guaranteed = mechanism !== 'nlm'
  const e = Number(epsilon.toPrecision(4))
  const summary = denied
    ? `Denied: this accuracy needs epsilon ${e}, above the maximum ${params.epsMax}.`
    : guaranteed
      ? `Costs at most epsilon ${e}; every predicate above its threshold is missed with probability at most ${params.beta}; ` +
        (mechanism === 'dppwlm'
          ? 'predicates somewhat below their threshold may be reported.'
          : `predicates within ${2 * params.alpha} below their threshold may be reported.`)
      : `Costs epsilon ${e}; no bound on missed predicates (baseline).`
  return {
    mechanism,
    epsilon,
    epsMax: params.epsMax,
    denied,
    falseNegativeBound: guaranteed ? params.beta : null,
    uncertaintyWidth: guaranteed && mechanism !== 'dppwlm' ? 2 * params.alpha : null,
    plan,
    minEntropyAtCharge,
    summary
  }
}
