/** Spec validation: every problem is reported as one clear sentence naming what is wrong. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../../src-main/services/store/store'
import { planExperiment } from '../../../src-main/services/experiments/spec'
import { PRESETS } from '../../../src-main/services/experiments/presets'
import { tempWorkspace } from '../helpers'
import { thresholdSpec, writeThresholdWorkload } from './harness'

const ws = tempWorkspace('qa-exp-val-')
let path: string
const store = {} as Store
const ctx = () => ({ cwd: process.cwd(), store })
beforeAll(() => {
  path = writeThresholdWorkload(ws.dir)
})
afterAll(() => ws.cleanup())

/** One sentence: one line, ends with a full stop, no second sentence starting after ". ". */
function expectOneSentence(msg: string): void {
  expect(msg).not.toMatch(/\n/)
  expect(msg).toMatch(/[.]$/)
  expect(msg.slice(0, -1)).not.toMatch(/\.\s+[A-Z]/)
  expect(msg.length).toBeLessThan(300)
}

async function errorsOf(spec: unknown): Promise<string[]> {
  const out = await planExperiment(spec, ctx())
  expect(out.ok).toBe(false)
  const errors = out.ok ? [] : out.errors
  for (const e of errors) expectOneSentence(e)
  return errors
}

describe('experiments: spec validation', () => {
  it('accepts a good spec and counts its cells', async () => {
    const out = await planExperiment(thresholdSpec(path), ctx())
    expect(out.ok).toBe(true)
    if (out.ok) {
      expect(out.plan.cells).toHaveLength(8)
      expect(out.plan.distinctCells).toBe(8)
    }
  })

  const cases: Array<[string, () => unknown, RegExp]> = [
    ['not an object', () => [1, 2], /must be a JSON object/],
    ['unknown engine', () => ({ ...thresholdSpec(path), engine: 'mide' }), /spec\.engine must be one of threshold, aiq, search \(got "mide"\)/],
    ['zero trials', () => thresholdSpec(path, { trials: 0 }), /spec\.trials must be a whole number from 1 to 100000 \(got 0\)/],
    ['fractional trials', () => thresholdSpec(path, { trials: 2.5 }), /spec\.trials must be a whole number/],
    ['bad seed', () => thresholdSpec(path, { seed: '' }), /spec\.seed must be a non-empty text or a whole number/],
    [
      'unknown mechanism',
      () => thresholdSpec(path, { mechanisms: ['tslm', 'lm'] }),
      /contains "lm", which is not a threshold mechanism; choose from nlm, tslm, ppwlm, dppwlm/
    ],
    [
      'unknown parameter',
      () => thresholdSpec(path, { grid: { gamma: [1] } }),
      /unknown parameter "gamma" for the threshold engine; known parameters are alpha, beta/
    ],
    [
      'bad grid value',
      () => thresholdSpec(path, { grid: { beta: [0.05, 0.7] } }),
      /spec\.grid\.beta\[1\] must be a number in \(0, 0\.5\) \(got 0\.7\)/
    ],
    ['duplicate grid value', () => thresholdSpec(path, { grid: { alpha: [1, 1] } }), /spec\.grid\.alpha lists 1 twice/],
    ['empty grid list', () => thresholdSpec(path, { grid: { alpha: [] } }), /spec\.grid\.alpha must be a non-empty list/],
    [
      'param and grid both',
      () => thresholdSpec(path, { params: { alpha: 2 } }),
      /spec\.params\.alpha and spec\.grid\.alpha both set alpha; keep one/
    ],
    ['bad param', () => thresholdSpec(path, { params: { m: 1.5 } }), /spec\.params\.m must be a whole number >= 2 \(got 1\.5\)/],
    [
      'missing workload file',
      () => thresholdSpec(`${ws.dir}/nope.csv`),
      /Cannot read the workload file .*nope\.csv \(no such file\); check the path/
    ],
    [
      'wrong workload kind',
      () => ({ ...thresholdSpec(path), workloads: [{ kind: 'series', path }] }),
      /spec\.workloads\[0\]\.kind must be "csv" or "saved-query" for the threshold engine/
    ],
    ['no workloads', () => ({ ...thresholdSpec(path), workloads: [] }), /spec\.workloads must be a non-empty list/],
    [
      'sweeps and shorthand',
      () => ({ ...thresholdSpec(path), sweeps: [{ mechanisms: ['tslm'] }] }),
      /Give either spec\.sweeps or spec\.mechanisms\/params\/grid, not both/
    ],
    ['unknown field', () => ({ ...thresholdSpec(path), trails: 3 }), /unknown field "trails"/],
    [
      'eps_1 above the final epsilon',
      () => thresholdSpec(path, { mechanisms: ['ppwlm'], grid: { eps_1: [0.1, 5] } }),
      /^Cell 1 \(w, ppwlm, alpha 1, beta 0\.05, eps_max 4, eps_1 5, m 4\): eps_1 = 5 is not below the final step's epsilon/
    ],
    [
      'aiq parameter without default',
      () => ({
        name: 'a',
        engine: 'aiq',
        workloads: [{ kind: 'records', path, columns: [{ name: 'count' }] }],
        mechanisms: ['sp'],
        params: { r: 1 },
        trials: 5,
        seed: 1
      }),
      /The aiq parameter beta has no default; set it in spec\.params or spec\.grid/
    ],
    [
      'search without halting rule',
      () => ({
        name: 's',
        engine: 'search',
        workloads: [{ kind: 'series', path: 'resources/data/nab/nyc_taxi.csv' }],
        mechanisms: ['rr'],
        params: { tau: 'none' },
        trials: 5,
        seed: 1
      }),
      /A search cell needs a halting rule: set tau, delta, b or max_queries/
    ],
    [
      'crash cell out of range',
      () => thresholdSpec(path, { diagnostics: { crashCells: [99] } }),
      /crashCells names cell 99, but the spec has only 8 cells/
    ]
  ]
  for (const [what, spec, expected] of cases) {
    it(`rejects ${what} with one sentence`, async () => {
      const errors = await errorsOf(spec())
      expect(
        errors.some((e) => expected.test(e)),
        errors.join(' | ')
      ).toBe(true)
    })
  }

  it('caps a long list of problems with a closing sentence', async () => {
    const errors = await errorsOf(thresholdSpec(path, { mechanisms: ['ppwlm'], grid: { eps_1: Array.from({ length: 30 }, (_, i) => 5 + i) } }))
    expect(errors).toHaveLength(12)
    expect(errors[11]).toMatch(/^There are 19 more problems/)
  })

  it('accepts every preset', async () => {
    for (const p of PRESETS) {
      const out = await planExperiment(p.spec, ctx())
      expect(out.ok ? 'ok' : out.errors.join(' | '), p.name).toBe('ok')
    }
  })
})
