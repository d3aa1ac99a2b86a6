import { describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './cli-runner'

const cli = (args: string[], cwd?: string) => runCli(args, { cwd })

const dir = mkdtempSync(join(tmpdir(), 'qa-mide-'))
const file = (name: string, text: string) => {
  const p = join(dir, name)
  writeFileSync(p, text)
  return p
}
const good = file('good.csv', 'predicate,count,threshold\na,10,9.5\nb,3,8\nc,50,60\nd,120,100\n')
const TAXI = 'resources/workloads/taxi-jan2015-H.csv'
const base = ['threshold', '--workload', good, '--mechanism', 'tslm', '--alpha', '1', '--beta', '0.05']

describe('cli: minent', () => {
  it('prints {k, gamma, gammaNormalized, p} with a feasible minimiser', async () => {
    const r = await cli(['minent', '--eps', '0.1,0.5,1,1', '--json'])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.out)
    expect(out.k).toBe(4)
    expect(out.p.length).toBe(4)
    const sum = out.p.reduce((s: number, x: number) => s + x, 0)
    const ent = out.p.reduce((s: number, x: number) => s - x * Math.log(x), 0)
    expect(sum).toBeCloseTo(1, 12)
    expect(ent).toBeCloseTo(out.gamma, 12)
    expect(out.gammaNormalized).toBeCloseTo(out.gamma / Math.log(4), 12)
    expect(r.out.trim().split('\n').length).toBe(1)
  })
})

describe('cli: threshold', () => {
  it('runs a Monte Carlo evaluation, reproducible from the reported seed', async () => {
    const a = await cli(['threshold', '--workload', TAXI, '--mechanism', 'dppwlm', '--alpha', '1', '--beta', '0.05', '--trials', '5', '--json'])
    expect(a.code).toBe(0)
    const ja = JSON.parse(a.out)
    expect(ja).toMatchObject({ mechanism: 'dppwlm', trials: 5, predicates: 1488, denied: 0 })
    for (const key of ['fnr', 'fpr', 'epsilonExPost', 'minEntropy', 'positives', 'seed']) expect(ja).toHaveProperty(key)
    expect(ja.epsilonExPost).toBeLessThanOrEqual(ja.epsilonCharge)
    const b = await cli([
      'threshold',
      '--workload',
      TAXI,
      '--mechanism',
      'dppwlm',
      '--alpha',
      '1',
      '--beta',
      '0.05',
      '--trials',
      '5',
      '--seed',
      ja.seed,
      '--json'
    ])
    expect(JSON.parse(b.out)).toEqual(ja)
  })

  it('reports denial without failing', async () => {
    const r = await cli([...base, '--alpha', '0.1', '--trials', '3', '--seed', '1', '--json'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ denied: 3, fnr: null, epsilonExPost: null })
  })

  const cases: Array<[string, string[]]> = [
    ['beta = 0.5', [...base, '--beta', '0.5']],
    ['beta = 0', [...base, '--beta', '0']],
    ['alpha = 0', [...base, '--alpha', '0']],
    ['alpha negative', [...base, '--alpha', '-1']],
    ['eps-max = 0', [...base, '--eps-max', '0']],
    ['eps1 not finite', [...base, '--mechanism', 'ppwlm', '--eps1', 'Infinity']],
    ['eps1 negative', [...base, '--mechanism', 'ppwlm', '--eps1', '-1e-5']],
    ['steps = 1 (ppwlm)', [...base, '--mechanism', 'ppwlm', '--steps', '1']],
    ['steps = 1 (dppwlm)', [...base, '--mechanism', 'dppwlm', '--steps', '1']],
    ['fine-steps = 0', [...base, '--mechanism', 'dppwlm', '--fine-steps', '0']],
    ['trials = 0', [...base, '--trials', '0']],
    ['unknown mechanism', [...base, '--mechanism', 'magic']],
    ['missing workload file', [...base, '--workload', join(dir, 'nope.csv')]],
    ['empty workload file', [...base, '--workload', file('empty.csv', '\n \n')]],
    ['missing column', [...base, '--workload', file('nocol.csv', 'predicate,count\na,1\n')]],
    ['non-numeric count', [...base, '--workload', file('nancount.csv', 'predicate,count,threshold\na,many,2\n')]],
    ['non-numeric threshold', [...base, '--workload', file('nanthr.csv', 'predicate,count,threshold\na,1,high\n')]],
    ['repeated predicate', [...base, '--workload', file('rep.csv', 'predicate,count,threshold\na,1,2\na,3,4\n')]],
    ['minent eps = 0', ['minent', '--eps', '0.1,0']],
    ['minent eps not finite', ['minent', '--eps', '0.1,NaN']],
    ['minent eps negative', ['minent', '--eps', '-1']],
    ['noise eps = 0', ['noise', '--kind', 'laplace', '--eps', '0', '--samples', '3']],
    ['noise relax with one eps', ['noise', '--kind', 'relax', '--eps', '1', '--samples', '3']],
    ['noise relax decreasing', ['noise', '--kind', 'relax', '--eps', '2,1', '--samples', '3']],
    ['noise samples = 0', ['noise', '--kind', 'laplace', '--eps', '1', '--samples', '0']]
  ]
  for (const [name, args] of cases) {
    for (const json of [false, true]) {
      it(`rejects ${name}${json ? ' (--json)' : ''}: exit 2, one stderr line, nothing on stdout`, async () => {
        const r = await cli(json ? [...args, '--json'] : args)
        expect(r.code).toBe(2)
        expect(r.out).toBe('')
        expect(r.err.endsWith('\n')).toBe(true)
        expect(r.err.trimEnd().split('\n').length).toBe(1)
      })
    }
  }

  it('error messages about a workload never echo true counts', async () => {
    const r = await cli([...base, '--workload', file('neg.csv', 'predicate,count,threshold\na,-12345,2\n')])
    expect(r.code).toBe(2)
    expect(r.err).not.toContain('12345')
  })
})

describe('cli: noise', () => {
  it('prints one sample per line (v1,v2 for relax), reproducible with --seed', async () => {
    const a = await cli(['noise', '--kind', 'relax', '--eps', '0.5,1.5', '--samples', '50', '--seed', '7'])
    expect(a.code).toBe(0)
    const lines = a.out.trim().split('\n')
    expect(lines.length).toBe(50)
    for (const l of lines) expect(l.split(',').map(Number).every(Number.isFinite)).toBe(true)
    const j = JSON.parse((await cli(['noise', '--kind', 'relax', '--eps', '0.5,1.5', '--samples', '50', '--seed', '7', '--json'])).out)
    expect(j.samples.map((s: number[]) => s.join(','))).toEqual(lines)
    const l = JSON.parse((await cli(['noise', '--kind', 'laplace', '--eps', '2', '--samples', '4', '--json'])).out)
    expect(l.samples.length).toBe(4)
    expect(typeof l.seed).toBe('string')
  })
})
