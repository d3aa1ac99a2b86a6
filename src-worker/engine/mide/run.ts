/** One run of a threshold mechanism: admission (denial), the mechanism, and the sealed privacy metrics. */
import type { Rng } from '../random'
import { runDppwlm } from './data-dependent'
import { minEntropyLevels } from './min-entropy'
import type { MechanismCore, ThresholdRun } from './outcome'
import { type ThresholdMechanism, type ThresholdParams, thresholdCharge } from './params'
import { runPpwlm } from './progressive'
import { runShiftedLaplace } from './single-step'
import { ThresholdWorkspace } from './workspace'

export function checkInputs(counts: ArrayLike<number>, thresholds: ArrayLike<number>): void {
  if (counts.length !== thresholds.length) throw new RangeError('counts and thresholds must have the same length')
  if (counts.length === 0) throw new RangeError('a threshold query needs at least one predicate')
  for (let i = 0; i < counts.length; i++) {
    if (!Number.isFinite(counts[i]) || !Number.isFinite(thresholds[i])) throw new RangeError(`predicate ${i}: counts and thresholds must be finite`)
  }
}

/**
 * Run `mechanism` on true counts with thresholds. Deterministic given `rng`. A denied query draws nothing from `rng`,
 * releases nothing (all decisions 0) and has charge 0. A release service must pass the secure generator and show only
 * `decisions`; `exPost`, `epsStar`, `minEntropy` and `steps` are data-dependent and sealed for the privacy officer.
 */
export function runThresholdMechanism(
  mechanism: ThresholdMechanism,
  counts: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  params: ThresholdParams,
  rng: Rng
): ThresholdRun {
  checkInputs(counts, thresholds)
  const { epsilon, denied } = thresholdCharge(mechanism, params)
  const k = counts.length
  if (denied) {
    return {
      mechanism,
      denied: true,
      charge: 0,
      planEpsilon: epsilon,
      decisions: new Uint8Array(k),
      positives: [],
      exPost: new Float64Array(k),
      epsStar: 0,
      minEntropy: null,
      steps: []
    }
  }
  const core = runMechanismCore(mechanism, counts, thresholds, params, epsilon, rng, new ThresholdWorkspace(k))
  const positives: number[] = []
  let epsStar = 0
  for (let i = 0; i < k; i++) {
    if (core.decisions[i]) positives.push(i)
    if (core.exPost[i] > epsStar) epsStar = core.exPost[i]
  }
  // The ex-post levels come from the mechanism (the eps of each step and how many it decided): the same values and
  // counts as grouping exPost, without a pass over it.
  const me = minEntropyLevels(core.levels)
  return {
    mechanism,
    denied: false,
    charge: epsilon,
    planEpsilon: epsilon,
    decisions: core.decisions,
    positives,
    exPost: core.exPost,
    epsStar,
    minEntropy: { gamma: me.gamma, normalized: me.normalized, exact: me.exact },
    steps: core.steps
  }
}

/**
 * The mechanism alone, for an admitted query (`epsilon` = its charge): decisions, ex-post costs, steps and levels, in
 * `ws` (valid until the next run on it). Inputs and parameters are checked by the caller; a Monte Carlo batch checks them
 * once and reuses one workspace for all its trials.
 */
export function runMechanismCore(
  mechanism: ThresholdMechanism,
  counts: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  params: ThresholdParams,
  epsilon: number,
  rng: Rng,
  ws: ThresholdWorkspace
): MechanismCore {
  switch (mechanism) {
    case 'nlm':
      return runShiftedLaplace(counts, thresholds, epsilon, 0, params.beta, rng, ws)
    case 'tslm':
      return runShiftedLaplace(counts, thresholds, epsilon, params.alpha, params.beta, rng, ws)
    case 'ppwlm':
      return runPpwlm(counts, thresholds, params, rng, ws)
    case 'dppwlm':
      return runDppwlm(counts, thresholds, params, rng, ws)
  }
}
