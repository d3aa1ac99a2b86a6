/**
 * The maxGroups bound on a linked file in two passes (duckdb-truncation.ts) against dialect.ts's single statement (the
 * form equivalence.test.ts and maxgroups-truncation.test.ts hold to SQLite, PostgreSQL, ClickHouse and the rule in
 * JavaScript), on the same DuckDB source with the same key: identical counts and thresholds for predicates across
 * word boundaries (indices 31/32, 63/64, 127/128, the last word), up to 512 predicates, with duplicate keys, a
 * reference threshold (persons in one period only: the kept set is over both), time buckets as predicates, text /
 * integer / integer past 2^53 (linked as text) / timestamp / real persons, Parquet and CSV, an empty result; persons
 * read in several pieces; which form runs (513 predicates: the single statement); the temporary tables dropped after
 * an answer and after a failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ThresholdQueryDefinition } from '../../../src-main/contract/datasets'
import { getDataset } from '../../../src-main/services/catalog/catalog'
import { findColumn } from '../../../src-main/services/catalog/columns'
import { predicateStoredValues, thresholdCountsFrom } from '../../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../../src-main/services/datasets/threshold-predicates'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { type Sql, whereOf } from '../../../src-main/services/sources/dialect'
import { closeDuckDb, duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { twoPassTruncation } from '../../../src-main/services/sources/duckdb-truncation'
import { type Source, sourceFor } from '../../../src-main/services/sources/source'
import { seededRng } from '../../../src-worker/engine/random'
import { type Harness, harness } from '../datasets/harness'
import { officerAct } from '../officer-fixture'
import { type FormRun, groupsDefinition, runInForm } from './truncation-forms'

const START = Date.UTC(2021, 2, 1)
const HOUR = 3_600_000
const DAY = 24 * HOUR
const PERSONS = 60
/** Predicate indices where a word (64 bits) or a 32-bit piece ends, and beyond 512. */
const BOUNDARIES = [0, 1, 31, 32, 62, 63, 64, 65, 126, 127, 128, 129, 191, 192, 199, 255, 256, 383, 384, 447, 448, 510, 511, 512, 513, 599]
const iso = (t: number) => new Date(t).toISOString().replace('T', ' ').slice(0, 19)
const TEXT_PERSONS = ['ana', "o'brien", 'é', 'e\u0301', 'x, y', 'Ana']

let h: Harness
let parquet: number
let csv: number

afterAll(async () => {
  await closeDuckDb()
  h.cleanup()
})

beforeAll(() => {
  h = harness()
  const rng = seededRng('duckdb-truncation-data')
  const r = () => rng.next()
  const lines = ['pt,pi,pbig,pts,pr,g,at']
  for (let n = 0; n < PERSONS; n++) {
    const pt = n < TEXT_PERSONS.length ? TEXT_PERSONS[n] : `u${n}`
    const person = [`"${pt.replace(/"/g, '""')}"`, String(n - 20), String(2n ** 53n + 1n + 2n * BigInt(n)), iso(START + n * HOUR), String(n / 3)]
    // Persons 3k in the first two days only, 3k+1 in the last two only, 3k+2 in both.
    const days = n % 3 === 0 ? [0, 1] : n % 3 === 1 ? [2, 3] : [0, 1, 2, 3]
    const rows = 4 + Math.floor(r() * 40)
    for (let k = 0; k < rows; k++) {
      const i = r() < 0.5 ? BOUNDARIES[Math.floor(r() * BOUNDARIES.length)] : Math.floor(r() * 600)
      const at = START + days[Math.floor(r() * days.length)] * DAY + Math.floor(r() * DAY)
      // A person's rows repeat in a group (up to the cap and past it).
      for (let rep = r() < 0.3 ? 3 : 1; rep > 0; rep--) lines.push([...person, String(1000 + i), iso(at)].join(','))
    }
  }
  const csvPath = join(h.dir, 'visits.csv')
  writeFileSync(csvPath, lines.join('\n') + '\n')
  const pq = join(h.dir, 'visits.parquet')
  duckAll(
    `COPY (SELECT * FROM read_csv(${duckString(csvPath)}, header = true, auto_detect = false, columns = {'pt': 'VARCHAR', 'pi': 'BIGINT', ` +
      `'pbig': 'BIGINT', 'pts': 'TIMESTAMP', 'pr': 'DOUBLE', 'g': 'BIGINT', 'at': 'TIMESTAMP'})) TO ${duckString(pq)} (FORMAT parquet, ROW_GROUP_SIZE 500)`
  )
  const db = h.store.db
  parquet = linkFile(db, { name: 'visits parquet', file: pq, personColumn: 'pt', ...officerAct(db) }).id
  csv = linkFile(db, { name: 'visits csv', file: csvPath, personColumn: 'pt', ...officerAct(db) }).id
})

type Run = FormRun

/** The definition's counts through the two-pass form (when it runs) or through the single statement (a source without `numbers`). */
function run(id: number, def: ThresholdQueryDefinition, form: 'two-pass' | 'single', seed = 'duckdb-truncation'): Run {
  return runInForm(h.store.db, id, def, form, seed)
}

function sameBothWays(id: number, def: ThresholdQueryDefinition): Run {
  const a = run(id, def, 'two-pass')
  const b = run(id, def, 'single')
  expect(b.twoPass).toBe(false)
  expect(a.counts, JSON.stringify(def).slice(0, 300)).toEqual(b.counts)
  expect(a.thresholds).toEqual(b.thresholds)
  return a
}

function groupsDef(n: number, personColumn: string, maxGroups: number | undefined, extra: Partial<ThresholdQueryDefinition> = {}) {
  return groupsDefinition(n, personColumn, { cap: 2, ...(maxGroups !== undefined ? { maxGroups } : {}) }, extra)
}

const tablesLeft = () => Number(duckAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'qa_truncation%'`).rows[0][0])
const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0)

describe('maxGroups on a linked file in two passes: the counts of the single statement', { timeout: 120_000 }, () => {
  it('200 and 512 predicates (4 and 8 words), every person column type, m on both sides of the insertion bound', () => {
    for (const n of [200, 512]) {
      for (const person of ['pt', 'pi', 'pbig', 'pts', 'pr']) {
        for (const m of [1, 3, 17]) {
          const got = sameBothWays(parquet, groupsDef(n, person, m))
          expect(got.twoPass).toBe(true)
          // The bound bites: fewer counted than without it.
          expect(total(got.counts)).toBeLessThan(total(run(parquet, groupsDef(n, person, undefined), 'single').counts))
        }
      }
    }
    // The person past 2^53 is linked as text (exact), the others as their types.
    const ds = getDataset(h.store.db, parquet)
    expect(['pt', 'pi', 'pbig', 'pts', 'pr'].map((c) => findColumn(ds, c, 'c').type)).toEqual(['text', 'integer', 'text', 'timestamp', 'real'])
    expect(tablesLeft()).toBe(0)
  })

  it('predicate at the last index of a word and of the last word are counted', () => {
    // One predicate per boundary index, each person keeps up to 2: the boundary predicates hold counts in both forms.
    for (const n of [64, 65, 128, 129, 512]) {
      const got = sameBothWays(parquet, groupsDef(n, 'pt', 2))
      expect(got.twoPass).toBe(true)
      expect(got.counts[n - 1] + got.counts[Math.min(n - 1, 63)]).toBeGreaterThan(0)
    }
  })

  it('513 predicates (9 words): the single statement runs, with the same counts', () => {
    const got = run(parquet, groupsDef(513, 'pt', 3), 'two-pass')
    expect(got.twoPass).toBe(false)
    expect(got.counts).toEqual(run(parquet, groupsDef(513, 'pt', 3), 'single').counts)
  })

  it('duplicate predicate keys get the count of the first', () => {
    const groups = [[1000], [1063], [1064], [1000], [1127], [1128], [1064], [1511], ...Array.from({ length: 40 }, (_, i) => [1200 + i])]
    const def: ThresholdQueryDefinition = { ...groupsDef(0, 'pt', 2), groups }
    const ds = getDataset(h.store.db, parquet)
    expect(thresholdPredicates(h.store.db, ds, def).keys.length).toBe(groups.length)
    const got = sameBothWays(parquet, def)
    expect(got.twoPass).toBe(true)
    expect(got.counts[3]).toBe(got.counts[0])
    expect(got.counts[6]).toBe(got.counts[2])
  })

  it('reference threshold: persons in one period only, the kept set over both; hour and day buckets, max and mean', () => {
    for (const [bucket, aggregate] of [
      ['hour', 'max'],
      ['day', 'mean'],
      ['day', 'max']
    ] as const) {
      for (const person of ['pt', 'pbig']) {
        const def = groupsDef(300, person, 2, {
          period: { column: 'at', from: iso(START), to: iso(START + 2 * DAY) },
          threshold: { kind: 'reference', factor: 1.5, aggregate, bucket, column: 'at', from: iso(START + 2 * DAY), to: iso(START + 4 * DAY) }
        })
        const got = sameBothWays(parquet, def)
        expect(got.twoPass).toBe(true)
        expect(total(got.thresholds)).toBeGreaterThan(0)
      }
    }
  })

  it('time buckets as predicates (group by day of at and g)', () => {
    const days = [0, 1, 2, 3].map((d) => iso(START + d * DAY))
    const groups = days.flatMap((d) => BOUNDARIES.slice(0, 20).map((i) => [d, 1000 + i]))
    const def: ThresholdQueryDefinition = { ...groupsDef(0, 'pi', 3), groupBy: ['at', 'g'], groupByTime: { column: 'at', per: 'day' }, groups }
    const got = sameBothWays(parquet, def)
    expect(got.twoPass).toBe(true)
    expect(total(got.counts)).toBeGreaterThan(0)
  })

  it('the CSV link gives the same counts as the single statement', () => {
    for (const person of ['pt', 'pbig', 'pts']) expect(sameBothWays(csv, groupsDef(300, person, 3)).twoPass).toBe(true)
  })

  it('no row in the filter: every count 0 in both forms', () => {
    const got = sameBothWays(parquet, groupsDef(200, 'pt', 2, { filter: [{ column: 'g', op: '<', value: 0 }] }))
    expect(got.twoPass).toBe(true)
    expect(got.counts.every((c) => c === 0)).toBe(true)
  })

  it('persons read in pieces of 7 give the rows of one read', () => {
    const db = h.store.db
    const ds = getDataset(db, parquet)
    const src = sourceFor(db, ds)
    const def = groupsDef(300, 'pt', 3, {
      threshold: {
        kind: 'reference',
        factor: 1,
        aggregate: 'max',
        bucket: 'hour',
        column: 'at',
        from: iso(START + 2 * DAY),
        to: iso(START + 4 * DAY)
      }
    })
    const predicates = thresholdPredicates(db, ds, def).keys.map((k) => predicateStoredValues(['integer'], k))
    const t = { person: findColumn(ds, 'pt', 'p'), predicates, key: '0123456789abcdef0123456789abcdef', maxGroups: 3, cap: 2 }
    const d = src.dialect
    const where = whereOf(d, ds, def, null)
    const ref = whereOf(d, ds, def, { column: findColumn(ds, 'at', 'at'), from: START + 2 * DAY, to: START + 4 * DAY })
    const reads: number[] = []
    const numbers = (q: Sql) => {
      const cols = src.numbers!(q)
      reads.push(cols[0].length)
      return cols
    }
    const sorted = (rows: unknown[][] | null) => JSON.stringify([...(rows ?? [])].sort((a, b) => Number(a[0]) - Number(b[0])))
    const counting = {
      all: (q: Sql) => src.all(q),
      numbers,
      appendNumbers: (table: string, values: Float64Array) => src.appendNumbers!(table, values)
    }
    const one = twoPassTruncation(counting, d, ds, def, t, where, { where: ref, bucketMs: HOUR })!
    expect(reads).toEqual([PERSONS])
    reads.length = 0
    const pieces = twoPassTruncation(counting, d, ds, def, t, where, { where: ref, bucketMs: HOUR }, 7)!
    expect(reads).toEqual([...Array.from({ length: Math.floor(PERSONS / 7) }, () => 7), PERSONS % 7])
    expect(sorted(pieces.counts)).toBe(sorted(one.counts))
    expect(sorted(pieces.reference)).toBe(sorted(one.reference))
    expect(one.counts.length).toBeGreaterThan(0)
  })

  it('the temporary tables are dropped after a failure too, and the failure is the one raised', () => {
    const db = h.store.db
    const ds = getDataset(db, parquet)
    const src = sourceFor(db, ds)
    const failing: Source = {
      ...src,
      numbers: () => {
        throw new Error('read failed')
      }
    }
    const def = groupsDef(200, 'pt', 2)
    expect(() => thresholdCountsFrom(failing, ds, def, thresholdPredicates(db, ds, def), seededRng('x'))).toThrow('read failed')
    expect(tablesLeft()).toBe(0)
  })
})
