/**
 * Progress inside long search runs (the time-left estimate of a sweep follows the work done, and one run of a large
 * cell takes seconds): the batch task reports shares of a trial while a run goes on, never past the next whole trial
 * before the run ends, in order, and the results are those of runs that report nothing.
 */
import { describe, expect, it } from 'vitest'
import { type SearchParams, runSearchTrials } from '../../../src-worker/engine/search'
import { searchTrialBatch } from '../../../src-worker/tasks/search-tasks'
import { synthetic } from './synthetic'

describe('search progress inside a run', () => {
  it('reports shares of a trial during each run, in order, with unchanged results', () => {
    const n = 600
    const scores = synthetic(n, 17, 'in-run-progress')
    // A small ratio (t_h close to t_l) and a small eps: hundreds of rounds per run.
    const batch = {
      cellSeed: 'in-run',
      firstTrial: 0,
      count: 3,
      scores,
      anomaly: 17,
      tLow: 1,
      tHigh: 1.05,
      oracle: 'direct' as const,
      epsilon: 0.5,
      top: 4,
      tau: 0.5
    }
    const seen: number[] = []
    const out = searchTrialBatch(batch, { progress: (d) => seen.push(d) })
    const params: SearchParams = { epsilon: 0.5, tLow: 1, tHigh: 1.05, oracle: 'direct', top: 4, halting: { tau: 0.5 } }
    const plain = runSearchTrials({ scores, anomalies: [17], params }, 'in-run', 0, 3)
    expect(Array.from(out.metrics.queries)).toEqual(plain.map((m) => m.queries))
    expect(Math.min(...plain.map((m) => m.queries))).toBeGreaterThan(128)
    // Shares inside the first run, below 1; then every report in order; the last is the whole batch.
    expect(seen.some((d) => d > 0 && d < 1)).toBe(true)
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1])
    for (const d of seen) if (!Number.isInteger(d)) expect(d - Math.floor(d)).toBeLessThanOrEqual(0.9)
    expect(seen[seen.length - 1]).toBe(3)
  })
})
