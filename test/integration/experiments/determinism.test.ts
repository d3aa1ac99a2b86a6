/**
 * Same spec and seed -> identical results with 1 and 2 workers and with any batch size; a cell's numbers are those of
 * the engine's own batchable Monte Carlo run with the cell's seed; adding grid points leaves existing cells unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CellResult, ExperimentSpec, SweepJobResult } from '../../../src-main/contract/experiments'
import { type Services, createServices } from '../../../src-main/services'
import { readFileSync } from 'node:fs'
import { aggregateThresholdTrials, parseWorkload, runThresholdTrials, type ThresholdMechanism } from '../../../src-worker/engine/mide'
import { tempWorkspace } from '../helpers'
import { thresholdSpec, writeThresholdWorkload } from './harness'

const ws = tempWorkspace('qa-exp-det-')
let one: Services
let two: Services
let workload: string

beforeAll(() => {
  workload = writeThresholdWorkload(ws.dir)
  one = createServices({ mode: 'headless', dbPath: `${ws.dir}/one.sqlite`, poolSize: 1 })
  two = createServices({ mode: 'headless', dbPath: `${ws.dir}/two.sqlite`, poolSize: 2 })
})
afterAll(async () => {
  await one?.close()
  await two?.close()
  ws.cleanup()
})

async function run(s: Services, spec: ExperimentSpec): Promise<{ cells: CellResult[]; result: SweepJobResult }> {
  const { jobId, experimentId } = await s.call('experiments/start', { spec })
  const info = await s.context.jobs.settled(jobId)
  expect(info?.state).toBe('done')
  const detail = await s.call('experiments/get', { experimentId })
  expect(detail.simulation).toBe(true)
  return { cells: detail.cells, result: info!.result as SweepJobResult }
}

const comparable = (cells: CellResult[]) => cells.map((c) => ({ key: c.key, seed: c.seed, status: c.status, metrics: c.metrics }))

describe('experiments: determinism', () => {
  it('gives identical cells with 1 and 2 workers and with different batch sizes', async () => {
    const spec = thresholdSpec(workload)
    const a = await run(one, { ...spec, trialsPerBatch: 24 })
    const b = await run(two, { ...spec, trialsPerBatch: 5 })
    expect(a.cells).toHaveLength(8)
    expect(a.cells.every((c) => c.status === 'done')).toBe(true)
    expect(comparable(b.cells)).toEqual(comparable(a.cells))

    // Each cell equals the engine's own run of trials [0, trials) with the cell seed (independent of the pool).
    const w = parseWorkload(readFileSync(workload, 'utf8'))
    for (const c of a.cells) {
      const p = c.params as Record<string, number>
      const params = { alpha: p.alpha, beta: p.beta, epsMax: p.eps_max, eps1: p.eps_1, steps: p.m, fineSteps: p.m_f }
      const direct = aggregateThresholdTrials(runThresholdTrials(c.mechanism as ThresholdMechanism, w, params, c.seed, 0, c.trials))
      expect(c.metrics!.fnr.mean).toBe(direct.fnr)
      expect(c.metrics!.fpr.mean).toBe(direct.fpr)
      expect(c.metrics!.epsilonExPost.mean).toBe(direct.epsilonExPost)
      expect(c.metrics!.minEntropy.mean).toBe(direct.minEntropy)
      expect(c.metrics!.denied.mean).toBe(direct.denied / direct.trials)
    }
  })

  it('keeps existing cells unchanged when grid points and sweeps are added, and computes shared cells once', async () => {
    const small = await run(two, thresholdSpec(workload, { mechanisms: ['tslm', 'ppwlm'], grid: { alpha: [3] } }))
    const big = await run(
      two,
      thresholdSpec(workload, {
        mechanisms: undefined,
        grid: undefined,
        sweeps: [
          { label: 'alpha', mechanisms: ['tslm', 'ppwlm'], grid: { alpha: [1, 3, 5] } },
          // TSLM ignores m: its three cells here are one computation, equal to the alpha sweep's alpha = 1 cell.
          { label: 'm', mechanisms: ['tslm'], grid: { m: [2, 3, 4] } }
        ]
      })
    )
    for (const c of small.cells) {
      const same = big.cells.find((d) => d.key === c.key)
      expect(same, `cell ${c.mechanism} alpha ${c.params.alpha}`).toBeDefined()
      expect(same!.metrics).toEqual(c.metrics)
    }
    expect(big.cells).toHaveLength(9)
    const tslmAlpha1 = big.cells.filter((c) => c.mechanism === 'tslm' && c.params.alpha === 1)
    expect(tslmAlpha1).toHaveLength(4)
    expect(new Set(tslmAlpha1.map((c) => JSON.stringify(c.metrics))).size).toBe(1)
    expect(big.result.cellsComputed).toBe(6) // 2 mechanisms x 3 alphas; the m sweep adds no new computation
  })

  it('lists, exports and deletes experiments; unknown ids get one clear sentence', async () => {
    const { jobId, experimentId } = await two.call('experiments/start', {
      spec: thresholdSpec(workload, { mechanisms: ['tslm'], grid: { alpha: [2] }, trials: 5 })
    })
    await two.context.jobs.settled(jobId)
    const list = await two.call('experiments/list', {})
    const mine = list.experiments.find((e) => e.id === experimentId)!
    expect(mine.simulation).toBe(true)
    expect(mine.status).toBe('done')
    expect(mine.jobId).toBeNull()
    const csv = await two.call('experiments/export-csv', { experimentId })
    expect(csv.fileName).toMatch(/^simulation-test-sweep-/)
    expect(csv.rows).toBe(7)
    expect((await two.call('experiments/delete', { experimentId })).deleted).toBe(true)
    const gone = await two.dispatch('experiments/get', { experimentId })
    expect(gone.ok).toBe(false)
    if (!gone.ok) expect(gone.error.message).toMatch(/^There is no experiment with id "[^"]+"; list the experiments to find it\.$/)
    // In-process (as the CLI's sweep calls it): the spec's own check. Through a door the local workload path is refused first.
    await expect(two.call('experiments/start', { spec: { ...thresholdSpec(workload), trials: 0 } })).rejects.toThrow(
      /^spec\.trials must be a whole number from 1 to 100000 \(got 0\)\.$/
    )
  })
})
