import { describe, expect, it } from 'vitest'
import { loadNabPreset } from '../../../src-main/cli/commands/search'
import { type HaltingRules, runSearchTrials, type SearchTrialMetrics } from '../../../src-worker/engine/search'
import { normalUpperQuantile, twoProportionZ, welchZ } from './stats'

// Paper Fig. 2 on real data (NAB ec2_request_latency_system_failure, preset thresholds, ratio 1.12), |S| = 4, 300 runs
// per oracle, fixed seeds. Six one-sided checks in this file at alpha = 1e-4 / 6 each (Bonferroni): two-proportion z
// tests (pooled) for the error rates, a Welch z test for the mean total privacy risk.
describe('oracle order on real data (Fig. 2)', () => {
  const p = loadNabPreset('resources/data/nab/ec2_request_latency_system_failure.csv', process.cwd())
  const runs = 300
  const run = (oracle: 'rr' | 'binary' | 'direct', epsilon: number, halting: HaltingRules, seed: string): SearchTrialMetrics[] =>
    runSearchTrials(
      { scores: p.scores, anomalies: [p.anomaly], params: { epsilon, tLow: p.tLow, tHigh: p.tHigh, oracle, top: 4, halting } },
      `${seed}/${oracle}`,
      0,
      runs
    )
  const z = normalUpperQuantile(1e-4 / 6)
  const errors = (m: SearchTrialMetrics[]) => m.filter((t) => !t.found).length

  it('at equal eps and equal total privacy risk (budget b = 30 at eps = 1, no tau) the errors order direct < binarised < randomized response', () => {
    // Every run asks exactly 30 queries, so the three oracles spend the same privacy and only the information they
    // extract per query differs: the exact Laplace likelihood (direct) uses more of each answer than its binarised lower
    // bound, which uses more than a randomized-response bit.
    const halting = { budget: 30 }
    const rr = run('rr', 1, halting, 'fig2-budget'),
      bin = run('binary', 1, halting, 'fig2-budget'),
      dir = run('direct', 1, halting, 'fig2-budget')
    for (const m of [rr, bin, dir]) expect(m.every((t) => t.privacyRisk === 30)).toBe(true)
    expect(twoProportionZ(errors(bin), runs, errors(dir), runs)).toBeGreaterThan(z)
    expect(twoProportionZ(errors(rr), runs, errors(bin), runs)).toBeGreaterThan(z)
  })

  it("with the paper's halting (tau = 0.5, eps = 2) randomized response errs significantly more often than both noisy-max oracles; direct spends less than binarised", () => {
    const halting = { tau: 0.5 }
    const rr = run('rr', 2, halting, 'fig2'),
      bin = run('binary', 2, halting, 'fig2'),
      dir = run('direct', 2, halting, 'fig2')
    expect(twoProportionZ(errors(rr), runs, errors(bin), runs)).toBeGreaterThan(z)
    expect(twoProportionZ(errors(rr), runs, errors(dir), runs)).toBeGreaterThan(z)
    // Paper: the binarised update is a lower bound on the likelihood, so it needs more rounds (more risk) than direct.
    expect(
      welchZ(
        bin.map((t) => t.privacyRisk),
        dir.map((t) => t.privacyRisk)
      )
    ).toBeGreaterThan(z)
    // direct <= binarised in error is not a significant difference under tau halting (both are near 5%: the two stop at
    // different risk; see docs/papers/binary-search.md and the equal-risk test above). Checked here: direct is not
    // significantly worse than binarised.
    expect(twoProportionZ(errors(dir), runs, errors(bin), runs)).toBeLessThan(z)
  })
})
