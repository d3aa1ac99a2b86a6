/**
 * MIDE benchmarks: MinEnt at several sizes, one DPPWLM run at the paper's defaults, and the 100-trial evaluation of
 * the four mechanisms on the shared taxi workloads. Prints one JSON line; asserts nothing.
 */
import { readFileSync } from 'node:fs'
import { seededRng } from '../../src-worker/engine/random'
import {
  type EpsLevel,
  PAPER_DEFAULTS,
  THRESHOLD_MECHANISMS,
  aggregateThresholdTrials,
  minEntropyLevels,
  parseWorkload,
  runThresholdMechanism,
  runThresholdTrials
} from '../../src-worker/engine/mide/index'
import { report, round, timeRuns } from './timing'

function instances(n: number, k: number, levels: number, lo: number, hi: number, seed: string): EpsLevel[][] {
  const rng = seededRng(seed)
  return Array.from({ length: n }, () => {
    const eps = Array.from({ length: levels }, () => lo + (hi - lo) * rng.next())
    const counts = new Array(levels).fill(1)
    for (let i = levels; i < k; i++) counts[Math.floor(rng.next() * levels)]++
    return eps.map((epsilon, t) => ({ epsilon, count: counts[t] }))
  })
}

function benchMinEnt(k: number, levels: number, lo: number, hi: number, runs: number) {
  const inst = instances(runs + 5, k, levels, lo, hi, `minent/${k}/${levels}/${lo}/${hi}`)
  let maxMs = 0
  const stats = timeRuns(runs, (i) => {
    const s = performance.now()
    minEntropyLevels(inst[i])
    maxMs = Math.max(maxMs, performance.now() - s)
  })
  return { k, levels, epsRange: [lo, hi], ...stats, maxMs: round(maxMs) }
}

const minent = {
  k544_levels12: benchMinEnt(544, 12, 0.01, 4, 200),
  k10000_levels16: benchMinEnt(10000, 16, 0.01, 4, 100),
  k20_distinct: benchMinEnt(20, 20, 0.01, 4, 200),
  // hard corner: all epsilons tiny and close (bounds almost equal): a subset-sum-like search; reported, not targeted
  k544_levels12_flat: benchMinEnt(544, 12, 0.01, 0.1, 50),
  k20_distinct_flat: benchMinEnt(20, 20, 0.01, 0.1, 50)
}

const taxi = (w: string) => parseWorkload(readFileSync(`../shared/workloads/taxi-jan2015-${w}.csv`, 'utf8'))
const m544 = taxi('M')
const counts544 = m544.counts.slice(0, 544)
const thresholds544 = m544.thresholds.slice(0, 544)
const dppwlm544 = timeRuns(200, (i) => {
  runThresholdMechanism('dppwlm', counts544, thresholds544, PAPER_DEFAULTS, seededRng(`dp544/${i}`))
})

const evaluation: Record<string, unknown> = {}
const t0 = performance.now()
for (const w of ['H', 'M', 'L']) {
  const wl = taxi(w)
  for (const mech of THRESHOLD_MECHANISMS) {
    const s = performance.now()
    const agg = aggregateThresholdTrials(runThresholdTrials(mech, wl, PAPER_DEFAULTS, 'bench', 0, 100))
    evaluation[`${w}/${mech}`] = { ms: round(performance.now() - s, 1), fnr: agg.fnr, epsilonExPost: agg.epsilonExPost }
  }
}
const evaluationTotalMs = round(performance.now() - t0, 1)

report({
  minent,
  dppwlm544: { predicates: 544, ...dppwlm544 },
  evaluation100Trials: { totalMs: evaluationTotalMs, perCell: evaluation },
  targets: { minent544MedianMs: 1, minent10000MedianMs: 20, minent20MedianMs: 50, dppwlm544MedianMs: 5, evaluationTotalMs: 10000 }
})
