/**
 * The papers' presets ship with the app: their workloads and the NAB series are in resources/ (with their licences) and
 * are found beside the app, not in the folder it is started from. Every preset runs (one trial per cell) through the
 * built command line started in a temporary folder outside the repository; nothing in the product reads ../shared.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { WorkloadRef } from '../../../src-main/contract/experiments'
import { PRESETS } from '../../../src-main/services/experiments/presets'
import { BUNDLED_PREFIX, resolveDataPath, resourcesDir } from '../../../src-main/services/platform/bundled-files'

const ROOT = resolve(__dirname, '..', '..', '..')
const CLI = join(ROOT, 'out', 'main', 'cli.js')
const away = mkdtempSync(join(tmpdir(), 'qa-presets-elsewhere-'))
afterAll(() => rmSync(away, { recursive: true, force: true }))

function run(args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, QUIET_ALARM_DB: '' } })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += String(d)))
    child.stderr.on('data', (d) => (err += String(d)))
    child.on('error', rej)
    child.on('exit', (code) => res({ code, out, err }))
  })
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? files(p) : [p]
  })
}

describe('bundled presets', () => {
  it('every preset names only bundled files, and each is in resources/ with its licence beside it', () => {
    expect(resourcesDir()).toBe(join(ROOT, 'resources'))
    const refs = PRESETS.flatMap((p) => p.spec.workloads as WorkloadRef[])
    expect(refs.length).toBeGreaterThan(0)
    for (const ref of refs) {
      const path = (ref as { path: string }).path
      expect(path.startsWith(BUNDLED_PREFIX), path).toBe(true)
      expect(existsSync(resolveDataPath(path, away)), path).toBe(true)
    }
    expect(readFileSync(join(ROOT, 'resources', 'data', 'nab', 'LICENSE.txt'), 'utf8')).toMatch(
      /^Copyright 2014-2024 Numenta Inc\.[\s\S]*MIT|Permission is hereby granted/
    )
    expect(readFileSync(join(ROOT, 'resources', 'workloads', 'README.md'), 'utf8')).toMatch(/MIT licence[\s\S]*LICENSE\.txt/)
    // The search presets read the labelled windows beside the series.
    expect(existsSync(join(ROOT, 'resources', 'data', 'nab', 'combined_windows.json'))).toBe(true)
  })

  it('a bundled path names a file under resources/ and nowhere else; other paths stay relative to the working folder', () => {
    expect(resolveDataPath('bundled:workloads/taxi-jan2015-L.csv', away)).toBe(join(ROOT, 'resources', 'workloads', 'taxi-jan2015-L.csv'))
    expect(() => resolveDataPath('bundled:../package.json', away)).toThrow(/is not a bundled file/)
    expect(() => resolveDataPath('bundled:', away)).toThrow(/is not a bundled file/)
    expect(resolveDataPath('mine.csv', away)).toBe(join(away, 'mine.csv'))
  })

  it('the command line reads bundled files from any folder too (threshold --workload, search --nab-preset)', async () => {
    const t = await run(
      [
        'threshold',
        '--workload',
        'bundled:workloads/taxi-jan2015-L.csv',
        '--mechanism',
        'tslm',
        '--alpha',
        '1',
        '--beta',
        '0.05',
        '--trials',
        '3',
        '--json'
      ],
      away
    )
    expect(t.err).toBe('')
    expect(JSON.parse(t.out)).toMatchObject({ mechanism: 'tslm', trials: 3, predicates: 1488, positives: 929 })
    const s = await run(
      [
        'search',
        '--nab-preset',
        'bundled:data/nab/nyc_taxi.csv',
        '--oracle',
        'direct',
        '--epsilon',
        '1',
        '--max-queries',
        '50',
        '--trials',
        '2',
        '--json'
      ],
      away
    )
    expect(s.err).toBe('')
    expect(JSON.parse(s.out)).toMatchObject({ trials: 2, oracle: 'direct' })
    const bad = await run(['threshold', '--workload', 'bundled:../package.json', '--mechanism', 'tslm', '--alpha', '1', '--beta', '0.05'], away)
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/is not a bundled file/)
  })

  it('nothing in the product reads ../shared', () => {
    const sources = [...files(join(ROOT, 'src-main')), ...files(join(ROOT, 'src-worker')), ...files(join(ROOT, 'src-renderer'))].filter((f) =>
      /\.(ts|tsx|cjs|mjs|js)$/.test(f)
    )
    // A path in the code (a string starting with ../shared/), not a comment citing the design notes.
    const offenders = sources.filter((f) => /['"`](\.\.\/)+shared\//.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f))
    expect(offenders).toEqual([])
  })

  it.each(PRESETS.map((p) => p.name))(
    'sweep --preset %s runs from a folder outside the repository',
    async (name) => {
      expect(existsSync(CLI), 'out/main/cli.js: run "npm run build" first').toBe(true)
      expect(relative(ROOT, away).startsWith('..')).toBe(true)
      const db = join(away, `${name}.sqlite`)
      const r = await run(['sweep', '--preset', name, '--trials', '1', '--workers', '2', '--db', db, '--json'], away)
      expect(r.err).toBe('')
      expect(r.code).toBe(0)
      const j = JSON.parse(r.out) as { status: string; simulation: boolean; cells: Array<{ status: string }> }
      expect(j.simulation).toBe(true)
      expect(j.status).toBe('done')
      expect(j.cells.length).toBeGreaterThan(0)
      expect(j.cells.filter((c) => c.status !== 'done')).toEqual([])
    },
    600_000
  )
})
