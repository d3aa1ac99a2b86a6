import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from './cli-runner'

const cli = (args: string[], cwd?: string) => runCli(args, { cwd })

const dir = mkdtempSync(join(tmpdir(), 'qa-search-'))
const rows = ['id,score,name', ...Array.from({ length: 200 }, (_, i) => `${i},${i === 37 ? 9 : ((i * 7) % 10) / 10},r${i}`)]
writeFileSync(join(dir, 'one.csv'), rows.join('\n') + '\n')
writeFileSync(join(dir, 'two.csv'), rows.map((r, i) => (i === 100 ? '99,9.5,x' : r)).join('\n') + '\n')
writeFileSync(join(dir, 'bad.csv'), rows.map((r, i) => (i === 50 ? '49,abc,x' : r)).join('\n') + '\n')
const good = ['search', '--data', join(dir, 'one.csv'), '--column', 'score', '--t-low', '1', '--t-high', '5', '--epsilon', '50', '--oracle', 'direct']

describe('cli search', () => {
  it('prints one JSON object with the contract fields; a large eps finds the anomaly every time', async () => {
    const r = await cli([...good, '--trials', '20', '--seed', '7', '--json'])
    expect(r.code).toBe(0)
    expect(r.out.trim().split('\n')).toHaveLength(1)
    const j = JSON.parse(r.out)
    for (const k of ['errorRate', 'meanPrivacyRisk', 'meanQueries', 'expectedQueriesBound']) expect(typeof j[k]).toBe('number')
    expect(j.errorRate).toBe(0)
    expect(j.meanPrivacyRisk).toBeCloseTo(50 * j.meanQueries, 9)
    expect(j.meanQueries).toBeLessThanOrEqual(Math.ceil(Math.log2(200)) + 2)
    // same seed, same answer
    const again = await cli([...good, '--trials', '20', '--seed', '7', '--json'])
    expect(again.out).toBe(r.out)
  })

  it('budget, delta and no-tau options combine; the risk stays within the budget', async () => {
    const r = await cli([...good, '--epsilon', '0.3', '--budget', '2', '--halt', 'none', '--delta', '0.01', '--trials', '10', '--json'])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j.meanPrivacyRisk).toBeLessThanOrEqual(2 + 1e-9)
  })

  it('several anomalies with --subsets', async () => {
    const r = await cli([
      'search',
      '--data',
      join(dir, 'two.csv'),
      '--column',
      'score',
      '--t-low',
      '1',
      '--t-high',
      '5',
      '--epsilon',
      '50',
      '--oracle',
      'rr',
      '--subsets',
      '8',
      '--top',
      '1',
      '--trials',
      '10',
      '--json'
    ])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j.anomalies).toBe(2)
    expect(j.subsets).toBe(8)
    expect(j.missRate).toBeLessThanOrEqual(j.errorRate)
  })

  it('the NAB preset derives scores and thresholds', async () => {
    const r = await cli([
      'search',
      '--nab-preset',
      'resources/data/nab/ec2_request_latency_system_failure.csv',
      '--epsilon',
      '4',
      '--oracle',
      'direct',
      '--trials',
      '5',
      '--json'
    ])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j.tLow).toBeLessThan(j.tHigh)
    expect(j.preset.series).toBe('realKnownCause/ec2_request_latency_system_failure.csv')
  })

  const bad: Array<[string, string[]]> = [
    ['t-low >= t-high', [...good, '--t-low', '5']],
    ['no row above t-high', [...good, '--t-high', '20']],
    ['two rows above t-high', ['search', '--data', join(dir, 'two.csv'), ...good.slice(3)]],
    ['eps <= 0', [...good, '--epsilon', '0']],
    ['negative eps', [...good, '--epsilon', '-1']],
    ['top < 1', [...good, '--top', '0']],
    ['unknown column', [...good, '--column', 'nope']],
    ['non-numeric cell', ['search', '--data', join(dir, 'bad.csv'), ...good.slice(3)]],
    ['unknown oracle', [...good, '--oracle', 'magic']],
    ['missing file', ['search', '--data', join(dir, 'none.csv'), ...good.slice(3)]],
    ['halt none with nothing else', [...good, '--halt', 'none']],
    ['bad halt', [...good, '--halt', '1.5']],
    ['bad delta', [...good, '--delta', '1']],
    ['budget below eps', [...good, '--budget', '10']],
    ['preset with thresholds', ['search', '--nab-preset', 'resources/data/nab/nyc_taxi.csv', '--t-low', '1', '--epsilon', '1', '--oracle', 'rr']]
  ]
  for (const [name, args] of bad) {
    it(`bad input: ${name} -> exit 2, one stderr line, nothing on stdout`, async () => {
      const r = await cli([...args, '--json'])
      expect(r.code).toBe(2)
      expect(r.out).toBe('')
      expect(r.err.endsWith('\n')).toBe(true)
      expect(r.err.trimEnd().split('\n')).toHaveLength(1)
    })
  }
})
