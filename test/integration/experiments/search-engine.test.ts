/** The search engine through the pool: a small labelled series in the NAB layout; the cell equals the engine's own run. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExperimentSpec, SweepJobResult } from '../../../src-main/contract/experiments'
import { type Services, createServices } from '../../../src-main/services'
import { aggregateSearchTrials, labelledSeriesPreset, runSearchTrials } from '../../../src-worker/engine/search'
import { tempWorkspace } from '../helpers'

const ws = tempWorkspace('qa-exp-search-')
let services: Services
let seriesPath: string
const N = 300
const values: number[] = []

beforeAll(() => {
  const dir = join(ws.dir, 'nab')
  mkdirSync(dir)
  const lines = ['timestamp,value']
  const t0 = Date.UTC(2015, 0, 1)
  for (let i = 0; i < N; i++) {
    const v = i === 200 ? 400 : 100 + ((i * 37) % 23)
    values.push(v)
    lines.push(`${new Date(t0 + i * 1_800_000).toISOString().replace('T', ' ').slice(0, 19)},${v}`)
  }
  seriesPath = join(dir, 'series.csv')
  writeFileSync(seriesPath, lines.join('\n') + '\n')
  const w = (i: number) => new Date(t0 + i * 1_800_000).toISOString().replace('T', ' ').replace('Z', '000')
  writeFileSync(join(dir, 'combined_windows.json'), JSON.stringify({ 'realKnownCause/series.csv': [[w(198), w(202)]] }))
  services = createServices({ mode: 'headless', dbPath: join(ws.dir, 'ws.sqlite'), poolSize: 2 })
})
afterAll(async () => {
  await services?.close()
  ws.cleanup()
})

describe('experiments: search engine', () => {
  it('runs the oracles over eps and matches the engine run with the cell seed', async () => {
    const spec: ExperimentSpec = {
      name: 'search test',
      engine: 'search',
      workloads: [{ kind: 'series', path: seriesPath, label: 'synthetic' }],
      mechanisms: ['rr', 'direct'],
      grid: { eps: [1, 4] },
      trials: 20,
      trialsPerBatch: 3,
      seed: 5
    }
    const { jobId, experimentId } = await services.call('experiments/start', { spec })
    const info = await services.context.jobs.settled(jobId)
    expect(info?.state).toBe('done')
    expect((info!.result as SweepJobResult).cellsComputed).toBe(4)
    const d = await services.call('experiments/get', { experimentId })
    expect(d.workloads[0].facts.individuals).toBeGreaterThan(100)
    expect(d.workloads[0].facts.anomalyRow).toBe(200)

    // The same preset the adapter builds, then the engine's own batchable run with each cell's seed.
    const preset = labelledSeriesPreset({ values, windows: [[198, 202]] })
    for (const c of d.cells) {
      const p = c.params as Record<string, number | string>
      const ev = {
        scores: preset.scores,
        anomalies: [preset.anomaly],
        params: {
          epsilon: p.eps as number,
          tLow: preset.tLow,
          tHigh: preset.tHigh,
          oracle: c.mechanism as 'rr' | 'direct',
          top: 4,
          halting: { tau: 0.5 }
        }
      }
      const direct = aggregateSearchTrials(runSearchTrials(ev, c.seed, 0, 20))
      expect(c.metrics!.errorRate.mean).toBe(direct.errorRate)
      expect(c.metrics!.queries.mean).toBe(direct.meanQueries)
      expect(c.metrics!.privacyRisk.mean).toBeCloseTo(direct.meanPrivacyRisk, 12)
      expect(c.metrics!.errorRate.interval).toBe('wilson')
      expect(c.extras!.expectedQueriesBound).toBeGreaterThan(0)
    }
  })
})
