/**
 * Binary-search presets through the services: the "Fig. 2" preset (two NAB series x three oracles x eps
 * 0.25..4, tau 0.5, 100 trials per cell) on a 2-worker pool. Prints one JSON line:
 * - seconds (wall), workerSeconds (sum of the cells' batch times in the workers), rounds (queries summed over every run),
 *   roundsPerSecond (wall) and nsPerIndividualRound (worker time per round and individual: the engine's cost);
 * - timeLeft: the estimates the job published (job/progress events): the largest and smallest predicted duration
 *   (elapsed + time left) after 10 % of the run, their ratio (the 2x rule), and the same for the naive estimate
 *   (trials done per second) computed from the same events.
 * - engine: the engine's CPU time per individual and round on this thread (nyc_taxi, binary, eps 0.5), which times the
 *   individual-rounds of a preset give its CPU seconds on a free machine.
 * Env: SEARCH_PRESETS_BENCH (comma-separated preset names, default "search-fig2"; "search-fig1" adds the round-capped
 * Fig. 1 preset, several minutes; "none": the engine figure only), SEARCH_PRESETS_WORKERS (default 2), SEARCH_PRESETS_TRIALS (default 100).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JobProgress } from '../../src-main/contract'
import type { SweepJobResult } from '../../src-main/contract/experiments'
import { createServices } from '../../src-main/services'
import { findPreset } from '../../src-main/services/experiments/presets'
import { type TimeLeftSample as Sample, report, round, timeLeftSwing as swing } from './timing'
import { seededRng } from '../../src-worker/engine/random'
import { privateBinarySearch } from '../../src-worker/engine/search'
import { loadNabPreset } from '../../src-main/cli/commands/search'

const presets = (process.env.SEARCH_PRESETS_BENCH ?? 'search-fig2')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '' && s !== 'none')
const workers = Number(process.env.SEARCH_PRESETS_WORKERS ?? 2)
const trials = Number(process.env.SEARCH_PRESETS_TRIALS ?? 100)

async function runPreset(name: string) {
  const preset = findPreset(name)
  if (!preset) throw new Error(`no preset ${name}`)
  const spec = { ...preset.spec, trials }
  const dir = mkdtempSync(join(tmpdir(), 'qa-search-presets-'))
  const services = createServices({ mode: 'headless', dbPath: join(dir, 'ws.sqlite'), poolSize: workers })
  try {
    await services.context.pool.run(
      Array.from({ length: workers * 2 }, (_, i) => ({
        kind: 'self-check/laplace',
        payload: { seed: 'warm', batchIndex: i, samples: 10, scale: 1 },
        units: 10
      }))
    )
    const load0 = loadavg()[0]
    const samples: Sample[] = []
    const t0 = performance.now()
    const off = services.events.on((ev, p) => {
      if (ev !== 'job/progress') return
      const q = p as JobProgress
      samples.push({ t: (performance.now() - t0) / 1000, done: q.done, total: q.total, eta: q.etaSeconds })
    })
    let lastLine = 0
    const { jobId, experimentId } = await services.call('experiments/start', { spec })
    const ticker = setInterval(() => {
      const s = samples[samples.length - 1]
      if (s && Date.now() - lastLine > 10_000) {
        lastLine = Date.now()
        process.stderr.write(`  ${name}: ${s.done}/${s.total} trials, ${round(s.t, 0)} s, about ${s.eta ?? '?'} s left\n`)
      }
    }, 1000)
    const info = await services.context.jobs.settled(jobId)
    const seconds = (performance.now() - t0) / 1000
    clearInterval(ticker)
    off()
    if (info?.state !== 'done') throw new Error(`${name} ended ${info?.state}: ${info?.error}`)
    const result = info.result as SweepJobResult
    const d = await services.call('experiments/get', { experimentId })
    const individuals = new Map(d.workloads.map((w) => [w.label, Number(w.facts.individuals)]))
    let rounds = 0
    let individualRounds = 0
    const ms = services.context.store.db
      .prepare('SELECT cell_key, max(compute_ms) ms FROM experiment_cells WHERE experiment_id = ? GROUP BY cell_key')
      .all(experimentId) as Array<{ ms: number | null }>
    const workerMs = ms.reduce((a, r) => a + (r.ms ?? 0), 0)
    let capped = 0
    for (const c of d.cells) {
      const q = (c.metrics?.queries.mean ?? 0) * trials
      rounds += q
      individualRounds += q * (individuals.get(c.workload) ?? 0)
      capped += (c.metrics?.capped?.mean ?? 0) * trials
    }
    return {
      preset: name,
      workers,
      cells: d.cellsTotal,
      trials: result.trialsComputed,
      seconds: round(seconds, 1),
      workerSeconds: round(workerMs / 1000, 1),
      rounds: Math.round(rounds),
      cappedRuns: Math.round(capped),
      roundsPerSecond: round(rounds / seconds, 0),
      nsPerIndividualRound: round((workerMs * 1e6) / individualRounds, 2),
      timeLeft: {
        events: samples.length,
        shared: swing(samples, seconds, (s) => s.eta),
        naiveTrials: swing(samples, seconds, (s) => (s.done > 0 && s.t > 0 ? ((s.total - s.done) * s.t) / s.done : null))
      },
      loadAverageBefore: round(load0, 2),
      loadAverageAfter: round(loadavg()[0], 2)
    }
  } finally {
    await services.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The engine's own cost on this thread, CPU time (it stays put when other work shares the cores, unlike the workers' wall
 * times above): nyc_taxi, binary oracle, eps 0.5, 3 runs of at most 1,000 rounds, best of 5.
 */
function engineCpu(): { nsCpuPerIndividualRound: number; rounds: number } {
  const p = loadNabPreset('resources/data/nab/nyc_taxi.csv', process.cwd())
  let best = Infinity
  let rounds = 0
  for (let rep = 0; rep < 5; rep++) {
    const c0 = process.cpuUsage()
    rounds = 0
    for (let s = 0; s < 3; s++) {
      const params = { epsilon: 0.5, tLow: p.tLow, tHigh: p.tHigh, oracle: 'binary' as const, top: 4, halting: { tau: 0.5, maxQueries: 1000 } }
      rounds += privateBinarySearch(p.scores, params, seededRng(`engine-cpu-${s}`)).queries
    }
    const c = process.cpuUsage(c0)
    best = Math.min(best, ((c.user + c.system) * 1000) / (rounds * p.scores.length))
  }
  return { nsCpuPerIndividualRound: round(best, 2), rounds }
}

async function main(): Promise<void> {
  const engine = engineCpu()
  process.stderr.write(`search presets bench: engine ${JSON.stringify(engine)}\n`)
  const out = []
  for (const name of presets) {
    process.stderr.write(`search presets bench: ${name}, ${trials} trials per cell, ${workers} worker(s)\n`)
    const r = await runPreset(name)
    process.stderr.write(`  ${JSON.stringify(r)}\n`)
    out.push(r)
  }
  report({
    engine,
    runs: out,
    targetFig2Seconds: 60,
    note: 'Wall times on a shared 2-core machine (see loadAverage*); workerSeconds is the engine time.'
  })
}

main().catch((e) => {
  process.stderr.write(`search presets bench failed: ${(e as Error)?.stack ?? String(e)}\n`)
  process.exit(1)
})
