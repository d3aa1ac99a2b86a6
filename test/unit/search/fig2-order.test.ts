import { describe, expect, it } from 'vitest'
import { loadNabPreset } from '../../../src-main/cli/commands/search'
import { runSearchTrials, type SearchTrialMetrics } from '../../../src-worker/engine/search'
import { normalUpperQuantile, twoProportionZ, welchZ } from './stats'

// Paper Fig. 2 on real data (NAB ec2_request_latency_system_failure, preset thresholds, ratio 1.12), eps = 2, tau = 0.5,
// |S| = 4, 300 runs per oracle, fixed seeds. Four one-sided checks at alpha = 1e-4 / 4 each (Bonferroni):
// two-proportion z tests (pooled) for the error rates, a Welch z test for the mean total privacy risk.
describe('oracle order on real data (Fig. 2)', () => {
  const p = loadNabPreset('../shared/data/nab/ec2_request_latency_system_failure.csv', process.cwd())
  const runs = 300
  const run = (oracle: 'rr' | 'binary' | 'direct'): SearchTrialMetrics[] =>
    runSearchTrials(
      { scores: p.scores, anomalies: [p.anomaly], params: { epsilon: 2, tLow: p.tLow, tHigh: p.tHigh, oracle, top: 4, halting: { tau: 0.5 } } },
      `fig2/${oracle}`,
      0,
      runs
    )
  const z = normalUpperQuantile(1e-4 / 4)
  const errors = (m: SearchTrialMetrics[]) => m.filter((t) => !t.found).length

  it('randomized response errs significantly more often than both noisy-max oracles; direct spends less than binarised', () => {
    const rr = run('rr'), bin = run('binary'), dir = run('direct')
    expect(twoProportionZ(errors(rr), runs, errors(bin), runs)).toBeGreaterThan(z)
    expect(twoProportionZ(errors(rr), runs, errors(dir), runs)).toBeGreaterThan(z)
    // Paper: the binarised update is a lower bound on the likelihood, so it needs more rounds (more risk) than direct.
    expect(welchZ(bin.map((t) => t.privacyRisk), dir.map((t) => t.privacyRisk))).toBeGreaterThan(z)
    // direct <= binarised in error: NOT reproduced as a significant difference here (both are near 5%; see
    // README "Anomaly search"). We check the weaker non-inferiority: direct is not significantly worse than binarised.
    expect(twoProportionZ(errors(dir), runs, errors(bin), runs)).toBeLessThan(z)
  })
})
