import { readFileSync, statSync } from 'node:fs'
import { resolveDataPath } from '../../services/local'
import { type CliCommand, UsageError, choice, fmt, optNumber, optString, reqNumber, reqString } from '../command'
import { SecureRandom } from '../../../src-worker/engine/random'
import {
  PAPER_DEFAULTS,
  THRESHOLD_MECHANISMS,
  type ThresholdParams,
  type ThresholdTrialMetrics,
  WorkloadError,
  aggregateThresholdTrials,
  checkThresholdParams,
  isMultiStep,
  parseWorkload,
  runThresholdTrials,
  thresholdCharge
} from '../../../src-worker/engine/mide/index'

/** A fresh seed for a simulation run without --seed (reported so the run can be repeated). */
export function freshSeed(): string {
  return String(Math.floor(SecureRandom.create().next() * 2 ** 53))
}

function readWorkloadText(path: string, cwd: string): string {
  const abs = resolveDataPath(path, cwd)
  let text: string
  try {
    if (!statSync(abs).isFile()) throw new UsageError(`workload ${path} is not a file`)
    text = readFileSync(abs, 'utf8')
  } catch (e) {
    if (e instanceof UsageError) throw e
    const code = (e as NodeJS.ErrnoException).code
    throw new UsageError(`cannot read workload ${path}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message.split('\n')[0]}`)
  }
  if (text.replace(/^\uFEFF/, '').trim() === '') throw new UsageError(`workload ${path} is empty`)
  return text
}

const BATCH = 10

export const thresholdCommand: CliCommand = {
  name: 'threshold',
  required: () => ['workload', 'mechanism', 'alpha', 'beta'],
  summary: 'Monte Carlo evaluation of a threshold-query mechanism on a workload CSV',
  usage:
    'threshold --workload FILE.csv --mechanism nlm|tslm|ppwlm|dppwlm --alpha A --beta B [--eps-max 4] [--eps1 1e-5] [--steps 4] [--fine-steps 3] [--trials 100] [--seed S]',
  options: {
    workload: {
      type: 'string',
      description: 'CSV with columns predicate,count,threshold (true counts: simulation only); bundled:workloads/taxi-jan2015-L.csv is shipped'
    },
    mechanism: { type: 'string', description: 'nlm | tslm | ppwlm | dppwlm' },
    alpha: { type: 'string', description: 'width parameter (> 0): false positives allowed in [c - 2 alpha, c]' },
    beta: { type: 'string', description: 'false-negative bound per positive predicate, in (0, 0.5)' },
    'eps-max': { type: 'string', description: 'deny the query if it needs more epsilon than this', defaultText: '4' },
    eps1: { type: 'string', description: 'first epsilon of the multi-step mechanisms', defaultText: '1e-5' },
    steps: { type: 'string', description: 'planned steps m of the multi-step mechanisms (>= 2)', defaultText: '4' },
    'fine-steps': { type: 'string', description: 'DPPWLM grid points per planned interval (>= 1)', defaultText: '3' },
    trials: { type: 'string', description: 'Monte Carlo trials (>= 1)', defaultText: '100' },
    seed: { type: 'string', description: 'seed of the simulation (default: a fresh one, reported)' }
  },
  async run(values, _positionals, ctx) {
    const workloadPath = reqString(values, 'workload')
    const mechanism = choice('mechanism', reqString(values, 'mechanism'), THRESHOLD_MECHANISMS)
    const alpha = reqNumber(values, 'alpha', { gt: 0 })
    const beta = reqNumber(values, 'beta', { gt: 0, lt: 0.5 })
    const epsMax = optNumber(values, 'eps-max', PAPER_DEFAULTS.epsMax, { gt: 0 })
    const eps1 = optNumber(values, 'eps1', PAPER_DEFAULTS.eps1, { gt: 0 })
    const steps = optNumber(values, 'steps', PAPER_DEFAULTS.steps, { integer: true })
    if (isMultiStep(mechanism) && steps < 2) throw new UsageError(`--steps must be a whole number >= 2 for ${mechanism} (got "${steps}")`)
    const fineSteps = optNumber(values, 'fine-steps', PAPER_DEFAULTS.fineSteps, { integer: true, ge: 1 })
    const trials = optNumber(values, 'trials', 100, { integer: true, ge: 1 })
    const seedOpt = optString(values, 'seed')
    if (seedOpt !== undefined && seedOpt.trim() === '') throw new UsageError('--seed must not be empty')
    const params: ThresholdParams = { alpha, beta, epsMax, eps1, steps, fineSteps }
    const problem = checkThresholdParams(mechanism, params)
    if (problem !== null) throw new UsageError(problem.replace(/^(eps1|steps|fine-steps|eps-max|alpha|beta)\b/, '--$1'))

    let workload
    try {
      workload = parseWorkload(readWorkloadText(workloadPath, ctx.cwd))
    } catch (e) {
      if (e instanceof WorkloadError) throw new UsageError(`workload ${workloadPath}: ${e.message}`)
      throw e
    }
    const seed = seedOpt ?? freshSeed()
    const k = workload.counts.length
    let positives = 0
    for (let i = 0; i < k; i++) if (workload.counts[i] > workload.thresholds[i]) positives++

    const metrics: ThresholdTrialMetrics[] = []
    for (let first = 0; first < trials; first += BATCH) {
      metrics.push(...runThresholdTrials(mechanism, workload, params, seed, first, Math.min(BATCH, trials - first)))
      if (trials > BATCH) ctx.progress(`threshold: ${metrics.length}/${trials} trials`)
    }
    const s = aggregateThresholdTrials(metrics)
    const charge = thresholdCharge(mechanism, params)
    const json = {
      mechanism,
      trials,
      predicates: k,
      positives,
      negatives: k - positives,
      fnr: s.fnr,
      fpr: s.fpr,
      epsilonExPost: s.epsilonExPost,
      minEntropy: s.minEntropy,
      minEntropyNats: s.minEntropyNats,
      denied: s.denied,
      epsilonCharge: charge.epsilon,
      meanSteps: s.meanSteps,
      params,
      seed
    }
    const f = (x: number | null) => (x === null ? 'n/a' : fmt(x, 4))
    const text = [
      `${mechanism.toUpperCase()} on ${workloadPath}: ${k} predicates, ${positives} positive; ${trials} trials, seed ${seed}`,
      charge.denied
        ? `every trial denied: the plan needs epsilon ${fmt(charge.epsilon)} > eps-max ${epsMax}`
        : `charge (worst case) epsilon ${fmt(charge.epsilon)}; denied ${s.denied}`,
      `FNR ${f(s.fnr)}   FPR ${f(s.fpr)}   ex-post eps* ${f(s.epsilonExPost)}   min-entropy ${f(s.minEntropy)} (normalised; ${f(s.minEntropyNats)} nats)`
    ].join('\n')
    return { json, text }
  }
}
