/**
 * Decision-support threshold queries (MIDE paper; ALGORITHMS.md section 1): the public API of the engine.
 *
 * Before running (data-independent, safe to show): `thresholdEpsilon`, `describeGuarantee`, `checkThresholdParams`.
 * Running: `runThresholdMechanism(mechanism, counts, thresholds, params, rng)`; a release passes the secure generator
 * (`runThresholdRelease` checks it) and shows only the decisions; ex-post costs and min-entropy are sealed.
 * Simulation: `runThresholdTrials` (batchable) + `aggregateThresholdTrials`.
 * Metrics: `minEntropy`, `minEntropyLevels`, `posteriorBounds`. Samplers: `relaxNoise`.
 */
import { type SecureRandom, assertSecure } from '../random'
import type { ThresholdRun } from './outcome'
import type { ThresholdMechanism, ThresholdParams } from './params'
import { runThresholdMechanism } from './run'

export {
  THRESHOLD_MECHANISMS,
  PAPER_DEFAULTS,
  type ThresholdMechanism,
  type ThresholdParams,
  type PlannedStep,
  type ThresholdCharge,
  checkThresholdParams,
  thresholdCharge,
  singleStepEpsilon,
  finalStepEpsilon,
  geometricPlan,
  isMultiStep
} from './params'
export { thresholdEpsilon, describeGuarantee, falsePositiveBand, thresholdBounds, type ThresholdBounds, type ThresholdGuarantee } from './guarantee'
export { runThresholdMechanism } from './run'
export type { ThresholdRun, StepRecord } from './outcome'
export {
  minEntropy,
  minEntropyLevels,
  posteriorBounds,
  groupLevels,
  type EpsLevel,
  type MinEntropyResult,
  type MinEntropyOptions
} from './min-entropy'
export { relaxNoise } from './relax'
export { laplaceSumTail, laplaceSumCdf, laplaceSumInterval } from './laplace-sum'
export { chooseNextStep } from './data-dependent'
export { predictUndecided, StayPredictor } from './predicted-stay'
export { parseWorkload, WorkloadError, type Workload } from './workload'
export { ThresholdWorkspace } from './workspace'
export { runThresholdTrials, aggregateThresholdTrials, type ThresholdTrialMetrics, type ThresholdSummary, type WorkloadArrays } from './evaluation'

/** What a release may show: the decisions (and the data-independent charge). The sealed part goes to the officer. */
export interface ThresholdRelease {
  denied: boolean
  charge: number
  /** indices of the predicates reported positive */
  positives: number[]
  /** data-dependent; store sealed, never show to the analyst */
  sealed: Pick<ThresholdRun, 'exPost' | 'epsStar' | 'minEntropy' | 'steps'>
}

/** A release: requires the secure generator (throws for a seeded one, before any noise is drawn). */
export function runThresholdRelease(
  mechanism: ThresholdMechanism,
  counts: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  params: ThresholdParams,
  rng: SecureRandom
): ThresholdRelease {
  assertSecure(rng)
  const run = runThresholdMechanism(mechanism, counts, thresholds, params, rng)
  return {
    denied: run.denied,
    charge: run.charge,
    positives: run.positives,
    sealed: { exPost: run.exPost, epsStar: run.epsStar, minEntropy: run.minEntropy, steps: run.steps }
  }
}
