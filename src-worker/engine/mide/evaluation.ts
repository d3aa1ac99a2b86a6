/**
 * Monte Carlo evaluation of a threshold mechanism against the ground truth (simulation only: uses true counts).
 *
 * Batchable: `runThresholdTrials(..., seed, firstTrial, count)` runs trials [firstTrial, firstTrial + count), trial t with
 * its own generator seededRng(deriveSeed(seed, t)), so results do not depend on how trials are split into batches.
 * Inputs and parameters are checked once per batch, and all trials run on one workspace (workspace.ts).
 *
 * Per trial (not denied): positives P = #{g_i > c_i}, negatives N = k - P,
 *   FNR = false negatives / P (null when P = 0), FPR = false positives / N (null when N = 0),
 *   eps* = max ex-post eps, min-entropy of the ex-post vector (nats and / ln k).
 * Aggregation: means over the trials that were not denied and where the metric is defined (null when none);
 * denied trials are counted in `denied` and contribute to no mean (they release nothing and spend nothing).
 */
import { deriveSeed, seededRng } from '../random'
import { minEntropyLevels } from './min-entropy'
import { type ThresholdMechanism, type ThresholdParams, thresholdCharge } from './params'
import { checkInputs, runMechanismCore } from './run'
import { ThresholdWorkspace } from './workspace'

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

export interface ThresholdTrialOptions {
  /** false: leave the min-entropy metrics null (to time the mechanism alone; default true) */
  minEntropy?: boolean
  /**
   * The workspace to run the trials on (its size must be the workload's): a caller that runs one cell's trials in
   * several calls passes the same one, so that DPPWLM's remembered candidate scores (workspace.ts) carry over. The
   * scores are deterministic in their input, so results are the same bits with a fresh workspace or a used one, as long
   * as it was only used for this cell (same workload and parameters).
   */
  workspace?: ThresholdWorkspace
}

export function runThresholdTrials(
  mechanism: ThresholdMechanism,
  workload: WorkloadArrays,
  params: ThresholdParams,
  seed: string | number,
  firstTrial: number,
  count: number,
  options: ThresholdTrialOptions = {}
): ThresholdTrialMetrics[] {
  const { counts, thresholds } = workload
  checkInputs(counts, thresholds)
  const { epsilon, denied } = thresholdCharge(mechanism, params)
  const withMinEntropy = options.minEntropy ?? true
  const k = counts.length
  // the truth four predicates a word, laid out like the workspace's decisionWords (zero padding)
  const truthWords = new Uint32Array(Math.ceil(k / 4))
  const truth = new Uint8Array(truthWords.buffer, 0, k)
  let positives = 0
  for (let i = 0; i < k; i++) positives += truth[i] = counts[i] > thresholds[i] ? 1 : 0
  const negatives = k - positives
  const out: ThresholdTrialMetrics[] = []
  // One workspace for every trial: a trial allocates no per-predicate arrays.
  const given = options.workspace
  if (given !== undefined && given.k !== k) throw new RangeError(`the workspace is for ${given.k} predicates, the workload has ${k}`)
  const ws = denied ? null : (given ?? new ThresholdWorkspace(k))
  for (let t = firstTrial; t < firstTrial + count; t++) {
    if (ws === null) {
      // Denied: no noise is drawn (nor a generator made), nothing is released.
      out.push({
        trial: t,
        denied: true,
        positives,
        negatives,
        falseNegatives: 0,
        falsePositives: 0,
        fnr: null,
        fpr: null,
        epsStar: null,
        minEntropyNats: null,
        minEntropy: null,
        steps: 0
      })
      continue
    }
    const core = runMechanismCore(mechanism, counts, thresholds, params, epsilon, seededRng(deriveSeed(seed, t)), ws)
    // Errors four predicates at a time: each byte is 0 or 1, so a word's byte sum is its count (the top byte of x 0x01010101).
    if (core.decisions !== ws.decisions) throw new Error('a mechanism returned decisions outside its workspace')
    const decided = ws.decisionWords
    let fn = 0
    let fp = 0
    for (let q = 0; q < truthWords.length; q++) {
      const t = truthWords[q]
      const d = decided[q]
      fn += Math.imul(t & ~d, 0x01010101) >>> 24
      fp += Math.imul(d & ~t, 0x01010101) >>> 24
    }
    // eps* = the largest level (every level holds at least one predicate)
    let epsStar = 0
    for (const l of core.levels) if (l.epsilon > epsStar) epsStar = l.epsilon
    const me = withMinEntropy ? minEntropyLevels(core.levels) : null
    out.push({
      trial: t,
      denied: false,
      positives,
      negatives,
      falseNegatives: fn,
      falsePositives: fp,
      fnr: positives > 0 ? fn / positives : null,
      fpr: negatives > 0 ? fp / negatives : null,
      epsStar,
      minEntropyNats: me === null ? null : me.gamma,
      minEntropy: me === null ? null : me.normalized,
      steps: core.steps.length
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
