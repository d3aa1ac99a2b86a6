/**
 * Choosing a file to link: its columns (with the type each would get) and first rows, for Parquet and CSV, before
 * anything is stored; a wrong person column is refused with the file's columns named, in one sentence, nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { listDatasets } from '../../../src-main/services/catalog/catalog'
import { duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { officerAct } from '../officer-fixture'
import { type Harness, harness } from './harness'

let h: Harness
beforeAll(() => {
  h = harness()
})
afterAll(() => h.cleanup())

describe('link a file: preview', () => {
  it('gives a Parquet file’s columns, their types and its first rows; nothing is stored', async () => {
    const pq = join(h.dir, 'visits.parquet')
    duckAll(
      `COPY (SELECT 'p' || (i % 40) AS person_id, 'R' || (1 + i % 5) AS room, i % 3 AS floor, TIMESTAMP '2024-03-12 09:00:00' + INTERVAL (i) MINUTE AS at, i / 4.0 AS score FROM range(0, 100) AS t(i)) TO ${duckString(pq)} (FORMAT parquet)`
    )
    const before = h.tables()
    const pv = await h.handlers['datasets/link-file-preview']({ fileId: h.file(pq) })
    expect(pv.format).toBe('parquet')
    expect(pv.columns).toEqual([
      { name: 'person_id', type: 'text' },
      { name: 'room', type: 'text' },
      { name: 'floor', type: 'integer' },
      { name: 'at', type: 'timestamp' },
      { name: 'score', type: 'real' }
    ])
    expect(pv.rows).toHaveLength(10)
    expect(pv.rows[1].slice(0, 3)).toEqual(['p1', 'R2', '1'])
    expect(h.tables()).toEqual(before)
    expect(listDatasets(h.store.db)).toHaveLength(0)
  })

  it('gives a CSV file’s columns and first rows as written; a file that is neither is one sentence', async () => {
    const csv = join(h.dir, 'temps.csv')
    writeFileSync(
      csv,
      ['timestamp,value,sensor', ...Array.from({ length: 30 }, (_, i) => `2014-07-01 0${i % 10}:00:00,${20 + i / 10},s${i % 3}`)].join('\n')
    )
    const pv = await h.handlers['datasets/link-file-preview']({ fileId: h.file(csv) })
    expect(pv.format).toBe('csv')
    expect(pv.columns).toEqual([
      { name: 'timestamp', type: 'timestamp' },
      { name: 'value', type: 'real' },
      { name: 'sensor', type: 'text' }
    ])
    expect(pv.rows[0]).toEqual(['2014-07-01 00:00:00', '20', 's0'])
    const txt = join(h.dir, 'notes.txt')
    writeFileSync(txt, 'hello')
    await expect(h.handlers['datasets/link-file-preview']({ fileId: h.file(txt) })).rejects.toThrow(
      'A linked file must be a Parquet file (.parquet) or a CSV file with a header row (.csv)'
    )
  })

  it('a person column that is not the file’s is refused with the file’s columns named, in one sentence ending with a full stop', async () => {
    const csv = join(h.dir, 'ambient.csv')
    writeFileSync(csv, 'timestamp,value\n2014-07-01 00:00:00,20.5\n2014-07-01 00:05:00,21\n')
    const link = h.handlers['datasets/link-file']({ fileId: h.file(csv), name: 'ambient', personColumn: 'sensor_id', ...officerAct(h.store.db) })
    await expect(link).rejects.toThrow(
      'The person column "sensor_id" is not a column of the file, whose columns are "timestamp", "value": choose one of them, or link row-level.'
    )
    expect(listDatasets(h.store.db)).toHaveLength(0)
  })
})
