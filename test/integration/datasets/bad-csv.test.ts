import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { badCsvCorpus } from '../../fixtures/datasets/bad-csv-corpus'
import { type Harness, harness } from './harness'

let h: Harness
beforeAll(() => {
  h = harness()
})
afterAll(() => h.cleanup())

const corpus = badCsvCorpus()

describe('bad CSV corpus: one clear message each, nothing stored', () => {
  it('has at least 12 kinds', () => {
    expect(new Set(corpus.map((c) => c.kind)).size).toBeGreaterThanOrEqual(12)
  })

  const before = () => ({ tables: h.tables(), datasets: h.store.db.prepare('SELECT count(*) n FROM datasets').get() })

  for (const [i, c] of corpus.entries()) {
    it(c.kind, async () => {
      const file = join(h.dir, `bad-${i}.csv`)
      writeFileSync(file, c.content)
      const start = before()
      let message: string
      try {
        // Errors found while checking the request come back directly, the rest as the failed job's one sentence.
        const job = await h.importAndWait({ path: file, name: `bad ${i}`, types: c.types, delimiter: c.delimiter })
        expect(job.state).toBe('failed')
        message = job.error ?? ''
      } catch (e) {
        message = (e as Error).message
      }
      expect(message).toMatch(c.message)
      expect(message).not.toMatch(/\n|at .*\.ts|Error:/)
      expect(before()).toEqual(start)
      expect(h.tables().some((t) => t.startsWith('import_staging_'))).toBe(false)
    })
  }

  it('the preview gives the same message for a problem at the start of the file', async () => {
    const c = corpus.find((x) => x.kind === 'duplicate column names')!
    const file = join(h.dir, 'dup-preview.csv')
    writeFileSync(file, c.content)
    await expect(h.handlers['datasets/preview-file']({ fileId: h.file(file) })).rejects.toThrow(c.message)
  })

  it('skipping bad rows imports the good ones and reports the bad ones with their lines', async () => {
    const file = join(h.dir, 'mixed.csv')
    writeFileSync(file, 'a,b,c\n1,2,3\n4,5\n,,\n6;7;8\n9,10,11\n"x",12,13\n')
    const job = await h.importAndWait({ path: file, name: 'mixed', onBadRow: 'skip', types: { a: 'integer' }, reportBadRows: 3 })
    expect(job.state).toBe('done')
    const r = job.result as {
      dataset: { id: number; rowCount: number; skippedRows: number }
      badRowCount: number
      badRows: Array<{ line: number; reason: string }>
    }
    expect(r.dataset.rowCount).toBe(2)
    expect(r.badRowCount).toBe(4)
    expect(r.dataset.skippedRows).toBe(4)
    expect(r.badRows).toEqual([
      { line: 3, reason: 'has 2 fields, the header has 3' },
      { line: 4, reason: 'has only delimiters, no values' },
      { line: 5, reason: 'has 1 field, the header has 3 (it seems to use ";" instead of ",")' }
    ])
    const rows = await h.storedRows({ datasetId: r.dataset.id })
    expect(rows.rows).toEqual([
      [1, 2, 3],
      [9, 10, 11]
    ])
  })
})
