/**
 * A linked file that changes while a maxGroups release reads it (between the two passes of the DuckDB form) fails the
 * release ("changed while it was read"), and the form's TEMP tables (every person's value, the rank coefficients,
 * the predicate words) are dropped all the same: the attack would be to leave one such table in DuckDB per release
 * for the life of the worker (memory, then spill).
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ThresholdQueryDefinition } from '../../../src-main/contract/datasets'
import { getDataset } from '../../../src-main/services/catalog/catalog'
import { thresholdCountsFrom } from '../../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../../src-main/services/datasets/threshold-predicates'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import type { Sql } from '../../../src-main/services/sources/dialect'
import { closeDuckDb, duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { fileVersionNow } from '../../../src-main/services/sources/file-version'
import { readingCheckedFiles } from '../../../src-main/services/sources/linked-file'
import { type Source, sourceFor } from '../../../src-main/services/sources/source'
import { seededRng } from '../../../src-worker/engine/random'
import { type Harness, harness } from '../datasets/harness'
import { officerAct } from '../officer-fixture'

let h: Harness
let id: number
let path: string

beforeAll(() => {
  h = harness()
  const lines = ['p,g']
  for (let n = 0; n < 50; n++) for (let g = 0; g < 20; g++) lines.push(`person${n},${1000 + ((n * 7 + g) % 100)}`)
  const csv = join(h.dir, 'v.csv')
  writeFileSync(csv, lines.join('\n') + '\n')
  path = join(h.dir, 'v.parquet')
  duckAll(`COPY (SELECT * FROM read_csv(${duckString(csv)}, header = true)) TO ${duckString(path)} (FORMAT parquet)`)
  id = linkFile(h.store.db, { name: 'v', file: path, personColumn: 'p', ...officerAct(h.store.db) }).id
})

afterAll(async () => {
  await closeDuckDb()
  h.cleanup()
})

const def: ThresholdQueryDefinition = {
  kind: 'threshold',
  groupBy: ['g'],
  groups: Array.from({ length: 100 }, (_, i) => [1000 + i]),
  count: { kind: 'persons', personColumn: 'p', cap: 2, maxGroups: 3 },
  threshold: { kind: 'constant', value: 3 }
}

const tablesLeft = () => Number(duckAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'qa_truncation%'`).rows[0][0])

it('a file changed between the passes: the release fails, and the TEMP tables are dropped all the same', () => {
  const db = h.store.db
  const ds = getDataset(db, id)
  const predicates = thresholdPredicates(db, ds, def)
  const version = fileVersionNow(path)!
  expect(tablesLeft()).toBe(0)
  // As prepare.ts runs a release's execute: reading the version checked before the charge.
  expect(() =>
    readingCheckedFiles([{ datasetId: id, version }], () => {
      const src = sourceFor(db, ds)
      let touched = false
      const s: Source = {
        dialect: src.dialect,
        linked: src.linked,
        all: (q: Sql) => src.all(q),
        numbers: (q: Sql) => {
          // The custodian (or a sync tool) rewrites the file's times while pass 1's table is being read.
          if (!touched) utimesSync(path, new Date(), new Date())
          touched = true
          return src.numbers!(q)
        },
        appendNumbers: (table: string, values: Float64Array) => src.appendNumbers!(table, values)
      }
      return thresholdCountsFrom(s, ds, def, predicates, seededRng('k'))
    })
  ).toThrow(/changed while it was read/)
  expect(tablesLeft()).toBe(0)
})

it("an append DuckDB refuses (the kept pairs' table gone) fails the release with the source's sentence, no DuckDB message; the tables are dropped", () => {
  const db = h.store.db
  const ds = getDataset(db, id)
  const predicates = thresholdPredicates(db, ds, def)
  const version = fileVersionNow(path)!
  let appended = 0
  let failure: unknown = null
  try {
    readingCheckedFiles([{ datasetId: id, version }], () => {
      const src = sourceFor(db, ds)
      const s: Source = {
        ...src,
        all: (q: Sql) => src.all(q),
        numbers: (q: Sql) => src.numbers!(q),
        appendNumbers: (table: string, values: Float64Array) => {
          // As if the table went with a restarted worker: DuckDB's appender then names the table in its error.
          duckAll(`DROP TABLE ${table}`)
          appended++
          src.appendNumbers!(table, values)
        }
      }
      return thresholdCountsFrom(s, ds, def, predicates, seededRng('k'))
    })
  } catch (e) {
    failure = e
  }
  expect(appended).toBe(1)
  expect(failure).toBeInstanceOf(Error)
  const message = (failure as Error).message
  expect(message).toMatch(/^The file linked as dataset "v" \(v\.parquet\) could not be read as linked/)
  expect(message).not.toMatch(/qa_truncation|Catalog|Table|append/i)
  expect(tablesLeft()).toBe(0)
})
