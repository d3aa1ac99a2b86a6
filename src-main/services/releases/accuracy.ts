/**
 * Accuracy against epsilon before anything is spent (accuracy first, UX.md), from public inputs only (ALGORITHMS.md
 * section 5): what the prepared release's kind says it is asking (`AccuracySpec`), never the data.
 * - Anomaly identification: Construction 1 in closed form. An answer whose flip distance is lambda is wrong with
 *   probability e^(-eps lambda) / (1 + e^(-eps)) at epsilon eps per step; the charge is records x L x eps (L = the
 *   person bound's rows per bin x bins per person, 1 on row-level data). One curve per lambda in {1, 2, 4}: 1 is the
 *   worst case (one record more or less would change the answer).
 * - Anomaly search: seeded runs on the least favourable scores the thresholds allow (engine/search/accuracy.ts), for a
 *   few budgets from the fewest questions that can decide up to twice the saved budget: the chance that the anomaly is
 *   in the top S, that the answer is a finding, and that a finding names someone else. On the worker pool when there is
 *   one; the seed is derived from the question, so the same question always gets the same figures.
 */
import type { AccuracyPreview, ReleaseRequest } from '../../contract/ledger'
import { formatCharge } from '../../contract/format-epsilon'
import { type AccuracyCounts, type SearchQuestion, searchAccuracyRuns } from '../../../src-worker/engine/search'
import { flipProbability } from '../../../src-worker/engine/sensitive'
import { type WorkerPool, batchOf } from '../platform/worker-pool'
import { UserError } from '../platform/errors'
import { canonicalJson } from '../chain/canonical'
import { pct } from './guarantee'
import type { AccuracySpec } from './kinds/release-kind'
import { prepareRelease } from './prepare'
import { searchAccuracySpec } from './kinds/anomaly-search'
import type Database from 'better-sqlite3'

const AIQ_FACTORS = [0.125, 0.25, 0.5, 1, 2, 4, 8]
const AIQ_MARGINS = [1, 2, 4]

export function aiqAccuracy(queryId: number, s: Extract<AccuracySpec, { kind: 'anomaly-identification' }>): AccuracyPreview {
  const perUnit = s.records * s.steps
  const at = (e: number) => ({ epsilon: Number((e * perUnit).toPrecision(6)), e })
  const eps = AIQ_FACTORS.map((f) => at(Number((s.epsilon * f).toPrecision(4))))
  const series = AIQ_MARGINS.map((m) => ({
    name: m === 1 ? 'one change from flipping (worst case)' : `${m} changes from flipping`,
    points: eps.map(({ epsilon, e }) => ({ epsilon, value: flipProbability(m, e) }))
  }))
  const now = (m: number) => pct(flipProbability(m, s.epsilon))
  return {
    queryId,
    kind: 'anomaly-identification',
    measure: 'error',
    valueLabel: 'probability an answer is wrong',
    series,
    currentEpsilon: Number((s.epsilon * perUnit).toPrecision(6)),
    sentence:
      `At ε ${formatCharge(s.epsilon * perUnit)} in all (${formatCharge(s.epsilon)} per record${s.steps > 1 ? `, times ${s.steps} for the person bound` : ''}): ` +
      `an answer that one record more or less would change is wrong with probability at most ${now(1)}; two records: ${now(2)}; four: ${now(4)}.`,
    method: 'closed form (Construction 1: wrong with probability e^(-ε λ) / (1 + e^(-ε)) at λ changes from flipping)'
  }
}

/** Work per point of the search simulation (individuals x questions x runs), and the runs it allows. */
const WORK_PER_POINT = 2e7
const MIN_RUNS = 60
const MAX_RUNS = 400
const MAX_POINTS = 7

function searchPoints(s: Extract<AccuracySpec, { kind: 'anomaly-search' }>): number[] {
  const n = s.neededQueries
  const set = new Set([n, Math.ceil(n * 1.25), Math.ceil(n * 1.5), 2 * n, 3 * n, s.maxQueries, 2 * s.maxQueries].filter((q) => q >= n))
  return [...set].sort((a, b) => a - b).slice(0, MAX_POINTS)
}

export function searchRuns(individuals: number, questions: number): number {
  return Math.max(MIN_RUNS, Math.min(MAX_RUNS, Math.floor(WORK_PER_POINT / (individuals * questions))))
}

/** The seed of a question's simulation: a function of its public parameters only. */
export function searchSeed(q: SearchQuestion): string {
  return `accuracy:${canonicalJson(q)}`
}

const memo = new Map<string, Promise<AccuracyPreview>>()
const MEMO_SIZE = 32

export async function searchAccuracy(
  queryId: number,
  s: Extract<AccuracySpec, { kind: 'anomaly-search' }>,
  pool?: Pick<WorkerPool, 'run'>
): Promise<AccuracyPreview> {
  const points = searchPoints(s)
  const key = canonicalJson({ q: s.question, points, grid: s.grid })
  let p = memo.get(key)
  if (!p) {
    p = simulate(s, points, pool)
    memo.set(key, p)
    if (memo.size > MEMO_SIZE) memo.delete(memo.keys().next().value as string)
    p.catch(() => memo.delete(key))
  }
  return { ...(await p), queryId }
}

async function simulate(
  s: Extract<AccuracySpec, { kind: 'anomaly-search' }>,
  points: number[],
  pool?: Pick<WorkerPool, 'run'>
): Promise<AccuracyPreview> {
  const q = s.question
  const seed = searchSeed(q)
  const runs = points.map((k) => searchRuns(q.individuals, k))
  let counts: AccuracyCounts[]
  if (pool) {
    const batches = points.map((k, i) =>
      batchOf('accuracy/search', { question: q, questions: k, grid: s.grid, seed: `${seed}:${k}`, firstRun: 0, runs: runs[i] }, runs[i])
    )
    const outcomes = await pool.run(batches, { failFast: true })
    counts = outcomes.map((o) => {
      if (!o.ok) throw new UserError('The accuracy preview could not be computed; try again', 'internal')
      return o.value
    })
  } else counts = points.map((k, i) => searchAccuracyRuns(q, k, s.grid, `${seed}:${k}`, 0, runs[i]))
  const eps = (k: number) => Number((k * q.epsilon).toPrecision(6))
  const rate = (c: AccuracyCounts, f: keyof Omit<AccuracyCounts, 'runs'>) => c[f] / c.runs
  const series = [
    { name: `anomaly among the top ${q.top}`, field: 'found' as const },
    { name: 'a finding (conclusive answer)', field: 'conclusive' as const },
    { name: 'a finding that names someone else', field: 'wrongFinding' as const }
  ].map(({ name, field }) => ({ name, points: points.map((k, i) => ({ epsilon: eps(k), value: rate(counts[i], field) })) }))
  const at = points.indexOf(s.maxQueries)
  const cur = at >= 0 ? counts[at] : null
  return {
    queryId: 0,
    kind: 'anomaly-search',
    measure: 'found',
    valueLabel: 'share of runs',
    series,
    currentEpsilon: eps(s.maxQueries),
    sentence: cur
      ? `At ε ${formatCharge(eps(s.maxQueries))} (${s.maxQueries} questions at ε ${formatCharge(q.epsilon)}), when the anomaly is just above t-high and everyone else just at t-low: ` +
        `the anomaly is among the top ${q.top} in ${pct(rate(cur, 'found'))} of runs and named as a finding in ${pct(rate(cur, 'conclusive'))}; ` +
        `a finding names someone else in ${pct(rate(cur, 'wrongFinding'))}. Fewer than ${s.neededQueries} questions cannot decide and are refused.`
      : `Fewer than ${s.neededQueries} questions cannot decide: this search is refused.`,
    method: `seeded simulation on public parameters only: ${runs.join(', ')} runs at ${points.join(', ')} questions, the anomaly at t-high and the other ${q.individuals - 1} at t-low, seed derived from the question`
  }
}

/**
 * `releases/accuracy`: the accuracy of the request and of its neighbours in epsilon, checked like the preview. A search
 * is shown even when its saved budget is refused (the chart starts at the fewest questions that can decide).
 */
export async function releaseAccuracy(db: Database.Database, req: ReleaseRequest, pool?: Pick<WorkerPool, 'run'>): Promise<AccuracyPreview> {
  if (req.params?.kind === 'anomaly-search') return searchAccuracy(req.queryId, searchAccuracySpec(db, req.queryId), pool)
  const spec = prepareRelease(db, req.queryId, req.params).accuracy
  if (!spec)
    throw new UserError('Threshold questions state their accuracy (beta, alpha) directly; the preview shows their price over alpha', 'unsupported')
  return spec.kind === 'anomaly-identification' ? aiqAccuracy(req.queryId, spec) : searchAccuracy(req.queryId, spec, pool)
}
