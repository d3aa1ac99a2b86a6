/** The `sweep` command: JSON out, CSV export with the documented header, bad input (exit 2, nothing written), resume. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../cli-runner'
import { tempWorkspace } from '../helpers'
import { thresholdSpec, writeThresholdWorkload } from './harness'

const ws = tempWorkspace('qa-exp-cli-')
afterAll(() => ws.cleanup())

const cli = (args: string[]) => runCli(args)

const THRESHOLD_HEADER =
  'kind,experiment_id,experiment,engine,base_seed,cell,sweep,workload,mechanism,alpha,beta,eps_max,eps_1,m,m_f,cell_seed,trials,status,error,metric,n,mean,sd,ci_low,ci_high,interval'

describe('sweep command', () => {
  it('runs a spec, prints one JSON object, writes the CSV with the documented header, and resumes', async () => {
    const specPath = join(ws.dir, 'spec.json')
    writeFileSync(
      specPath,
      JSON.stringify(thresholdSpec(writeThresholdWorkload(ws.dir), { mechanisms: ['tslm', 'dppwlm'], grid: { alpha: [1, 2] }, trials: 10 }))
    )
    const db = join(ws.dir, 'ws.sqlite')
    const csvPath = join(ws.dir, 'out.csv')
    const r = await cli(['sweep', '--spec', specPath, '--workers', '1', '--db', db, '--csv', csvPath, '--json'])
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    const lines = r.out.trim().split('\n')
    expect(lines).toHaveLength(1)
    const j = JSON.parse(lines[0])
    expect(j.simulation).toBe(true)
    expect(j.status).toBe('done')
    expect(j.cells).toHaveLength(4)
    expect(j.run.cellsComputed).toBe(4)
    for (const c of j.cells) {
      expect(c.status).toBe('done')
      for (const m of ['fnr', 'fpr', 'epsilonExPost', 'minEntropy', 'denied']) {
        const s = c.metrics[m]
        expect(s.n).toBe(10)
        expect(s.ciLow).toBeLessThanOrEqual(s.mean)
        expect(s.ciHigh).toBeGreaterThanOrEqual(s.mean)
      }
      expect(c.metrics.denied.interval).toBe('wilson')
      expect(c.metrics.fnr.interval).toBe('wilson')
      expect(c.metrics.fnr.ciHigh).toBeGreaterThan(c.metrics.fnr.ciLow as number)
    }

    const text = readFileSync(csvPath, 'utf8')
    expect(text.split('\r\n')[0]).toBe(THRESHOLD_HEADER)
    const csv = parse(text) as string[][]
    const rows = csv.slice(1)
    expect(rows).toHaveLength(4 * 7) // 4 cells x 7 metrics, no closed-form extras for this engine
    expect(rows.every((r) => r[0] === 'simulation' && r[1] === j.experimentId)).toBe(true)
    const h = THRESHOLD_HEADER.split(',')
    const fnrRow = rows.find((r) => r[h.indexOf('cell')] === '3' && r[h.indexOf('metric')] === 'fnr')!
    expect(Number(fnrRow[h.indexOf('mean')])).toBe(j.cells[3].metrics.fnr.mean)
    expect(fnrRow[h.indexOf('mechanism')]).toBe('dppwlm')
    expect(fnrRow[h.indexOf('alpha')]).toBe('2')

    const again = await cli(['sweep', '--resume', j.experimentId, '--workers', '1', '--db', db, '--json'])
    expect(again.code).toBe(0)
    const k = JSON.parse(again.out)
    expect(k.run.cellsComputed).toBe(0)
    expect(k.run.cellsSkipped).toBe(4)
    expect(k.cells).toEqual(j.cells)
  })

  it('rejects a bad spec with exit code 2 and one line, writing nothing', async () => {
    const specPath = join(ws.dir, 'bad.json')
    writeFileSync(specPath, JSON.stringify({ ...thresholdSpec(join(ws.dir, 'missing.csv')), trials: -1 }))
    const db = join(ws.dir, 'never.sqlite')
    const r = await cli(['sweep', '--spec', specPath, '--workers', '1', '--db', db, '--json'])
    expect(r.code).toBe(2)
    expect(r.out).toBe('')
    expect(r.err.trim().split('\n')).toHaveLength(1)
    expect(r.err).toMatch(/spec\.trials must be a whole number/)
    expect(existsSync(db)).toBe(false)

    const p = await cli(['sweep', '--preset', 'fig99', '--db', db])
    expect(p.code).toBe(2)
    expect(p.err).toMatch(/--preset must be one of mide, /)
    const none = await cli(['sweep', '--db', db])
    expect(none.code).toBe(2)
    expect(none.err).toMatch(/give exactly one of --spec FILE, --preset NAME or --resume ID/)
    writeFileSync(specPath, '{ not json')
    const nj = await cli(['sweep', '--spec', specPath, '--db', db])
    expect(nj.code).toBe(2)
    expect(nj.err).toMatch(/is not valid JSON/)
    expect(existsSync(db)).toBe(false)
  })

  it('runs the AIQ engine: Monte Carlo error rates agree with the exact expected rates', async () => {
    const specPath = join(ws.dir, 'aiq.json')
    const trials = 100
    writeFileSync(
      specPath,
      JSON.stringify({
        name: 'aiq check',
        engine: 'aiq',
        workloads: [{ kind: 'records', path: 'resources/data/nab/nyc_taxi.csv', columns: [{ name: 'value', binWidth: 500 }], label: 'taxi' }],
        mechanisms: ['dp', 'sp'],
        params: { beta: 25, k: 5, r: 1, eps: 0.3 },
        trials,
        seed: 'aiq'
      })
    )
    const r = await cli(['sweep', '--spec', specPath, '--workers', '2', '--db', join(ws.dir, 'aiq.sqlite'), '--json'])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    for (const c of j.cells) {
      const records = c.extras.queriedRecords
      expect(records).toBeGreaterThan(10)
      // Each trial answers every record once, independently: N = records x trials Bernoulli draws with mean = exact rate.
      // Hoeffding at delta = 1e-4 / 2 (Bonferroni over the two cells): |mean - exact| <= sqrt(ln(2/delta) / (2N)).
      const N = records * trials
      const tol = Math.sqrt(Math.log(2 / (1e-4 / 2)) / (2 * N))
      expect(Math.abs(c.metrics.errorRate.mean - c.extras.exactErrorRate)).toBeLessThanOrEqual(tol)
    }
    // SP is more accurate than optimal DP on non-sensitive records (the point of the construction), exactly:
    const [dp, sp] = j.cells
    expect(sp.extras.exactErrorRateNonSensitive).toBeLessThan(dp.extras.exactErrorRateNonSensitive)
  })
})
