import { describe, expect, it } from 'vitest'
import {
  aiqTable,
  flipProbability,
  isSensitive,
  lambdaK,
  mdd,
  nonSensitiveErrorBound,
  type AiqParams
} from '../../../src-worker/engine/sensitive/mechanism'
import { aggregateAiqTrials, exactErrorRates, runAiqTrials } from '../../../src-worker/engine/sensitive/simulate'
import { aiqCharge, releaseAiq } from '../../../src-worker/engine/sensitive/release'
import { buildUniverse, encodeRecord } from '../../../src-worker/engine/sensitive/records'
import { ballCountsOfPoints } from '../../../src-worker/engine/sensitive/ball-count'
import { SecureRandom, seededRng } from '../../../src-worker/engine/random'

/** Bernstein: |S - mu| >= t with probability <= alpha, for a sum of independent [0,1] variables with variance V. */
function bernsteinHalfWidth(V: number, alpha: number): number {
  const L = Math.log(2 / alpha)
  return L / 3 + Math.sqrt((L / 3) ** 2 + 2 * V * L)
}

describe('Construction 1 flip probability', () => {
  it('is e^(-eps (lambda - 1)) / (1 + e^eps), 1/(1+e^eps) at lambda = 1, and finite for large eps', () => {
    for (const eps of [0.01, 0.5, 1, 3]) {
      for (const lam of [1, 2, 5, 17]) {
        const want = Math.exp(-eps * (lam - 1)) / (1 + Math.exp(eps))
        expect(Math.abs(flipProbability(lam, eps) - want)).toBeLessThanOrEqual(1e-15 * Math.max(1, want))
      }
    }
    expect(flipProbability(1, 800)).toBe(0)
    expect(() => flipProbability(0.5, 1)).toThrow(RangeError)
  })
})

describe('error of the SP mechanism', () => {
  it('meets the non-sensitive bound e^(-eps (beta + 1 - k - B)) and never exceeds the DP error', () => {
    let checked = 0
    const bad: string[] = []
    for (let beta = 1; beta <= 30; beta++) {
      for (let k = 1; k <= 5; k++) {
        for (const epsilon of [0.1, 0.5, 1, 3]) {
          const p: AiqParams = { beta, k, epsilon }
          for (let B = 0; B <= beta + 6; B++) {
            for (let xi = 0; xi <= B; xi++) {
              const sp = flipProbability(lambdaK(xi, B, beta, k), epsilon)
              const dp = flipProbability(mdd(xi, B, beta), epsilon)
              if (sp > dp) bad.push(`SP > DP at beta ${beta}, k ${k}, eps ${epsilon}, B ${B}, x_i ${xi}`)
              if (!isSensitive(B, beta, k)) {
                checked++
                if (sp > nonSensitiveErrorBound(B, p) * (1 + 1e-12))
                  bad.push(`bound fails at beta ${beta}, k ${k}, eps ${epsilon}, B ${B}, x_i ${xi}`)
              }
            }
          }
        }
      }
    }
    expect(bad.slice(0, 5)).toEqual([])
    expect(checked).toBeGreaterThan(1000)
  })
})

/** A 1-D dataset with dense regions and isolated readings, ball counts at r = 2, beta = 12. */
function sampleTable(epsilon: number) {
  const rng = seededRng('aiq/sample-table')
  const values: number[] = []
  for (let i = 0; i < 3000; i++) values.push(50 + 10 * (rng.next() + rng.next() + rng.next() - 1.5))
  for (const v of [0, 3, 7, 8, 90, 95, 95, 130]) values.push(v)
  const u = buildUniverse([values], [{ kind: 'numeric', binWidth: 1 }])
  const balls = ballCountsOfPoints(u.points, u.counts, u.kinds, 'l1', 2)
  return aiqTable(u.counts, balls, { beta: 12, k: 4, epsilon })
}

describe('Monte Carlo evaluation', () => {
  it('sampled error rates agree with the exact flip probabilities (Bernstein bound, fixed seed)', () => {
    const table = sampleTable(0.3)
    const trials = 400
    const metrics = runAiqTrials(table, 'aiq-mc', 0, trials)
    let sensitive = 0
    for (let i = 0; i < table.size; i++) sensitive += table.sensitive[i]
    expect(sensitive).toBeGreaterThan(0)
    expect(sensitive).toBeLessThan(table.size)
    // 4 checks (2 mechanisms x 2 groups), each at alpha = 1e-4 / 4 (Bonferroni).
    const alpha = 1e-4 / 4
    for (const mech of ['dp', 'sp'] as const) {
      const flip = mech === 'dp' ? table.flipDp : table.flipSp
      for (const group of [1, 0]) {
        let mu = 0
        let V = 0
        for (let i = 0; i < table.size; i++) {
          if (table.sensitive[i] !== group) continue
          mu += trials * flip[i]
          V += trials * flip[i] * (1 - flip[i])
        }
        const S = metrics.reduce((a, m) => a + (group ? m[mech].sensitiveErrors : m[mech].nonSensitiveErrors), 0)
        expect(Math.abs(S - mu), `${mech}, sensitive = ${group}`).toBeLessThanOrEqual(bernsteinHalfWidth(V, alpha))
      }
    }
    const agg = aggregateAiqTrials(metrics)
    const exact = exactErrorRates(table)
    expect(agg.trials).toBe(trials)
    // SP is more accurate than DP on non-sensitive records here (strong anomalies and dense records alike).
    expect(exact.sp.errorRateNonSensitive!).toBeLessThan(exact.dp.errorRateNonSensitive!)
  })

  it('gives the same per-trial metrics however the trials are split into batches', () => {
    const table = sampleTable(1)
    const whole = runAiqTrials(table, 7, 0, 12)
    const parts = [...runAiqTrials(table, 7, 0, 5), ...runAiqTrials(table, 7, 5, 4), ...runAiqTrials(table, 7, 9, 3)]
    expect(parts).toEqual(whole)
    expect(aggregateAiqTrials(parts)).toEqual(aggregateAiqTrials(whole))
    expect(runAiqTrials(table, 8, 0, 12)).not.toEqual(whole)
  })
})

describe('release API', () => {
  const values = [1, 2, 2, 3, 3, 3, 20, 40, 41, 41, 41, 41]
  const u = buildUniverse([values], [{ kind: 'numeric' }])
  const queries = Int32Array.from([1, 20, 41, 100, 2])
  const req = { beta: 3, k: 1, epsilon: 60, metric: 'l1' as const, radius: 1, queries }

  it('refuses a seeded generator', () => {
    expect(() => releaseAiq(seededRng(1), u, { ...req, mechanism: 'sp' })).toThrow(/secure/)
  })

  it('returns only the bits and a data-independent charge', () => {
    for (const mechanism of ['dp', 'sp'] as const) {
      const out = releaseAiq(SecureRandom.create(), u, { ...req, mechanism })
      expect(Object.keys(out).sort()).toEqual(['bits', 'charge'])
      expect(out.bits.length).toBe(5)
      // With eps = 60 every flip probability is below e^-60: the bits are the true answers.
      // Truth (beta = 3, r = 1): 1 -> B = 1+2 = 3 anomaly; 20 -> B = 1 anomaly; 41 -> B = 5 normal; 100 absent; 2 -> B = 6 normal.
      expect(Array.from(out.bits)).toEqual([1, 1, 0, 0, 0])
      const other = buildUniverse([[5, 5, 5, 6]], [{ kind: 'numeric' }])
      expect(releaseAiq(SecureRandom.create(), other, { ...req, mechanism }).charge).toEqual(out.charge)
      expect(out.charge).toEqual(aiqCharge(mechanism, req, 5))
      expect(out.charge.epsilon).toBe(5 * 60)
      expect(out.charge.notion).toBe(mechanism === 'dp' ? 'eps-dp' : 'eps-k-sensitive')
    }
  })

  it('encodes raw query values with the data bins', () => {
    const v = buildUniverse([[0.5, 1.2, 7.9]], [{ kind: 'numeric', binWidth: 0.5 }])
    expect(Array.from(encodeRecord(v, [1.3]))).toEqual([2])
    expect(Array.from(encodeRecord(v, [-0.1]))).toEqual([-1])
    expect(() => encodeRecord(v, [1, 2])).toThrow(RangeError)
  })
})

describe('batch queries', () => {
  it('per record, per distinct tuple and per arbitrary tuple agree with each other and with the naive count', async () => {
    const { aiqTableForRecords, aiqTableForTuples, aiqTableForUniverse } = await import('../../../src-worker/engine/sensitive/queries')
    const { naiveCountBalls } = await import('../../../src-worker/engine/sensitive/ball-count-naive')
    const rng = seededRng('batch')
    const xs = Array.from({ length: 400 }, () => Math.floor(40 * rng.next() * rng.next()))
    const ys = Array.from({ length: 400 }, () => (rng.next() < 0.5 ? 'p' : 'q'))
    const u = buildUniverse([xs, ys], [{ kind: 'numeric', binWidth: 2 }, { kind: 'categorical' }])
    const params = { beta: 6, k: 2, epsilon: 0.4 }
    const perRecord = aiqTableForRecords(u, 'l2', 1.5, params)
    const perTuple = aiqTableForUniverse(u, 'l2', 1.5, params)
    const queries = Int32Array.from([...u.points, 100, 0, -3, 1])
    const arbitrary = aiqTableForTuples(u, queries, 'l2', 1.5, params)
    const naive = naiveCountBalls(u.points, u.counts, u.kinds, 'l2', 1.5, queries)
    expect(Array.from(arbitrary.ballCount)).toEqual(Array.from(naive))
    expect(Array.from(arbitrary.count)).toEqual([...u.counts, 0, 0])
    for (let i = 0; i < u.total; i++) {
      const p = u.recordPoint[i]
      expect(perRecord.ballCount[i]).toBe(perTuple.ballCount[p])
      expect(perRecord.flipSp[i]).toBe(perTuple.flipSp[p])
      expect(perRecord.count[i]).toBe(u.counts[p])
    }
  })
})
