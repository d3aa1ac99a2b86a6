/**
 * Threshold sweep cost estimate (engines/threshold-cost.ts, time left only) against the CPU time of the `mide` preset's
 * distinct cells, run one after the other on this thread by the worker's task function (after one warm-up pass over the
 * first cells, so compilation is not counted; that cold pass less the timed one is the warm-up, per mechanism). Refits the multi-step constants (least squares of ln(ms / tested) on
 * ln(levels + 1) for the power, then the factor that matches the mechanism's total) and reports, for the shipped and the
 * refitted constants: the per-cell spread (sd of ln(estimate / measured) after scaling to equal totals) and the duration
 * a 2-worker run in cell order would have predicted (elapsed / estimated share done) at 10 %..90 % of its time, as a
 * ratio to the real one (trials counted instead: "trials"). Env: THRESHOLD_COST_TRIALS (trials per cell, default 100).
 */
import type { Store } from '../../src-main/services/store/store'
import { findPreset } from '../../src-main/services/experiments/presets'
import { planExperiment } from '../../src-main/services/experiments/spec'
import { MULTI_STEP_COST, THRESHOLD_WARM_UP, expectedPlanWork, thresholdTrialCost } from '../../src-main/services/experiments/engines/threshold-cost'
import type { ThresholdMechanism } from '../../src-worker/engine/mide'
import type { ThresholdWorkload } from '../../src-main/services/experiments/engines/threshold'
import type { LoadedWorkload } from '../../src-main/services/experiments/engines/types'
import { thresholdTrialBatch } from '../../src-worker/tasks/mide-tasks'
import type { ThresholdTrialBatch } from '../../src-worker/tasks/mide-tasks'
import { report, round } from './timing'

const trials = Number(process.env.THRESHOLD_COST_TRIALS ?? 100)

interface Cell {
  payload: ThresholdTrialBatch
  tested: number
  levels: number
  ms: number
}

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

async function cells(): Promise<Cell[]> {
  const preset = findPreset('mide')
  if (!preset) throw new Error('no mide preset')
  // The preset's workloads are CSV files: planning reads no store.
  const out = await planExperiment({ ...preset.spec, trials }, { cwd: process.cwd(), store: null as unknown as Store })
  if (!out.ok) throw new Error(out.errors.join(' '))
  const { plan } = out
  const seen = new Set<string>()
  const list: Cell[] = []
  for (const c of plan.cells) {
    if (seen.has(c.key)) continue
    seen.add(c.key)
    const w = plan.workloads[c.workload] as LoadedWorkload<ThresholdWorkload>
    const payload = plan.adapter.batchPayload({ mechanism: c.mechanism, params: c.params, seed: c.seed }, w, 0, trials, false) as ThresholdTrialBatch
    const multi = payload.mechanism === 'ppwlm' || payload.mechanism === 'dppwlm'
    const work = multi ? expectedPlanWork(payload, payload) : { tested: payload.counts.length, levels: 0 }
    list.push({ payload, ...work, ms: 0 })
  }
  return list
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

/** Predicted / real duration at 10..90 % of a simulated 2-worker run in cell order (in-flight cells pro rata of time). */
function timeLeftRatios(measured: number[], estimate: number[], workers = 2): number[] {
  const free = Array.from({ length: workers }, () => 0)
  const spans: Array<[number, number]> = []
  for (const ms of measured) {
    const w = free.indexOf(Math.min(...free))
    spans.push([free[w], free[w] + ms])
    free[w] += ms
  }
  const total = Math.max(...free)
  const all = estimate.reduce((a, b) => a + b, 0)
  return [0.1, 0.2, 0.3, 0.5, 0.7, 0.9].map((q) => {
    const t = q * total
    let done = 0
    spans.forEach(([s, f], i) => (done += f <= t ? estimate[i] : s < t ? (estimate[i] * (t - s)) / (f - s) : 0))
    return round(t / (done / all) / total, 2)
  })
}

function spread(measured: number[], estimate: number[]): number {
  const m = measured.reduce((a, b) => a + b, 0)
  const e = estimate.reduce((a, b) => a + b, 0)
  const l = estimate.map((x, i) => Math.log(x / e / (measured[i] / m)))
  const mean = l.reduce((a, b) => a + b, 0) / l.length
  return round(Math.sqrt(l.reduce((a, b) => a + (b - mean) ** 2, 0) / l.length), 3)
}

async function main(): Promise<void> {
  const list = await cells()
  // The first cells, cold (compiled on first use) then again within the timed pass: the warm-up per mechanism.
  const cold = new Map<ThresholdMechanism, number>()
  for (const c of list.slice(0, 12)) {
    const a = cpuMs()
    thresholdTrialBatch(c.payload, { progress() {} })
    cold.set(c.payload.mechanism, (cold.get(c.payload.mechanism) ?? 0) + cpuMs() - a)
  }
  const start = cpuMs()
  for (const c of list) {
    const a = cpuMs()
    thresholdTrialBatch(c.payload, { progress() {} })
    c.ms = cpuMs() - a
  }
  const cpuSeconds = (cpuMs() - start) / 1000
  const k = list[0].payload.counts.length
  // CPU ms of one predicate tested once (single-step cells: k per trial), the unit of the estimate
  const unit = median(list.filter((c) => c.levels === 0 && c.tested === k).map((c) => c.ms)) / (k * trials)
  const warmUp: Record<string, number> = {}
  for (const c of list.slice(0, 12)) warmUp[c.payload.mechanism] = (warmUp[c.payload.mechanism] ?? cold.get(c.payload.mechanism)!) - c.ms
  for (const m of Object.keys(warmUp)) warmUp[m] = round(Math.max(0, warmUp[m]) / unit / 1e6, 1)
  const refit: Record<string, { perTest: number; levelsPower: number }> = {}
  for (const mech of ['ppwlm', 'dppwlm'] as const) {
    const cs = list.filter((c) => c.payload.mechanism === mech)
    const x = cs.map((c) => Math.log(c.levels + 1))
    const y = cs.map((c) => Math.log(c.ms / trials / unit / c.tested))
    const mx = x.reduce((a, b) => a + b, 0) / x.length
    const my = y.reduce((a, b) => a + b, 0) / y.length
    const power = x.reduce((a, xi, i) => a + (xi - mx) * (y[i] - my), 0) / x.reduce((a, xi) => a + (xi - mx) ** 2, 0)
    const factor = cs.reduce((a, c) => a + c.ms / trials / unit, 0) / cs.reduce((a, c) => a + c.tested * Math.pow(c.levels + 1, power), 0)
    refit[mech] = { perTest: round(factor, 2), levelsPower: round(power, 2) }
  }
  const measured = list.map((c) => c.ms)
  const shipped = list.map((c) => thresholdTrialCost(c.payload.mechanism, c.payload, c.payload))
  const refitted = list.map((c) => {
    const f = refit[c.payload.mechanism]
    return f ? f.perTest * c.tested * Math.pow(c.levels + 1, f.levelsPower) : c.tested
  })
  report({
    cells: list.length,
    trialsPerCell: trials,
    cpuSeconds: round(cpuSeconds, 2),
    nsPerPredicateTest: round(unit * 1e6, 1),
    warmUpMillionUnits: { shipped: Object.fromEntries(Object.entries(THRESHOLD_WARM_UP).map(([m, v]) => [m, v / 1e6])), measured: warmUp },
    shipped: { constants: MULTI_STEP_COST, perCellLogSd: spread(measured, shipped), timeLeft: timeLeftRatios(measured, shipped) },
    refit: { constants: refit, perCellLogSd: spread(measured, refitted), timeLeft: timeLeftRatios(measured, refitted) },
    trials: {
      timeLeft: timeLeftRatios(
        measured,
        list.map(() => 1)
      )
    }
  })
}

main().catch((e) => {
  process.stderr.write(`threshold-cost bench failed: ${(e as Error)?.stack ?? String(e)}\n`)
  process.exit(1)
})
