/**
 * Sweep benchmark: the MIDE preset (taxi H/M/L; defaults, alpha, beta and eps_1 x m sweeps; 100 trials per
 * cell) through the services on a 2-worker and a 1-worker pool, in one process, one after the other.
 * Reports wall time, trials per second, the speed-up, whether both runs gave identical cells, and the delay of the
 * services' event loop during each run (perf_hooks.monitorEventLoopDelay, max and p99).
 * Env: SWEEP_BENCH_TRIALS (trials per cell, default 100), SWEEP_BENCH_PRESET (default "mide"),
 * SWEEP_BENCH_ORDER ("2,1" default: which pool sizes, in order), SWEEP_BENCH_SWEEPS (comma-separated sweep labels to
 * keep, default all). Also reports the worker time per sweep (sum of batch times), to show where the time goes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir, cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { CellResult, SweepJobResult } from '../../src-main/contract/experiments'
import { createServices } from '../../src-main/services'
import { findPreset } from '../../src-main/services/experiments/presets'
import { type TimeLeftSample, report, round, timeLeftSwing } from './timing'

const trials = Number(process.env.SWEEP_BENCH_TRIALS ?? 100)
const presetName = process.env.SWEEP_BENCH_PRESET ?? 'mide'
const sizes = (process.env.SWEEP_BENCH_ORDER ?? '2,1').split(',').map(Number)
const keepSweeps = process.env.SWEEP_BENCH_SWEEPS?.split(',').map((x) => x.trim())

interface RunFigures {
  workers: number
  seconds: number
  cells: number
  distinctCells: number
  trials: number
  trialsPerSecond: number
  failedCells: number
  eventLoopMaxMs: number
  eventLoopP99Ms: number
  /**
   * The longest stretch the services' thread itself spent on the CPU between two 5 ms timer ticks (from
   * /proc/thread-self/stat, 10 ms resolution). monitorEventLoopDelay also counts time the thread merely waited for a
   * core on the shared machine; this is the part of a delay that is work done on the event loop. Linux only.
   */
  eventLoopMaxBusyMs: number | null
  /** The wall time of the longest gap between two 5 ms ticks, and the thread's CPU time within it. */
  longestGap: { wallMs: number; cpuMs: number | null }
  /**
   * The time left the job published (job/progress events): the smallest and largest predicted duration (elapsed + time
   * left) after the first tenth of the run and their ratio; naiveTrials: the same from trials done per second.
   */
  timeLeft: { events: number; shared: ReturnType<typeof timeLeftSwing>; naiveTrials: ReturnType<typeof timeLeftSwing> }
  /** Sum over distinct cells of the workers' batch times, per sweep (seconds). */
  workerSecondsBySweep: Record<string, number>
  loadAverageBefore: number
  loadAverageAfter: number
}

function threadCpuMs(): number | null {
  try {
    const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ')
    return (Number(f[11]) + Number(f[12])) * 10 // utime + stime, in USER_HZ = 100 ticks
  } catch {
    return null
  }
}

function busyMonitor(): { stop(): { maxBusyMs: number | null; longestGap: { wallMs: number; cpuMs: number | null } } } {
  let last = performance.now()
  let lastCpu = threadCpuMs()
  let maxBusy: number | null = lastCpu === null ? null : 0
  let gap = { wallMs: 0, cpuMs: null as number | null }
  const iv = setInterval(() => {
    const now = performance.now()
    const c = threadCpuMs()
    const cpu = c !== null && lastCpu !== null ? c - lastCpu : null
    if (cpu !== null && maxBusy !== null && cpu > maxBusy) maxBusy = cpu
    if (now - last > gap.wallMs) gap = { wallMs: round(now - last, 1), cpuMs: cpu }
    last = now
    lastCpu = c
  }, 5)
  return {
    stop() {
      clearInterval(iv)
      return { maxBusyMs: maxBusy, longestGap: gap }
    }
  }
}

async function runOnce(workers: number): Promise<{ figures: RunFigures; cells: CellResult[] }> {
  const preset = findPreset(presetName)
  if (!preset) throw new Error(`no preset ${presetName}`)
  const spec = { ...preset.spec, trials }
  if (keepSweeps) spec.sweeps = spec.sweeps?.filter((x) => keepSweeps.includes(x.label ?? ''))
  const dir = mkdtempSync(join(tmpdir(), 'qa-sweep-bench-'))
  const services = createServices({ mode: 'headless', dbPath: join(dir, 'ws.sqlite'), poolSize: workers })
  try {
    // Let the workers start (they compile the TypeScript engine) before timing.
    await services.context.pool.run(
      Array.from({ length: workers * 2 }, (_, i) => ({
        kind: 'self-check/laplace',
        payload: { seed: 'warm', batchIndex: i, samples: 10, scale: 1 },
        units: 10
      }))
    )
    const load0 = loadavg()[0]
    const h = monitorEventLoopDelay({ resolution: 5 })
    h.enable()
    const busy = busyMonitor()
    const t0 = performance.now()
    const { jobId, experimentId } = await services.call('experiments/start', { spec })
    let lastLine = 0
    const samples: TimeLeftSample[] = []
    const off = services.events.on((name, p) => {
      if (name !== 'job/progress') return
      const q = p as { done: number; total: number; rate?: number; etaSeconds: number | null }
      samples.push({ t: (performance.now() - t0) / 1000, done: q.done, total: q.total, eta: q.etaSeconds })
      if (Date.now() - lastLine < 10_000) return
      lastLine = Date.now()
      process.stderr.write(`  ${workers}w: ${q.done}/${q.total} trials, ${q.rate?.toFixed(0) ?? '?'}/s, ETA ${q.etaSeconds?.toFixed(0) ?? '?'} s\n`)
    })
    const info = await services.context.jobs.settled(jobId)
    const seconds = (performance.now() - t0) / 1000
    h.disable()
    const b = busy.stop()
    off()
    if (info?.state !== 'done') throw new Error(`sweep ended ${info?.state}: ${info?.error}`)
    const result = info.result as SweepJobResult
    const detail = await services.call('experiments/get', { experimentId })
    const ms = services.context.store.db
      .prepare('SELECT sweep, cell_key, max(compute_ms) ms FROM experiment_cells WHERE experiment_id = ? GROUP BY sweep, cell_key')
      .all(experimentId) as Array<{ sweep: string; ms: number | null }>
    const bySweep: Record<string, number> = {}
    for (const r of ms) bySweep[r.sweep] = round((bySweep[r.sweep] ?? 0) + (r.ms ?? 0) / 1000, 1)
    return {
      cells: detail.cells,
      figures: {
        workers,
        seconds: round(seconds, 2),
        cells: detail.cellsTotal,
        distinctCells: result.cellsComputed + result.cellsFailed,
        trials: result.trialsComputed,
        trialsPerSecond: round(result.trialsComputed / seconds, 1),
        failedCells: detail.cellsFailed,
        eventLoopMaxMs: round(h.max / 1e6, 1),
        eventLoopP99Ms: round(h.percentile(99) / 1e6, 1),
        timeLeft: {
          events: samples.length,
          shared: timeLeftSwing(samples, seconds, (x) => x.eta),
          naiveTrials: timeLeftSwing(samples, seconds, (x) => (x.done > 0 && x.t > 0 ? ((x.total - x.done) * x.t) / x.done : null))
        },
        workerSecondsBySweep: bySweep,
        eventLoopMaxBusyMs: b.maxBusyMs,
        longestGap: b.longestGap,
        loadAverageBefore: round(load0, 2),
        loadAverageAfter: round(loadavg()[0], 2)
      }
    }
  } finally {
    await services.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const runs: RunFigures[] = []
  const cellsByRun: CellResult[][] = []
  for (const w of sizes) {
    process.stderr.write(`sweep bench: preset ${presetName}, ${trials} trials per cell, ${w} worker(s)\n`)
    const r = await runOnce(w)
    runs.push(r.figures)
    cellsByRun.push(r.cells)
    process.stderr.write(`  ${JSON.stringify(r.figures)}\n`)
  }
  const strip = (cs: CellResult[]) => JSON.stringify(cs.map((c) => [c.key, c.status, c.metrics]))
  const two = runs.find((r) => r.workers === 2)
  const one = runs.find((r) => r.workers === 1)
  report({
    preset: presetName,
    sweeps: keepSweeps ?? 'all',
    trialsPerCell: trials,
    cpus: cpus().length,
    runs,
    speedup: two && one ? round(one.seconds / two.seconds, 2) : null,
    identicalAcrossPoolSizes: cellsByRun.every((c) => strip(c) === strip(cellsByRun[0])),
    note: 'Timings on a shared 2-core machine; see loadAverage* for the competing load during each run.'
  })
}

main().catch((e) => {
  process.stderr.write(`sweep bench failed: ${(e as Error)?.stack ?? String(e)}\n`)
  process.exit(1)
})
