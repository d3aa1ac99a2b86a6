/**
 * Cancel stops the sweep at once and keeps finished cells; resume computes only the missing cells.
 * A worker that crashes mid-cell: the batch is retried once, then the cell is marked failed with its reason, and the
 * rest of the sweep finishes. (Crashes come from the spec's diagnostics hook, honoured only with QA_DIAGNOSTICS=1.)
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JobProgress } from '../../../src-main/contract'
import type { SweepJobResult } from '../../../src-main/contract/experiments'
import { type Services, createServices } from '../../../src-main/services'
import { aggregateThresholdTrials, parseWorkload, runThresholdTrials } from '../../../src-worker/engine/mide'
import { tempWorkspace, waitFor } from '../helpers'
import { thresholdSpec, writeThresholdWorkload } from './harness'

const ws = tempWorkspace('qa-exp-cancel-')
let services: Services
let diag: Services

beforeAll(() => {
  services = createServices({ mode: 'headless', dbPath: `${ws.dir}/a.sqlite`, poolSize: 2 })
  diag = createServices({ mode: 'headless', dbPath: `${ws.dir}/b.sqlite`, poolSize: 2, workerEnv: { QA_DIAGNOSTICS: '1' } })
})
afterAll(async () => {
  await services?.close()
  await diag?.close()
  ws.cleanup()
})

const doneCount = (s: Services, id: string) =>
  (s.context.store.db.prepare("SELECT count(*) n FROM experiment_cells WHERE experiment_id = ? AND status = 'done'").get(id) as { n: number }).n

describe('experiments: cancel and resume', () => {
  it('cancels within a second keeping finished cells, then resume computes only the missing cells', async () => {
    const alphas = Array.from({ length: 60 }, (_, i) => 1 + i)
    const spec = {
      name: 'cancel me',
      engine: 'threshold' as const,
      workloads: [{ kind: 'csv' as const, path: 'resources/workloads/taxi-jan2015-L.csv', label: 'L' }],
      mechanisms: ['ppwlm'],
      grid: { alpha: alphas },
      trials: 20,
      trialsPerBatch: 5,
      seed: 7
    }
    const progress: JobProgress[] = []
    const off = services.events.on((name, p) => {
      if (name === 'job/progress') progress.push(p as JobProgress)
    })
    const { jobId, experimentId } = await services.call('experiments/start', { spec })
    let live: Awaited<ReturnType<typeof services.call<'experiments/get'>>>['live'] = null
    await waitFor(
      async () => {
        live = (await services.call('experiments/get', { experimentId })).live
        return live !== null && live.cellsDone >= 1
      },
      'a first cell to finish',
      60_000
    )
    expect(live!.cellsTotal).toBe(60)

    const t0 = Date.now()
    expect((await services.call('jobs/cancel', { jobId })).cancelled).toBe(true)
    const info = await services.context.jobs.settled(jobId)
    const stopMs = Date.now() - t0
    off()
    expect(info?.state).toBe('cancelled')
    // The brief asks that cancel stops within a second; the pool rejects the run synchronously on abort.
    expect(stopMs).toBeLessThan(1000)
    expect(services.context.pool.status().queuedBatches).toBe(0)
    expect(services.context.pool.status().busy).toBe(0)
    const stored = doneCount(services, experimentId)
    expect(stored).toBeGreaterThanOrEqual(1)
    expect(stored).toBeLessThan(60) // otherwise the cancel came too late to test anything
    const after = await services.call('experiments/get', { experimentId })
    expect(after.status).toBe('cancelled')
    expect(after.cellsDone).toBe(stored)
    expect(progress.length).toBeGreaterThan(0)
    expect(progress.every((p) => p.unit === 'trials' && p.total === 1200)).toBe(true)

    // The resumed run's progress counts the cells stored before as done: its trials never fall below the cells done.
    const resumedProgress: Array<{ p: JobProgress; cellsStored: number }> = []
    const offResumed = services.events.on((name, p) => {
      if (name === 'job/progress') resumedProgress.push({ p: p as JobProgress, cellsStored: doneCount(services, experimentId) })
    })
    const resumed = await services.call('experiments/resume', { experimentId })
    const rinfo = await services.context.jobs.settled(resumed.jobId)
    offResumed()
    expect(rinfo?.state).toBe('done')
    expect(resumedProgress.length).toBeGreaterThan(0)
    for (const { p, cellsStored } of resumedProgress) {
      expect(p.total).toBe(1200)
      expect(p.done).toBeGreaterThanOrEqual(Math.max(stored, cellsStored) * 20)
    }
    expect(resumedProgress[resumedProgress.length - 1].p.done).toBe(1200)
    const r = rinfo!.result as SweepJobResult
    expect(r.cellsSkipped).toBe(stored)
    expect(r.cellsComputed).toBe(60 - stored)
    expect(r.trialsComputed).toBe((60 - stored) * 20)
    const final = await services.call('experiments/get', { experimentId })
    expect(final.status).toBe('done')
    expect(final.cellsDone).toBe(60)

    // A resumed cell has exactly the numbers of an uninterrupted computation with its seed.
    const w = parseWorkload(readFileSync('resources/workloads/taxi-jan2015-L.csv', 'utf8'))
    const last = final.cells[59]
    const p = last.params as Record<string, number>
    const direct = aggregateThresholdTrials(
      runThresholdTrials(
        'ppwlm',
        w,
        { alpha: p.alpha, beta: p.beta, epsMax: p.eps_max, eps1: p.eps_1, steps: p.m, fineSteps: p.m_f },
        last.seed,
        0,
        20
      )
    )
    expect(last.metrics!.fpr.mean).toBe(direct.fpr)
    expect(last.metrics!.epsilonExPost.mean).toBe(direct.epsilonExPost)

    // Resuming a finished experiment computes nothing.
    const again = await services.call('experiments/resume', { experimentId })
    const ainfo = await services.context.jobs.settled(again.jobId)
    expect((ainfo!.result as SweepJobResult).cellsComputed).toBe(0)
  })
})

describe('experiments: progress counts trials as the cells are counted', () => {
  it('a cell computed once for several equal cells counts its trials for each of them', async () => {
    const dir = tempWorkspace('qa-exp-counts-')
    try {
      // TSLM does not use m: four cells, two of them computed (each stands for two equal cells).
      const spec = thresholdSpec(writeThresholdWorkload(dir.dir), { mechanisms: ['tslm'], grid: { alpha: [1, 3], m: [4, 8] }, trials: 24 })
      const seen: Array<{ p: JobProgress; cellsStored: number }> = []
      let id = ''
      const off = services.events.on((name, p) => {
        if (name === 'job/progress' && id !== '') seen.push({ p: p as JobProgress, cellsStored: doneCount(services, id) })
      })
      const started = await services.call('experiments/start', { spec })
      id = started.experimentId
      const info = await services.context.jobs.settled(started.jobId)
      off()
      expect(info?.state).toBe('done')
      const detail = await services.call('experiments/get', { experimentId: id })
      expect(detail.cellsTotal).toBe(4)
      expect(detail.cellsDone).toBe(4)
      expect((info!.result as SweepJobResult).cellsComputed).toBe(2)
      // "4 of 4 cells done" beside "96 of 96 trials", and never fewer trials than the stored cells hold.
      expect(info!.progress).toMatchObject({ done: 96, total: 96, unit: 'trials' })
      for (const { p, cellsStored } of seen) {
        expect(p.total).toBe(96)
        expect(p.done).toBeGreaterThanOrEqual(cellsStored * 24)
      }
    } finally {
      dir.cleanup()
    }
  })
})

describe('experiments: a worker crashing mid-cell', () => {
  it('retries the cell once, then marks it failed with its reason, and finishes the rest', async () => {
    const dir = tempWorkspace('qa-exp-crash-')
    try {
      const spec = thresholdSpec(writeThresholdWorkload(dir.dir), {
        mechanisms: ['tslm', 'ppwlm'],
        grid: { alpha: [1, 2] },
        diagnostics: { crashCells: [2] }
      })
      const restarts = diag.context.pool.status().restarts
      const { jobId, experimentId } = await diag.call('experiments/start', { spec })
      const info = await diag.context.jobs.settled(jobId)
      expect(info?.state).toBe('done')
      const r = info!.result as SweepJobResult
      expect(r.status).toBe('partial')
      expect(r.cellsFailed).toBe(1)
      expect(r.cellsComputed).toBe(3)
      // The crashed batch ran twice: two workers were replaced.
      expect(diag.context.pool.status().restarts - restarts).toBe(2)
      const detail = await diag.call('experiments/get', { experimentId })
      expect(detail.status).toBe('partial')
      const failed = detail.cells.filter((c) => c.status === 'failed')
      expect(failed.map((c) => c.index)).toEqual([2])
      expect(failed[0].error).toMatch(/failed twice/)
      expect(failed[0].error).toMatch(/exit code 70/)
      expect(failed[0].metrics).toBeNull()
      expect(detail.cells.filter((c) => c.status === 'done')).toHaveLength(3)
    } finally {
      dir.cleanup()
    }
  })

  it('ignores the crash hook when the workers do not run in diagnostics mode', async () => {
    const dir = tempWorkspace('qa-exp-nocrash-')
    try {
      const spec = thresholdSpec(writeThresholdWorkload(dir.dir), { mechanisms: ['tslm'], grid: { alpha: [1] }, diagnostics: { crashCells: [0] } })
      const { jobId } = await services.call('experiments/start', { spec })
      const info = await services.context.jobs.settled(jobId)
      expect((info!.result as SweepJobResult).status).toBe('done')
    } finally {
      dir.cleanup()
    }
  })
})
