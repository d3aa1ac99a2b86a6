/** What one run of a threshold mechanism produces. */
import type { EpsLevel } from './min-entropy'
import type { ThresholdMechanism } from './params'

/** One executed step of a mechanism (single-step mechanisms have one). Data-dependent: sealed, like the ex-post costs. */
export interface StepRecord {
  epsilon: number
  /** false-negative budget used by this step */
  beta: number
  /** half-width of the undecided band (multi-step) or the threshold shift (TSLM); 0 for NLM */
  alpha: number
  /** predicates tested at this step */
  tested: number
  decidedPositive: number
  eliminated: number
  /** still undecided after this step */
  undecided: number
}

/** The mechanism-specific part of a run: decisions and the per-predicate eps actually spent. */
export interface MechanismCore {
  /** 1 = predicate in the output (reported positive) */
  decisions: Uint8Array
  /** ex-post predicate-wise cost: the eps at which each predicate was decided (relaxed noise: the last eps counts) */
  exPost: Float64Array
  steps: StepRecord[]
  /** the distinct values of exPost with their counts (what the min-entropy needs), in the order the steps spent them */
  levels: EpsLevel[]
}

export interface ThresholdRun {
  mechanism: ThresholdMechanism
  /** True when the needed eps exceeds eps_max: nothing was released, nothing spent, no noise drawn. */
  denied: boolean
  /** The data-independent charge: the worst-case eps of the plan; 0 when denied. This is what a ledger records. */
  charge: number
  /** The worst-case eps of the plan, also when denied (so the UI can say why). */
  planEpsilon: number
  /** 1 = predicate reported positive (all 0 when denied). This, and only this, is the release. */
  decisions: Uint8Array
  /** indices of the reported predicates */
  positives: number[]
  // ---- everything below is data-dependent and SEALED: never shown to the analyst of a release ----
  /** ex-post predicate-wise eps (all 0 when denied) */
  exPost: Float64Array
  /** max of exPost */
  epsStar: number
  /** min-entropy of the ex-post vector (null when denied) */
  minEntropy: { gamma: number; normalized: number; exact: boolean } | null
  steps: StepRecord[]
}
