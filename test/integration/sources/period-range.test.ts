/**
 * `countsForPeriod` (datasets/period-range.ts): an alarm's hourly periods read from data that grows, held in the
 * workspace (imported, then `--append`), in a linked CSV file (DuckDB), a linked PostgreSQL table (a throwaway cluster)
 * and a linked ClickHouse table (a throwaway server). Each test is the failure it stops:
 * - a period's count that is not the rows of [from, to) on the time column (a row at `to` belongs to the next period);
 * - new rows not seen by the next period's read (a source read once and cached);
 * - column names that are SQL (quotes, a semicolon, a backquote) spliced into a query: the count would be wrong or the
 *   table dropped;
 * - a time column that does not hold timestamps accepted (a sentence instead, before anything is read).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ImportResult, ThresholdQueryDefinition } from '../../../src-main/contract/datasets'
import { getDataset } from '../../../src-main/services/catalog/catalog'
import { thresholdPredicates } from '../../../src-main/services/datasets/threshold-predicates'
import { checkThresholdDefinition } from '../../../src-main/services/datasets/query-definitions'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { linkPostgres } from '../../../src-main/services/datasets/link-postgres'
import { linkClickHouse } from '../../../src-main/services/datasets/link-clickhouse'
import { planAppend, runAppend } from '../../../src-main/services/datasets/append-dataset'
import { checkPeriodSource, countsForPeriod } from '../../../src-main/services/datasets/period-range'
import { closePg } from '../../../src-main/services/sources/pg-sync'
import { closeClickHouse } from '../../../src-main/services/sources/clickhouse-sync'
import { seededRng } from '../../../src-worker/engine/random'
import { type PgCluster, startPgCluster } from './pg-cluster'
import { CH_USER_PASSWORD, type ChCluster, startChCluster } from './ch-cluster'
import { officerAct } from '../officer-fixture'
import { type Harness, harness } from '../datasets/harness'

/** Column names that are SQL in every engine's quoting: a double quote, a single quote and a semicolon, a backquote. */
const ROOM = 'room"; DROP TABLE visits; --'
const WHO = "who'; DELETE FROM visits; --"
const AT = 'at`) OR 1=1 --'
const ROOMS = ['A', 'B', 'C']
const START = Date.UTC(2026, 0, 5, 0, 0, 0)
const HOUR = 3_600_000

interface Row {
  room: string
  who: number
  at: number
}

const sqlTime = (t: number) => new Date(t).toISOString().replace('T', ' ').slice(0, 19)
const csvName = (s: string) => `"${s.replace(/"/g, '""')}"`

/** Hours 0..5 (whole seconds: ClickHouse 18's DateTime): room A busy in hour 2, a row exactly at each hour's end (it is the next hour's). */
function firstRows(): Row[] {
  const rng = seededRng('period-range-rows')
  const rows: Row[] = []
  for (let h = 0; h < 6; h++) {
    for (let i = 0; i < 40; i++) {
      const room = h === 2 && i < 25 ? 'A' : ROOMS[Math.floor(rng.next() * 3)]
      rows.push({ room, who: Math.floor(rng.next() * 30), at: START + h * HOUR + Math.floor(rng.next() * 3600) * 1000 })
    }
    rows.push({ room: 'B', who: 99, at: START + (h + 1) * HOUR })
  }
  return rows
}

/** Hour 6 arrives later, with a late row for hour 2. */
function laterRows(): Row[] {
  const rows: Row[] = []
  for (let i = 0; i < 12; i++) rows.push({ room: 'C', who: i, at: START + 6 * HOUR + i * 60_000 })
  rows.push({ room: 'A', who: 7, at: START + 2 * HOUR + 5000 })
  return rows
}

/** Per room: the sum over persons of min(their rows in the hour, cap). */
function expected(rows: Row[], h: number, cap: number): number[] {
  const inHour = rows.filter((r) => r.at >= START + h * HOUR && r.at < START + (h + 1) * HOUR)
  return ROOMS.map((room) => {
    const per = new Map<number, number>()
    for (const r of inHour) if (r.room === room) per.set(r.who, (per.get(r.who) ?? 0) + 1)
    return [...per.values()].reduce((a, n) => a + Math.min(n, cap), 0)
  })
}

const csvLines = (rows: Row[]) => rows.map((r) => `${r.room},${r.who},${sqlTime(r.at)}`).join('\n') + '\n'

let h: Harness
let pg: PgCluster
let ch: ChCluster
const ids: Record<'imported' | 'csv' | 'postgres' | 'clickhouse', number> = { imported: 0, csv: 0, postgres: 0, clickhouse: 0 }
const savedPg = process.env.PGPASSWORD
const savedCh = process.env.CLICKHOUSE_PASSWORD
let csvPath = ''

beforeAll(async () => {
  h = harness()
  const db = h.store.db
  const rows = firstRows()
  const header = [ROOM, WHO, AT].map(csvName).join(',')
  const importPath = join(h.dir, 'visits.csv')
  writeFileSync(importPath, `${header}\n${csvLines(rows)}`)
  const job = await h.importAndWait({ path: importPath, name: 'visits', personColumn: WHO, types: { [WHO]: 'integer', [AT]: 'timestamp' } } as never)
  ids.imported = (job.result as ImportResult).dataset.id
  csvPath = join(h.dir, 'visits-linked.csv')
  writeFileSync(csvPath, `${header}\n${csvLines(rows)}`)
  ids.csv = linkFile(db, { name: 'visits csv', file: csvPath, personColumn: WHO, ...officerAct(db) }).id

  pg = await startPgCluster()
  const password = `pr-${process.pid}-${Date.now()}`
  await pg.createRole('qa_reader', password)
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`
  await pg.admin(`CREATE TABLE visits (${q(ROOM)} text, ${q(WHO)} bigint, ${q(AT)} timestamp)`)
  await pg.admin(`INSERT INTO visits SELECT * FROM unnest($1::text[], $2::bigint[], $3::timestamp[])`, [
    rows.map((r) => r.room),
    rows.map((r) => r.who),
    rows.map((r) => sqlTime(r.at))
  ])
  await pg.admin('GRANT SELECT ON visits TO qa_reader')
  process.env.PGPASSWORD = password
  ids.postgres = linkPostgres(db, { name: 'visits pg', url: pg.url('qa_reader'), table: 'public.visits', personColumn: WHO, ...officerAct(db) }).id

  ch = await startChCluster(1)
  const b = (s: string) => '`' + s.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`'
  await ch.admin(`CREATE TABLE visits (${b(ROOM)} String, ${b(WHO)} Int64, ${b(AT)} DateTime) ENGINE = MergeTree ORDER BY tuple()`)
  await chInsert(rows)
  process.env.CLICKHOUSE_PASSWORD = CH_USER_PASSWORD
  ids.clickhouse = linkClickHouse(db, { name: 'visits ch', url: ch.url('reader'), table: 'default.visits', personColumn: WHO, ...officerAct(db) }).id
}, 600_000)

afterAll(async () => {
  await closePg()
  await closeClickHouse()
  await pg?.destroy()
  ch?.destroy()
  if (savedPg === undefined) delete process.env.PGPASSWORD
  else process.env.PGPASSWORD = savedPg
  if (savedCh === undefined) delete process.env.CLICKHOUSE_PASSWORD
  else process.env.CLICKHOUSE_PASSWORD = savedCh
  h?.cleanup()
})

async function chInsert(rows: Row[]): Promise<void> {
  const json = rows.map((r) => JSON.stringify({ [ROOM]: r.room, [WHO]: r.who, [AT]: sqlTime(r.at) })).join('\n')
  await ch.admin(`INSERT INTO visits FORMAT JSONEachRow\n${json}`)
}

function definition(cap: number): ThresholdQueryDefinition {
  return {
    kind: 'threshold',
    groupBy: [ROOM],
    count: { kind: 'persons', personColumn: WHO, cap },
    threshold: { kind: 'constant', value: 20 },
    groups: ROOMS.map((r) => [r])
  } as ThresholdQueryDefinition
}

function counts(which: keyof typeof ids, hour: number, cap: number): number[] {
  const db = h.store.db
  const ds = getDataset(db, ids[which])
  const def = checkThresholdDefinition(db, ds, definition(cap) as unknown as Record<string, unknown>)
  const predicates = thresholdPredicates(db, ds, def)
  checkPeriodSource(db, ds)
  const range = { from: START + hour * HOUR, to: START + (hour + 1) * HOUR }
  return Array.from(countsForPeriod(db, ds, def, AT, range, predicates).counts)
}

const SOURCES = ['imported', 'csv', 'postgres', 'clickhouse'] as const

describe('countsForPeriod', () => {
  it('counts the rows of [from, to) on the time column in every engine, with column names that are SQL', () => {
    const rows = firstRows()
    for (const which of SOURCES) {
      for (let hour = 0; hour < 7; hour++) {
        expect(counts(which, hour, 1000), `${which} hour ${hour} rows`).toEqual(expected(rows, hour, 1000))
        expect(counts(which, hour, 1), `${which} hour ${hour} persons`).toEqual(expected(rows, hour, 1))
      }
    }
  })

  it('reads the rows that arrived since: the next period sees them in every engine', async () => {
    const db = h.store.db
    const more = laterRows()
    const appendPath = join(h.dir, 'later.csv')
    writeFileSync(appendPath, `${[ROOM, WHO, AT].map(csvName).join(',')}\n${csvLines(more)}`)
    await runAppend(db, planAppend(db, { datasetId: ids.imported, path: appendPath }))
    appendFileSync(csvPath, csvLines(more))
    await pg.admin(`INSERT INTO visits SELECT * FROM unnest($1::text[], $2::bigint[], $3::timestamp[])`, [
      more.map((r) => r.room),
      more.map((r) => r.who),
      more.map((r) => sqlTime(r.at))
    ])
    await chInsert(more)
    const all = [...firstRows(), ...more]
    for (const which of SOURCES) {
      expect(counts(which, 6, 1000), `${which} hour 6`).toEqual(expected(all, 6, 1000))
      // The source as it is now: the late row is in hour 2's rows (an alarm never evaluates hour 2 again: the core's rule).
      expect(counts(which, 2, 1000), `${which} hour 2`).toEqual(expected(all, 2, 1000))
    }
    // Nothing the column names say was run: every table still holds every row.
    expect(Number((await pg.admin('SELECT count(*) AS n FROM visits')).rows[0].n)).toBe(all.length)
    expect(Number((await ch.admin('SELECT count() FROM visits')).trim())).toBe(all.length)
  })

  it('refuses a time column that does not hold timestamps, and a range that is not [from, to), before reading anything', () => {
    const db = h.store.db
    const ds = getDataset(db, ids.postgres)
    const def = checkThresholdDefinition(db, ds, definition(1) as unknown as Record<string, unknown>)
    const predicates = thresholdPredicates(db, ds, def)
    expect(() => countsForPeriod(db, ds, def, WHO, { from: START, to: START + HOUR }, predicates)).toThrow(
      `The time column "${WHO}" of dataset "visits pg" must hold timestamps (it holds a whole number); an alarm's periods are ranges of time`
    )
    expect(() => countsForPeriod(db, ds, def, AT, { from: START + HOUR, to: START }, predicates)).toThrow(RangeError)
    expect(() => countsForPeriod(db, ds, def, 'nope', { from: START, to: START + HOUR }, predicates)).toThrow(/nope/)
  })
})
