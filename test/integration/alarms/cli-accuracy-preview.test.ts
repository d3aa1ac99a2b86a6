/**
 * `release --preview` of an anomaly question states its accuracy against epsilon (public inputs only) beside the price,
 * as the app's release panel does; a threshold question's accuracy is its beta and alpha, so it adds nothing.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../cli-runner'
import { buildDemo, DEMO_QUERIES, type DemoWorkspace } from './demo-fixture'

let demo: DemoWorkspace
beforeAll(async () => {
  demo = await buildDemo()
}, 120_000)
afterAll(() => demo.cleanup())

const cli = async (argv: string[]) => {
  const r = await runCli(argv, { cwd: demo.dir })
  return { code: r.code, stdout: r.out, stderr: r.err }
}

describe('release --preview states accuracy', () => {
  it('anomaly identification: the error bound at the charge, in the text and the JSON', async () => {
    const db = join(demo.dir, 'demo.qa')
    const text = await cli(['release', '--db', db, '--query', String(DEMO_QUERIES.aiq), '--epsilon', '1', '--preview'])
    expect(text.stderr).toBe('')
    expect(text.code).toBe(0)
    const json = await cli(['release', '--db', db, '--query', String(DEMO_QUERIES.aiq), '--epsilon', '1', '--preview', '--json'])
    const out = JSON.parse(json.stdout)
    expect(out.accuracy.kind).toBe('anomaly-identification')
    expect(out.accuracy.sentence.length).toBeGreaterThan(0)
    expect(text.stdout).toContain(`\nAccuracy: ${out.accuracy.sentence}`)
  })

  it('search: the promised share of runs with the anomaly among the top S', async () => {
    const db = join(demo.dir, 'demo.qa')
    const r = await cli(['release', '--db', db, '--query', String(DEMO_QUERIES.search), '--preview', '--json'])
    expect(r.stderr).toBe('')
    const out = JSON.parse(r.stdout)
    expect(out.accuracy.kind).toBe('anomaly-search')
    expect(out.accuracy.sentence).toMatch(/the anomaly is among the top \d+ in \d/)
  })

  it('threshold: no accuracy block (beta and alpha are its accuracy)', async () => {
    const db = join(demo.dir, 'demo.qa')
    const r = await cli(['release', '--db', db, '--query', String(DEMO_QUERIES.threshold), '--beta', '0.05', '--alpha', '1', '--preview', '--json'])
    expect(r.stderr).toBe('')
    const out = JSON.parse(r.stdout)
    expect(out.preview).toBeTruthy()
    expect(out.accuracy).toBeUndefined()
  })
})
