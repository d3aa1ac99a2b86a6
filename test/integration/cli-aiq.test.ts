import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src-main/cli'

class Sink {
  text = ''
  write(s: string): boolean {
    this.text += s
    return true
  }
}

async function run(args: string[], cwd: string) {
  const stdout = new Sink()
  const stderr = new Sink()
  const code = await main(['aiq', ...args], { stdout, stderr, cwd } as never)
  return { code, stdout: stdout.text, stderr: stderr.text }
}

let dir = ''
// Readings: a dense cluster around 10-12 and isolated readings at 30 and 50 (twice); a categorical site column.
const rows = [
  ['10', 'a'],
  ['10.4', 'a'],
  ['11', 'a'],
  ['11.2', 'b'],
  ['11.9', 'a'],
  ['12', 'a'],
  ['12.5', 'b'],
  ['13', 'a'],
  ['30', 'a'],
  ['50', 'b'],
  ['50.3', 'b']
]
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'qa-aiq-'))
  writeFileSync(join(dir, 'data.csv'), 'temp,site\n' + rows.map((r) => r.join(',')).join('\n') + '\n')
  writeFileSync(join(dir, 'text.csv'), 'temp,site\n10,a\nhot,b\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const base = ['--data', 'data.csv', '--columns', 'temp', '--radius', '1', '--beta', '2']

describe('aiq CLI', () => {
  it('answers a query with the ground truth (independent count on the binned values)', async () => {
    // temp 50 -> bin 50; records in bins 49..51: 50, 50.3 -> B = 2, x_i = 2: an anomaly at beta = 2.
    const r = await run([...base, '--record-value', '50.1', '--json', '--mechanism', 'dp', '--epsilon', '0.5'], dir)
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const out = JSON.parse(r.stdout)
    expect(out).toMatchObject({ ballCount: 2, count: 2, isAnomaly: true, mdd: 1, lambda: 1, mechanism: 'dp' })
    expect(out.flipProbability).toBeCloseTo(1 / (1 + Math.exp(0.5)), 14)
    expect(out.errorRate).toBeUndefined()
    expect(r.stdout.trim().split('\n')).toHaveLength(1)
  })

  it('--max-neighbours names the neighbour limit (--beta, its former name, gives the same answer; not both)', async () => {
    const args = ['--data', 'data.csv', '--columns', 'temp', '--radius', '1', '--record-value', '50.1', '--json']
    const named = await run([...args, '--max-neighbours', '2'], dir)
    expect(named.code).toBe(0)
    expect(JSON.parse(named.stdout)).toEqual(JSON.parse((await run([...args, '--beta', '2'], dir)).stdout))
    expect(JSON.parse(named.stdout)).toMatchObject({ maxNeighbours: 2, isAnomaly: true })
    const both = await run([...args, '--max-neighbours', '2', '--beta', '2'], dir)
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/Give --max-neighbours once/)
    const none = await run(args, dir)
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/--max-neighbours is required/)
  })

  it('with --person-column it counts as a person-level release: each person once near the record by default', async () => {
    // The readings at 50 and 50.3 are one person's: at 1 row per bin x 1 bin that person counts once (x = 1, B = 1).
    writeFileSync(join(dir, 'persons.csv'), 'temp,who\n10,a\n11,b\n50,c\n50.3,c\n')
    const args = ['--data', 'persons.csv', '--columns', 'temp', '--radius', '1', '--max-neighbours', '1', '--record-value', '50.1', '--json']
    expect(JSON.parse((await run(args, dir)).stdout)).toMatchObject({ count: 2, ballCount: 2, isAnomaly: false })
    expect(JSON.parse((await run([...args, '--person-column', 'who'], dir)).stdout)).toMatchObject({ count: 1, ballCount: 1, isAnomaly: true })
    expect(JSON.parse((await run([...args, '--person-column', 'who', '--rows-per-bin', '2'], dir)).stdout)).toMatchObject({ count: 2, ballCount: 2 })
    expect((await run([...args, '--rows-per-bin', '2'], dir)).code).toBe(2)
  })

  it('uses bin widths and categorical columns; SP lambda for a strong anomaly exceeds the mdd', async () => {
    // Bin width 2: 30 -> bin 15 alone within 1 bin (bins 14..16 hold only 30): B = 1, beta = 5, k = 1 -> lambda_k = 5 + 1 - 1 + 0 = 5.
    const r = await run(
      [
        '--data',
        'data.csv',
        '--columns',
        'temp,site',
        '--categorical',
        'site',
        '--bin-width',
        '2,1',
        '--radius',
        '1',
        '--metric',
        'linf',
        '--beta',
        '5',
        '--record-value',
        '31,a',
        '--json'
      ],
      dir
    )
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out).toMatchObject({ ballCount: 1, count: 1, isAnomaly: true, mdd: 1, lambda: 5, mechanism: 'sp', binnedRecord: [15, 'a'] })
    expect(out.flipProbability).toBeCloseTo(Math.exp(-4) / (1 + Math.E), 14)
  })

  it('with --trials, the sampled error rate agrees with the flip probability (Bernstein bound, alpha = 1e-4)', async () => {
    const n = 20000
    const r = await run([...base, '--record-value', '11', '--trials', String(n), '--seed', '3', '--json', '--epsilon', '0.2'], dir)
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.trials).toBe(n)
    const p = out.flipProbability
    expect(p).toBeGreaterThan(0.01)
    const L = Math.log(2 / 1e-4)
    const half = L / 3 + Math.sqrt((L / 3) ** 2 + 2 * n * p * (1 - p) * L)
    expect(Math.abs(out.errorRate * n - n * p)).toBeLessThanOrEqual(half)
  })

  it('says in its help that it is a simulation showing the ground truth', async () => {
    const r = await run(['--help'], dir)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/simulation/i)
    expect(r.stdout).toMatch(/ground truth/i)
  })

  const bad: Array<[string, string[]]> = [
    ['unknown column', ['--data', 'data.csv', '--columns', 'nope', '--radius', '1', '--beta', '2', '--record-value', '1']],
    ['radius < 0', ['--data', 'data.csv', '--columns', 'temp', '--radius', '-1', '--beta', '2', '--record-value', '1']],
    ['beta < 1', ['--data', 'data.csv', '--columns', 'temp', '--radius', '1', '--beta', '0', '--record-value', '1']],
    ['beta not whole', ['--data', 'data.csv', '--columns', 'temp', '--radius', '1', '--beta', '2.5', '--record-value', '1']],
    ['k < 1', [...base, '--k', '0', '--record-value', '1']],
    ['eps <= 0', [...base, '--epsilon', '0', '--record-value', '1']],
    ['record of the wrong arity', [...base, '--record-value', '1,2']],
    ['non-numeric record value in a numeric column', [...base, '--record-value', 'warm']],
    ['non-numeric cell in a numeric column', ['--data', 'text.csv', '--columns', 'temp', '--radius', '1', '--beta', '2', '--record-value', '1']],
    ['missing file', ['--data', 'none.csv', '--columns', 'temp', '--radius', '1', '--beta', '2', '--record-value', '1']],
    ['unknown metric', [...base, '--metric', 'cosine', '--record-value', '1']],
    ['unknown mechanism', [...base, '--mechanism', 'laplace', '--record-value', '1']],
    ['bad bin width', [...base, '--bin-width', '0', '--record-value', '1']],
    ['bin width list of the wrong length', [...base, '--bin-width', '1,2', '--record-value', '1']],
    ['categorical column not in --columns', [...base, '--categorical', 'site', '--record-value', '1']],
    ['missing --record-value', base],
    ['bins out of range', [...base, '--bin-width', '1e-300', '--record-value', '1']]
  ]
  for (const [what, args] of bad) {
    it(`bad input: ${what} -> exit 2, one stderr line, nothing on stdout`, async () => {
      for (const extra of [[], ['--json']]) {
        const r = await run([...args, ...extra], dir)
        expect(r.code).toBe(2)
        expect(r.stdout).toBe('')
        expect(r.stderr.endsWith('\n')).toBe(true)
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
      }
    })
  }
})
