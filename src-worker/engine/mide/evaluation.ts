/**
 * Monte Carlo evaluation of a threshold mechanism against the ground truth (simulation only: uses true counts).
 *
 * Batchable: `runThresholdTrials(..., seed, firstTrial, count)` runs trials [firstTrial, firstTrial + count), trial t with
 * its own generator seededRng(deriveSeed(seed, t)), so results do not depend on how trials are split into batches.
 *
 * Per trial (not denied): positives P = #{g_i > c_i}, negatives N = k - P,
 *   FNR = false negatives / P (null when P = 0), FPR = false positives / N (null when N = 0),
 *   eps* = max ex-post eps, min-entropy of the ex-post vector (nats and / ln k).
 * Aggregation: means over the trials that were not denied and where the metric is defined (null when none);
 * denied trials are counted in `denied` and contribute to no mean (they release nothing and spend nothing).
 */
import { deriveSeed, seededRng } from '../random'
import type { ThresholdMechanism, ThresholdParams } from './params'
import { runThresholdMechanism } from './run'

export interface ThresholdTrialMetrics {
  trial: number
  denied: boolean
  positives: number
  negatives: number
  falseNegatives: number
  falsePositives: number
  fnr: number | null
  fpr: number | null
  epsStar: number | null
  minEntropyNats: number | null
  minEntropy: number | null
  /** steps executed */
  steps: number
}

export interface ThresholdSummary {
  trials: number
  denied: number
  fnr: number | null
  fpr: number | null
  epsilonExPost: number | null
  minEntropy: number | null
  minEntropyNats: number | null
  meanSteps: number | null
}

export interface WorkloadArrays {
  counts: ArrayLike<number>
  thresholds: ArrayLike<number>
}

export function runThresholdTrials(
  mechanism: ThresholdMechanism,
  workload: WorkloadArrays,
  params: ThresholdParams,
  seed: string | number,
  firstTrial: number,
  count: number
): ThresholdTrialMetrics[] {
  const { counts, thresholds } = workload
  const k = counts.length
  let positives = 0
  for (let i = 0; i < k; i++) if (counts[i] > thresholds[i]) positives++
  const negatives = k - positives
  const out: ThresholdTrialMetrics[] = []
  for (let t = firstTrial; t < firstTrial + count; t++) {
    const run = runThresholdMechanism(mechanism, counts, thresholds, params, seededRng(deriveSeed(seed, t)))
    if (run.denied) {
      out.push({ trial: t, denied: true, positives, negatives, falseNegatives: 0, falsePositives: 0, fnr: null, fpr: null, epsStar: null, minEntropyNats: null, minEntropy: null, steps: 0 })
      continue
    }
    let fn = 0
    let fp = 0
    for (let i = 0; i < k; i++) {
      const truth = counts[i] > thresholds[i]
      if (truth && !run.decisions[i]) fn++
      else if (!truth && run.decisions[i]) fp++
    }
    out.push({
      trial: t,
      denied: false,
      positives,
      negatives,
      falseNegatives: fn,
      falsePositives: fp,
      fnr: positives > 0 ? fn / positives : null,
      fpr: negatives > 0 ? fp / negatives : null,
      epsStar: run.epsStar,
      minEntropyNats: run.minEntropy!.gamma,
      minEntropy: run.minEntropy!.normalized,
      steps: run.steps.length
    })
  }
  return out
}

function mean(xs: Array<number | null>): number | null {
  let s = 0
  let n = 0
  for (const x of xs) {
    if (x === null) continue
    s += x
    n++
  }
  return n > 0 ? s / n : null
}

export function aggregateThresholdTrials(metrics: readonly ThresholdTrialMetrics[]): ThresholdSummary {
  const live = metrics.filter((m) => !m.denied)
  return {
    trials: metrics.length,
    denied: metrics.length - live.length,
    fnr: mean(live.map((m) => m.fnr)),
    fpr: mean(live.map((m) => m.fpr)),
    epsilonExPost: mean(live.map((m) => m.epsStar)),
    minEntropy: mean(live.map((m) => m.minEntropy)),
    minEntropyNats: mean(live.map((m) => m.minEntropyNats)),
    meanSteps: mean(live.map((m) => m.steps))
  }
}
