import { describe, expect, it } from 'vitest'
import { searchTrialBatch } from '../../../src-worker/tasks/search-tasks'
import { runSearchTrials } from '../../../src-worker/engine/search'
import { synthetic } from './synthetic'

/** The experiments' search metrics under a round cap (Fig. 1 preset): capped runs count as failures, beside errorRate. */
describe('search experiment metrics with a round cap', () => {
  const scores = synthetic(200, 17, 'cap')
  const batch = (maxQueries: number) =>
    searchTrialBatch(
      {
        cellSeed: 'cap-cell',
        firstTrial: 0,
        count: 40,
        scores,
        anomaly: 17,
        tLow: 1,
        tHigh: 2,
        oracle: 'direct',
        epsilon: 1,
        top: 4,
        tau: 0.5,
        maxQueries
      },
      { progress: () => {} }
    )

  it('a run stopped by the cap is a failure even when the anomaly is in S; a halted run fails only when it misses', () => {
    const r = batch(12)
    const ev = {
      scores,
      anomalies: [17],
      params: { epsilon: 1, tLow: 1, tHigh: 2, oracle: 'direct' as const, top: 4, halting: { tau: 0.5, maxQueries: 12 } }
    }
    const runs = runSearchTrials(ev, 'cap-cell', 0, 40)
    let cappedButFound = 0
    runs.forEach((m, i) => {
      const capped = m.haltedBy === 'maxQueries'
      expect(r.metrics.capped[i]).toBe(capped ? 1 : 0)
      expect(r.metrics.errorRate[i]).toBe(m.found ? 0 : 1)
      expect(r.metrics.failureRate[i]).toBe(capped || !m.found ? 1 : 0)
      if (capped && m.found) cappedButFound++
    })
    // The case that tells the two metrics apart occurs in this batch.
    expect(cappedButFound).toBeGreaterThan(0)
    expect(r.metrics.capped.every((c) => c === 1)).toBe(false)
    // The extras: the capped bound stops at the cap, Prop. 3's own bound says what the runs would need.
    expect(r.extras?.expectedQueriesBound).toBe(12)
    expect(r.extras?.prop3QueriesBound).toBeGreaterThan(12)
  })

  it('without a binding cap the failure rate is the error rate', () => {
    const r = batch(100000)
    expect(Array.from(r.metrics.capped)).toEqual(new Array(40).fill(0))
    expect(Array.from(r.metrics.failureRate)).toEqual(Array.from(r.metrics.errorRate))
  })
})
