/**
 * Threshold engine adapter: the MIDE mechanisms NLM, TSLM, PPWLM, DPPWLM (ALGORITHMS.md section 1) on a workload of
 * predicates with true counts and thresholds (a CSV `predicate,count,threshold`, or a saved threshold query).
 * Parameter names follow the paper: alpha, beta, eps_max, eps_1, m, m_f.
 */
import {
  PAPER_DEFAULTS,
  THRESHOLD_MECHANISMS,
  type ThresholdMechanism,
  type ThresholdParams,
  WorkloadError,
  finalStepEpsilon,
  parseWorkload
} from '../../../../src-worker/engine/mide'
import type { ThresholdTrialBatch } from '../../../../src-worker/tasks/mide-tasks'
import type { WorkloadRef } from '../../../contract/experiments'
import { evaluateThresholdQuery } from '../../datasets'
import { isPublicDataset } from '../../trust/public-flag'
import { getQuery } from '../../datasets/query-store'
import { UserError } from '../../platform/errors'
import { contentHash, defaultLabel, readText } from '../workload-files'
import { THRESHOLD_WARM_UP, thresholdTrialCost } from './threshold-cost'
import { type BatchCell, type EngineAdapter, type LoadedWorkload, type ParamDef, num, positive, wholeAtLeast } from './types'

export interface ThresholdWorkload {
  counts: Float64Array
  thresholds: Float64Array
  /** Sensitivity the counts were divided by (alpha is divided by it too). */
  scale: number
}

/** The engine's parameters of a cell (alpha in the workload's units). */
function cellParams(cell: BatchCell, w: LoadedWorkload<ThresholdWorkload>): ThresholdParams {
  const p = cell.params
  return {
    alpha: num(p, 'alpha') / w.data.scale,
    beta: num(p, 'beta'),
    epsMax: num(p, 'eps_max'),
    eps1: num(p, 'eps_1'),
    steps: num(p, 'm'),
    fineSteps: num(p, 'm_f')
  }
}

const betaDef: ParamDef = {
  name: 'beta',
  default: PAPER_DEFAULTS.beta,
  describe: 'a number in (0, 0.5)',
  valid: (v) => typeof v === 'number' && v > 0 && v < 0.5
}

export const thresholdAdapter: EngineAdapter<ThresholdWorkload> = {
  engine: 'threshold',
  title: 'threshold queries (MIDE mechanisms)',
  mechanisms: THRESHOLD_MECHANISMS,
  params: [
    positive('alpha', PAPER_DEFAULTS.alpha),
    betaDef,
    positive('eps_max', PAPER_DEFAULTS.epsMax),
    positive('eps_1', PAPER_DEFAULTS.eps1),
    wholeAtLeast('m', 2, PAPER_DEFAULTS.steps),
    wholeAtLeast('m_f', 1, PAPER_DEFAULTS.fineSteps)
  ],
  metrics: [
    { name: 'fnr', description: 'false-negative rate: missed positives / positives', kind: 'rate', binary: false },
    { name: 'fpr', description: 'false-positive rate: flagged negatives / negatives', kind: 'rate', binary: false },
    { name: 'epsilonExPost', description: 'ex-post eps* = max over predicates of the eps spent', kind: 'value', binary: false },
    { name: 'minEntropy', description: 'min-entropy gamma normalised by ln k', kind: 'value', binary: false },
    { name: 'minEntropyNats', description: 'min-entropy gamma in nats', kind: 'value', binary: false },
    { name: 'denied', description: 'share of runs denied (eps needed > eps_max); denied runs count in no other metric', kind: 'rate', binary: true },
    { name: 'steps', description: 'steps executed (1 for NLM/TSLM)', kind: 'value', binary: false }
  ],
  workloadKinds: ['csv', 'saved-query'],
  taskKind: 'experiments/threshold',
  // Whole cells (of the presets' 100 trials) per batch: a worker remembers DPPWLM's candidate scores per cell
  // (mide-tasks.ts), so a cell split over batches and workers scores the same candidates again.
  trialsPerBatch: 100,
  relevantParams(mechanism) {
    if (mechanism === 'ppwlm') return ['alpha', 'beta', 'eps_max', 'eps_1', 'm']
    if (mechanism === 'dppwlm') return ['alpha', 'beta', 'eps_max', 'eps_1', 'm', 'm_f']
    return ['alpha', 'beta', 'eps_max']
  },
  checkCell(mechanism, p, workload) {
    if (mechanism === 'ppwlm' || mechanism === 'dppwlm') {
      const epsM = finalStepEpsilon(num(p, 'alpha') / workload.data.scale, num(p, 'beta'), num(p, 'm'))
      if (!(num(p, 'eps_1') < epsM)) {
        return `eps_1 = ${p.eps_1} is not below the final step's epsilon ln(m/(2 beta))/alpha = ${epsM.toPrecision(4)} (alpha ${p.alpha}, beta ${p.beta}, m ${p.m}); lower eps_1.`
      }
    }
    return null
  },
  async loadWorkload(ref: WorkloadRef, ctx): Promise<LoadedWorkload<ThresholdWorkload>> {
    if (ref.kind === 'saved-query') {
      // Ground truth of a saved query (simulation only). Counts with sensitivity s are run in units of s.
      // A simulation reports error rates and positives against the true counts, uncharged: only public data may be used.
      const q = getQuery(ctx.store.db, ref.queryId)
      if (!isPublicDataset(ctx.store.db, q.datasetId)) {
        throw new UserError(
          `Saved query ${ref.queryId} counts a private dataset: a simulation reports results against its true counts without charging the ledger, so only queries on public datasets can be swept. Release it instead, or sweep a workload file.`
        )
      }
      const ev = evaluateThresholdQuery(ctx.store, ref.queryId)
      if (ev.predicates.length === 0) throw new UserError(`Saved query ${ref.queryId} has no predicates; check its groups and thresholds.`)
      const s = ev.sensitivity > 0 ? ev.sensitivity : 1
      const counts = Float64Array.from(ev.predicates, (p) => p.count / s)
      const thresholds = Float64Array.from(ev.predicates, (p) => p.threshold / s)
      let positives = 0
      for (let i = 0; i < counts.length; i++) if (counts[i] > thresholds[i]) positives++
      return {
        info: {
          label: ref.label ?? `query-${ref.queryId}`,
          source: `saved query ${ref.queryId} (dataset ${ev.datasetId})`,
          hash: contentHash(counts, thresholds, String(s)),
          facts: { predicates: counts.length, positives, negatives: counts.length - positives, sensitivity: s }
        },
        data: { counts, thresholds, scale: s }
      }
    }
    if (ref.kind !== 'csv') throw new UserError(`The threshold engine takes "csv" or "saved-query" workloads (got "${ref.kind}").`)
    const { text } = readText(ref.path, ctx.cwd, 'workload file')
    let parsed
    try {
      parsed = parseWorkload(text)
    } catch (e) {
      if (e instanceof WorkloadError) throw new UserError(`The workload file ${ref.path} cannot be used: ${e.message}.`)
      throw e
    }
    const { counts, thresholds } = parsed
    let positives = 0
    for (let i = 0; i < counts.length; i++) if (counts[i] > thresholds[i]) positives++
    return {
      info: {
        label: ref.label ?? defaultLabel(ref.path),
        source: ref.path,
        hash: contentHash(counts, thresholds),
        facts: { predicates: counts.length, positives, negatives: counts.length - positives }
      },
      data: { counts, thresholds, scale: 1 }
    }
  },
  trialCost: (cell, w) => thresholdTrialCost(cell.mechanism as ThresholdMechanism, cellParams(cell, w), w.data),
  warmUpCost: (mechanism) => THRESHOLD_WARM_UP[mechanism as ThresholdMechanism] ?? 0,
  batchPayload(cell, w, firstTrial, count, crash): ThresholdTrialBatch {
    return {
      cellSeed: cell.seed,
      firstTrial,
      count,
      counts: w.data.counts,
      thresholds: w.data.thresholds,
      mechanism: cell.mechanism as ThresholdMechanism,
      ...cellParams(cell, w),
      crash
    }
  }
}
