/**
 * Parameters of the threshold mechanisms (MIDE paper, ALGORITHMS.md section 1) and the data-independent formulas:
 * the epsilon each mechanism needs, the planned geometric schedule of the multi-step ones, and the denial rule.
 */

export const THRESHOLD_MECHANISMS = ['nlm', 'tslm', 'ppwlm', 'dppwlm'] as const
export type ThresholdMechanism = (typeof THRESHOLD_MECHANISMS)[number]

export interface ThresholdParams {
  /** Width parameter: false positives are allowed for true counts in [c - 2 alpha, c]. */
  alpha: number
  /** Bound on the false-negative probability of every positive predicate, in (0, 0.5). */
  beta: number
  /** Largest epsilon the query may be charged; a mechanism needing more is denied. */
  epsMax: number
  /** First (smallest) epsilon of the multi-step mechanisms. */
  eps1: number
  /** Number of planned steps m of the multi-step mechanisms (>= 2). */
  steps: number
  /** DPPWLM: fine grid points per interval between planned levels (m_f >= 1). */
  fineSteps: number
}

/** The paper's defaults (section 6.1). */
export const PAPER_DEFAULTS: Readonly<ThresholdParams> = Object.freeze({
  alpha: 1,
  beta: 0.05,
  epsMax: 4,
  eps1: 1e-5,
  steps: 4,
  fineSteps: 3
})

export function isMultiStep(mechanism: ThresholdMechanism): boolean {
  return mechanism === 'ppwlm' || mechanism === 'dppwlm'
}

/** Epsilon of NLM and TSLM (Alg. 1): the smallest eps with P(Lap(1/eps) <= -alpha) = beta, i.e. ln(1/(2 beta)) / alpha. */
export function singleStepEpsilon(alpha: number, beta: number): number {
  return Math.log(1 / (2 * beta)) / alpha
}

/** Final planned epsilon of PPWLM / DPPWLM: ln(m / (2 beta)) / alpha (each of the m steps gets beta / m). */
export function finalStepEpsilon(alpha: number, beta: number, steps: number): number {
  return Math.log(steps / (2 * beta)) / alpha
}

/**
 * One sentence saying what is wrong with the parameters, or null when they are usable.
 * Messages contain parameters only (never data).
 */
export function checkThresholdParams(mechanism: ThresholdMechanism, p: ThresholdParams): string | null {
  const finitePos = (x: number) => Number.isFinite(x) && x > 0
  if (!(THRESHOLD_MECHANISMS as readonly string[]).includes(mechanism)) return `unknown mechanism "${mechanism}"`
  if (!finitePos(p.alpha)) return `alpha must be a finite number > 0 (got ${p.alpha})`
  if (!(Number.isFinite(p.beta) && p.beta > 0 && p.beta < 0.5)) return `beta must be in (0, 0.5) (got ${p.beta})`
  if (!finitePos(p.epsMax)) return `eps-max must be a finite number > 0 (got ${p.epsMax})`
  if (isMultiStep(mechanism)) {
    if (!finitePos(p.eps1)) return `eps1 must be a finite number > 0 (got ${p.eps1})`
    if (!(Number.isInteger(p.steps) && p.steps >= 2)) return `steps must be a whole number >= 2 for ${mechanism} (got ${p.steps})`
    if (mechanism === 'dppwlm' && !(Number.isInteger(p.fineSteps) && p.fineSteps >= 1))
      return `fine-steps must be a whole number >= 1 (got ${p.fineSteps})`
    const epsM = finalStepEpsilon(p.alpha, p.beta, p.steps)
    if (!(p.eps1 < epsM)) return `eps1 must be smaller than the final step's epsilon ln(m/(2 beta))/alpha = ${epsM.toPrecision(4)} (got ${p.eps1})`
  }
  return null
}

export function assertThresholdParams(mechanism: ThresholdMechanism, p: ThresholdParams): void {
  const msg = checkThresholdParams(mechanism, p)
  if (msg !== null) throw new RangeError(msg)
}

/** One planned step of a multi-step mechanism. */
export interface PlannedStep {
  epsilon: number
  /** Share of the false-negative budget this step may use. */
  beta: number
  /** Half-width of the undecided band: ln(1/(2 beta_j)) / eps_j. */
  alpha: number
}

/**
 * The geometric plan eps_j = eps_1 w^(j-1), w = (eps_m/eps_1)^(1/(m-1)), each step with beta/m (Alg. 2, lines 2-3).
 * The last level is set to eps_m exactly (no rounding drift).
 */
export function geometricPlan(p: ThresholdParams): PlannedStep[] {
  const m = p.steps
  const epsM = finalStepEpsilon(p.alpha, p.beta, m)
  const w = Math.pow(epsM / p.eps1, 1 / (m - 1))
  const betaStep = p.beta / m
  const plan: PlannedStep[] = []
  for (let j = 0; j < m; j++) {
    const eps = j === 0 ? p.eps1 : j === m - 1 ? epsM : p.eps1 * Math.pow(w, j)
    plan.push({ epsilon: eps, beta: betaStep, alpha: Math.log(1 / (2 * betaStep)) / eps })
  }
  return plan
}

/** The data-independent charge of a mechanism: the worst-case eps of its plan, and whether it exceeds eps_max (denial). */
export interface ThresholdCharge {
  /** The eps the plan may spend at most (what a ledger charges when the query is admitted). */
  epsilon: number
  /** True when epsilon > epsMax: the query is denied, nothing is released and nothing is spent. */
  denied: boolean
}

export function thresholdCharge(mechanism: ThresholdMechanism, p: ThresholdParams): ThresholdCharge {
  assertThresholdParams(mechanism, p)
  const epsilon = isMultiStep(mechanism) ? finalStepEpsilon(p.alpha, p.beta, p.steps) : singleStepEpsilon(p.alpha, p.beta)
  return { epsilon, denied: epsilon > p.epsMax }
}
