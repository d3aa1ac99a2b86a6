/**
 * The same data held in SQLite (imported), in a Parquet file and in a CSV file (both linked, read by DuckDB),
 * in a PostgreSQL table (linked, a throwaway cluster: pg-cluster.ts; its rows inserted in the CSV's order) and in
 * ClickHouse (a throwaway 3-shard cluster, ch-cluster.ts): a local MergeTree table on one server, a
 * Distributed table sharded by the person (its per-person level runs on the shards) and one sharded by rand() (merged
 * on the initiator), gives identical true aggregates, for randomly generated definitions (seeded): filters, periods, group-by, caps,
 * maxGroups (the bound applied in each engine with the same key, drawn from a seeded generator: keyed-hash.ts), every
 * threshold kind, groups by hour, day or week of a time column; and the anomaly loaders (AIQ column values, the
 * search's per-individual max score). The Parquet file is written with DuckDB's COPY from the CSV. ClickHouse tables
 * have no row order: their anomaly-identification rows are compared as multisets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ImportResult, ThresholdQueryDefinition, FilterCondition } from '../../../src-main/contract/datasets'
import { getDataset } from '../../../src-main/services/catalog/catalog'
import { groupKey } from '../../../src-main/services/catalog/column-types'
import { timestampText } from '../../../src-main/contract/shown-values'
import { bucketStart } from '../../../src-main/contract/time-buckets'
import { findColumn, storedValueFor } from '../../../src-main/services/catalog/columns'
import { thresholdCounts, thresholdCountsFrom } from '../../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates, type PublicPredicates } from '../../../src-main/services/datasets/threshold-predicates'
import { loadAnomalyIdentificationData, loadAnomalySearchData } from '../../../src-main/services/datasets/anomaly-loaders'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { clickhouseSource, sourceFor } from '../../../src-main/services/sources/source'
import { checkClickHouseSource, chQuery, clickhouseConnectionAtUse, linkedClickHouseOf } from '../../../src-main/services/sources/linked-clickhouse'
import { duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { linkPostgres } from '../../../src-main/services/datasets/link-postgres'
import { closePg } from '../../../src-main/services/sources/pg-sync'
import { type PgCluster, startPgCluster } from './pg-cluster'
import { CH_USER_PASSWORD, type ChCluster, startChCluster } from './ch-cluster'
import { linkClickHouse } from '../../../src-main/services/datasets/link-clickhouse'
import { closeClickHouse } from '../../../src-main/services/sources/clickhouse-sync'
import { officerAct } from '../officer-fixture'
import { seededRng } from '../../../src-worker/engine/random'
import { createRequire } from 'node:module'
import type { StoredValue } from '../../../src-main/services/catalog/column-types'
import type { Source } from '../../../src-main/services/sources/source'
import { bindClickHouse, clickhouseDialect } from '../../../src-main/services/sources/dialect-clickhouse'
import { type Harness, harness } from '../datasets/harness'

const ROOMS = ['r1', 'r2', 'r3', "o'brien", 'r"5']
const KINDS = ['in', 'out', 'x, y', null]
const START = Date.UTC(2015, 0, 1)
const SPAN_MIN = 20 * 24 * 60

let h: Harness
let imported: number
let parquet: number
let csv: number
let rowLevelImported: number
let rowLevelParquet: number
let postgres: number
let rowLevelPostgres: number
let cluster: PgCluster | null = null
const savedPassword = process.env.PGPASSWORD
const savedChPassword = process.env.CLICKHOUSE_PASSWORD
let ch: ChCluster | null = null
/** ClickHouse: a local table (shard 1 alone), Distributed by person, Distributed by rand(); person-level and row-level. */
let chLocal: number
let chByPerson: number
let chRand: number
let rowLevelChLocal: number
let rowLevelChByPerson: number
/** Distributed by person over rows that were NOT inserted through it (the rand() shards' tables): its definition lies. */
let chLying: number
/** The fixture's rows as JSONEachRow for ClickHouse (also loaded into chdb when QA_CHDB is set). */
let chRowsJson = ''

function csvField(s: string | null): string {
  if (s === null) return ''
  return /[",\n']/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}
const iso = (t: number) => new Date(t).toISOString().replace('T', ' ').slice(0, 19)

beforeAll(async () => {
  h = harness()
  const rng = seededRng('sources-equivalence-data')
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng.next() * xs.length)]
  const lines = ['person,room,floor,kind,at,value']
  const rows: Array<Array<string | null>> = []
  for (let i = 0; i < 4000; i++) {
    const person = rng.next() < 0.02 ? null : String(Math.floor(rng.next() ** 2 * 40))
    const at = START + Math.floor(rng.next() * SPAN_MIN) * 60_000 - (rng.next() < 0.05 ? 40 * 86_400_000 : 0)
    const row = [person, pick(ROOMS), String(pick([1, 2, 3, -1])), pick(KINDS), iso(at), String(Math.round(rng.next() * 2000 - 500) / 10)]
    rows.push(row)
    lines.push(row.map(csvField).join(','))
  }
  const csvPath = join(h.dir, 'events.csv')
  writeFileSync(csvPath, lines.join('\n') + '\n')
  const types = { person: 'integer', room: 'text', floor: 'integer', kind: 'text', at: 'timestamp', value: 'real' } as const
  let job = await h.importAndWait({ path: csvPath, name: 'events', personColumn: 'person', types } as never)
  imported = (job.result as ImportResult).dataset.id
  job = await h.importAndWait({ path: csvPath, name: 'events rows', types } as never)
  rowLevelImported = (job.result as ImportResult).dataset.id
  const pq = join(h.dir, 'events.parquet')
  duckAll(
    `COPY (SELECT * FROM read_csv(${duckString(csvPath)}, header = true, auto_detect = false, ` +
      `columns = {'person': 'BIGINT', 'room': 'VARCHAR', 'floor': 'BIGINT', 'kind': 'VARCHAR', 'at': 'TIMESTAMP', 'value': 'DOUBLE'})) ` +
      `TO ${duckString(pq)} (FORMAT parquet, ROW_GROUP_SIZE 700)`
  )
  const db = h.store.db
  parquet = linkFile(db, { name: 'events parquet', file: pq, personColumn: 'person', ...officerAct(db) }).id
  rowLevelParquet = linkFile(db, { name: 'events parquet rows', file: pq, personColumn: null, ...officerAct(db) }).id
  csv = linkFile(db, { name: 'events csv', file: csvPath, personColumn: 'person', ...officerAct(db) }).id
  // The same rows in PostgreSQL, in the same order (a fresh table: physical order is insertion order).
  cluster = await startPgCluster()
  const password = `eq-${process.pid}-${Date.now()}`
  await cluster.createRole('qa_reader', password)
  await cluster.admin('CREATE TABLE events (person bigint, room text, floor integer, kind text, "at" timestamp, value double precision)')
  const col = (j: number) => rows.map((r) => r[j])
  await cluster.admin(
    'INSERT INTO events SELECT * FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[], $5::timestamp[], $6::float8[])',
    [0, 1, 2, 3, 4, 5].map(col)
  )
  await cluster.admin('ANALYZE events')
  await cluster.admin('GRANT SELECT ON events TO qa_reader')
  process.env.PGPASSWORD = password
  postgres = linkPostgres(db, {
    name: 'events pg',
    url: cluster.url('qa_reader'),
    table: 'public.events',
    personColumn: 'person',
    ...officerAct(db)
  }).id
  rowLevelPostgres = linkPostgres(db, {
    name: 'events pg rows',
    url: cluster.url('qa_reader'),
    table: 'events',
    personColumn: null,
    ...officerAct(db)
  }).id
  // The same rows in ClickHouse: one local table on shard 1, and two Distributed tables over 3 shards.
  ch = await startChCluster(3)
  const chColumns =
    '(person Nullable(Int64), room Nullable(String), floor Nullable(Int32), kind Nullable(String), at Nullable(DateTime), value Nullable(Float64))'
  await ch.admin(`CREATE TABLE events_one ${chColumns} ENGINE = MergeTree ORDER BY tuple()`)
  await ch.onEachShard(`CREATE TABLE events_p_local ${chColumns} ENGINE = MergeTree ORDER BY tuple()`)
  await ch.onEachShard(`CREATE TABLE events_r_local ${chColumns} ENGINE = MergeTree ORDER BY tuple()`)
  await ch.admin(
    `CREATE TABLE events_by_person AS events_p_local ENGINE = Distributed(${ch.name}, default, events_p_local, cityHash64(ifNull(person, -1)))`
  )
  await ch.admin(`CREATE TABLE events_rand AS events_r_local ENGINE = Distributed(${ch.name}, default, events_r_local, rand())`)
  await ch.admin(
    `CREATE TABLE events_lying AS events_r_local ENGINE = Distributed(${ch.name}, default, events_r_local, cityHash64(ifNull(person, -1)))`
  )
  const json = rows
    .map((r) =>
      JSON.stringify({
        person: r[0] === null ? null : Number(r[0]),
        room: r[1],
        floor: r[2] === null ? null : Number(r[2]),
        kind: r[3],
        at: r[4],
        value: r[5] === null ? null : Number(r[5])
      })
    )
    .join('\n')
  chRowsJson = json
  for (const t of ['events_one', 'events_by_person', 'events_rand']) await ch.admin(`INSERT INTO ${t} FORMAT JSONEachRow\n${json}`)
  process.env.CLICKHOUSE_PASSWORD = CH_USER_PASSWORD
  const chLink = (name: string, table: string, personColumn: string | null) =>
    linkClickHouse(db, { name, url: ch!.url('reader'), table, personColumn, ...officerAct(db) }).id
  chLocal = chLink('events ch', 'default.events_one', 'person')
  chByPerson = chLink('events ch dist', 'default.events_by_person', 'person')
  chRand = chLink('events ch rand', 'default.events_rand', 'person')
  rowLevelChLocal = chLink('events ch rows', 'default.events_one', null)
  rowLevelChByPerson = chLink('events ch dist rows', 'default.events_by_person', null)
  chLying = chLink('events ch lying', 'default.events_lying', 'person')
  // The set-up's limit: a PostgreSQL and two ClickHouse clusters, imports and links take minutes on a small or loaded
  // machine; limits here stop a hung engine and say nothing about speed (benchmarks do).
}, 600_000)
afterAll(async () => {
  await closePg()
  await closeClickHouse()
  await cluster?.destroy()
  ch?.destroy()
  if (savedPassword === undefined) delete process.env.PGPASSWORD
  else process.env.PGPASSWORD = savedPassword
  if (savedChPassword === undefined) delete process.env.CLICKHOUSE_PASSWORD
  else process.env.CLICKHOUSE_PASSWORD = savedChPassword
  h.cleanup()
})

function randomDefinition(seed: string): { def: ThresholdQueryDefinition; columnThresholds: boolean } {
  const rng = seededRng(seed)
  const r = () => rng.next()
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]
  const cols = ['room', 'floor', 'kind'].filter(() => r() < 0.6)
  // Group by hour, day or week of `at` in about a third (drawn from a generator of its own: the other draws stay as they were).
  const timeRng = seededRng(`${seed}-time`)
  const per = timeRng.next() < 0.35 ? (['hour', 'day', 'week'] as const)[Math.floor(timeRng.next() * 3)] : null
  const groupBy = [...(per ? ['at'] : []), ...(cols.length ? cols : [pick(['room', 'floor', 'kind'])])]
  const domain: Record<string, Array<string | number | null>> = {
    room: [...ROOMS, 'r9'],
    floor: [1, 2, 3, -1, 7],
    kind: [...KINDS.filter((k) => k !== null), 'none'],
    // Bucket starts over the rows' times (and the 40 days before, where a few rows lie), and an empty time.
    at: per
      ? [
          ...Array.from({ length: 10 }, () =>
            timestampText(bucketStart(START - 41 * 86_400_000 + Math.floor(timeRng.next() * 61 * 86_400_000), per))
          ),
          null
        ]
      : []
  }
  const seen = new Set<string>()
  const groups: Array<Array<string | number | null>> = []
  const want = 1 + Math.floor(r() * 14)
  for (let i = 0; i < want * 3 && groups.length < want; i++) {
    const g = groupBy.map((c) => pick(domain[c]))
    const k = JSON.stringify(g)
    if (!seen.has(k)) {
      seen.add(k)
      groups.push(g)
    }
  }
  const filter: FilterCondition[] = []
  const conditions: Array<() => FilterCondition> = [
    () => ({ column: 'floor', op: pick(['=', '!=', '<', '<=', '>', '>='] as const), value: pick([1, 2, 3, -1]) }),
    () => ({ column: 'kind', op: pick(['in', 'not in'] as const), value: KINDS.filter((k): k is string => k !== null && r() < 0.5) }),
    () => ({ column: 'kind', op: pick(['is null', 'is not null'] as const) }),
    () => ({ column: 'value', op: pick(['<', '>='] as const), value: Math.round(r() * 2000 - 500) / 10 }),
    () => ({ column: 'room', op: pick(['=', '!='] as const), value: pick(ROOMS) }),
    () => ({ column: 'at', op: pick(['<', '>'] as const), value: iso(START + Math.floor(r() * SPAN_MIN) * 60_000) })
  ]
  const nf = Math.floor(r() * 3)
  for (let i = 0; i < nf; i++) {
    const c = pick(conditions)()
    if (Array.isArray(c.value) && c.value.length === 0) continue
    filter.push(c)
  }
  const t0 = START + Math.floor(r() * SPAN_MIN) * 60_000 - (r() < 0.2 ? 45 * 86_400_000 : 0)
  const period = r() < 0.6 ? { column: 'at', from: iso(t0), to: iso(t0 + Math.floor(r() * 10 * 86_400_000) + 3_600_000) } : undefined
  const count: ThresholdQueryDefinition['count'] =
    r() < 0.3
      ? { kind: 'rows' }
      : { kind: 'persons', personColumn: 'person', cap: 1 + Math.floor(r() * 4), ...(r() < 0.6 ? { maxGroups: 1 + Math.floor(r() * 3) } : {}) }
  // A reference threshold compares a group with itself in another period: a time bucket has no rows there (refused).
  const tk = ((k) => (per && k === 'reference' ? 'constant' : k))(pick(['constant', 'reference', 'column'] as const))
  const r0 = START + Math.floor(r() * SPAN_MIN) * 60_000 - 30 * 60_000
  const threshold: ThresholdQueryDefinition['threshold'] =
    tk === 'reference'
      ? {
          kind: 'reference',
          factor: pick([0.5, 1, 2.5]),
          aggregate: pick(['max', 'mean'] as const),
          bucket: pick(['hour', 'day'] as const),
          column: 'at',
          from: iso(r0),
          to: iso(r0 + Math.floor(r() * 5 * 86_400_000) + 1)
        }
      : { kind: 'constant', value: 3 }
  const def: ThresholdQueryDefinition = {
    kind: 'threshold',
    groupBy,
    count,
    threshold,
    groups,
    ...(filter.length ? { filter } : {}),
    ...(period ? { period } : {}),
    ...(per ? { groupByTime: { column: 'at', per } } : {})
  }
  return { def, columnThresholds: tk === 'column' }
}

/** The public predicates of `def` (explicit groups); a column threshold's public table stood in for by fixed thresholds. */
function predicatesOf(datasetId: number, def: ThresholdQueryDefinition, columnThresholds: boolean): PublicPredicates {
  const db = h.store.db
  const ds = getDataset(db, datasetId)
  const p = thresholdPredicates(db, ds, def)
  if (columnThresholds) {
    // What a public threshold table gives: one public threshold per key (the counts are read the same way).
    return { ...p, thresholds: Float64Array.from(p.keys, (_, i) => (i * 7) % 11) }
  }
  return p
}

describe('linked files and PostgreSQL tables give the aggregates of the imported copy', { timeout: 300_000 }, () => {
  it('catalog: the linked datasets have the imported columns and types, and their kind', () => {
    const db = h.store.db
    const a = getDataset(db, imported).info
    const p = getDataset(db, postgres).info
    expect(p.columns.map((c) => [c.name, c.type])).toEqual(a.columns.map((c) => [c.name, c.type]))
    expect(p.source).toBe('linked-postgres')
    expect(sourceFor(db, getDataset(db, postgres)).dialect.engine).toBe('postgres')
    for (const id of [parquet, csv]) {
      const b = getDataset(db, id).info
      expect(b.columns.map((c) => [c.name, c.type])).toEqual(a.columns.map((c) => [c.name, c.type]))
      expect(b.rowCount).toBe(a.rowCount)
      expect(b.unit).toEqual({ kind: 'person', column: 'person' })
      expect(sourceFor(db, getDataset(db, id)).dialect.engine).toBe('duckdb')
    }
    expect(sourceFor(db, getDataset(db, imported)).dialect.engine).toBe('sqlite')
    for (const id of [chLocal, chByPerson, chRand]) {
      const c = getDataset(db, id).info
      expect(c.columns.map((x) => [x.name, x.type])).toEqual(a.columns.map((x) => [x.name, x.type]))
      expect(c.source).toBe('linked-clickhouse')
      expect(c.rowCount).toBe(0)
      expect(sourceFor(db, getDataset(db, id)).dialect.engine).toBe('clickhouse')
    }
  })

  // Seven engines and tables per definition: minutes on a loaded machine.
  const N = 150
  it(`${N} random threshold definitions: identical counts and thresholds (SQLite, Parquet, CSV, PostgreSQL, ClickHouse local / by person / by rand(); maxGroups with one key in all engines)`, () => {
    const db = h.store.db
    let nonZero = 0
    let truncated = 0
    let bucketsCounted = 0
    const kinds = new Set<string>()
    for (let i = 0; i < N; i++) {
      const { def, columnThresholds } = randomDefinition(`def-${i}`)
      kinds.add(columnThresholds ? 'column' : def.threshold.kind)
      if (def.count.kind === 'persons' && def.count.maxGroups !== undefined) kinds.add('maxGroups')
      if (def.groupByTime) {
        kinds.add(`${def.groupByTime.per}${def.count.kind === 'persons' && def.count.maxGroups !== undefined ? ' maxGroups' : ''}`)
        kinds.add('groupByTime')
      }
      const run = (id: number) => {
        const ds = getDataset(db, id)
        const p = predicatesOf(id, def, columnThresholds)
        const r = thresholdCounts(db, ds, def, p, seededRng(`truncate-${i}`))
        return { keys: p.keys, counts: [...r.counts], thresholds: [...r.thresholds] }
      }
      const a = run(imported)
      if (a.counts.some((c) => c > 0)) nonZero++
      if (def.groupByTime && a.counts.some((c) => c > 0)) bucketsCounted++
      if (def.count.kind === 'persons' && def.count.maxGroups !== undefined) {
        // The bound bites in some definitions (the same key in every engine: the seeded generator's first words).
        const { maxGroups: _, ...unbounded } = def.count
        const ds = getDataset(db, imported)
        const whole = thresholdCounts(db, ds, { ...def, count: unbounded }, predicatesOf(imported, def, columnThresholds))
        if (whole.counts.some((c, j) => c !== a.counts[j]) || whole.thresholds.some((t, j) => t !== a.thresholds[j])) truncated++
      }
      expect(run(parquet), JSON.stringify(def)).toEqual(a)
      expect(run(csv), JSON.stringify(def)).toEqual(a)
      expect(run(postgres), JSON.stringify(def)).toEqual(a)
      expect(run(chLocal), JSON.stringify(def)).toEqual(a)
      expect(run(chByPerson), JSON.stringify(def)).toEqual(a)
      expect(run(chRand), JSON.stringify(def)).toEqual(a)
      if (def.count.kind === 'rows') {
        const rl = run(rowLevelImported)
        expect(run(rowLevelParquet), JSON.stringify(def)).toEqual(rl)
        expect(run(rowLevelPostgres), JSON.stringify(def)).toEqual(rl)
        expect(run(rowLevelChByPerson), JSON.stringify(def)).toEqual(rl)
      }
    }
    // The generator exercises what it should (not a vacuous comparison of zeros).
    expect(nonZero).toBeGreaterThan(N / 2)
    // Buckets that hold rows are compared, not only empty ones.
    expect(bucketsCounted).toBeGreaterThan(N / 10)
    expect(truncated).toBeGreaterThan(N / 10)
    for (const k of ['column', 'constant', 'maxGroups', 'reference', 'groupByTime', 'hour', 'day', 'week']) expect(kinds).toContain(k)
    expect([...kinds].some((k) => k.endsWith(' maxGroups'))).toBe(true)
  }, 600_000)

  it('maxGroups with text, real and timestamp person columns: identical counts (row-level copies: SQLite, Parquet, PostgreSQL, ClickHouse local and by person)', () => {
    const db = h.store.db
    const groups: Array<Array<string | number>> = []
    for (const f of [1, 2, 3, -1, 7]) for (const k of ['in', 'out', 'x, y', 'none']) groups.push([f, k])
    let bites = 0
    for (const personColumn of ['room', 'value', 'at']) {
      for (let j = 0; j < 12; j++) {
        const rng = seededRng(`person-${personColumn}-${j}`)
        const r = () => rng.next()
        const t0 = START + Math.floor(r() * SPAN_MIN) * 60_000
        const def: ThresholdQueryDefinition = {
          kind: 'threshold',
          groupBy: ['floor', 'kind'],
          count: { kind: 'persons', personColumn, cap: 1 + Math.floor(r() * 3), maxGroups: 1 + Math.floor(r() * 3) },
          threshold:
            r() < 0.5
              ? { kind: 'constant', value: 2 }
              : {
                  kind: 'reference',
                  factor: 1,
                  aggregate: r() < 0.5 ? 'max' : 'mean',
                  bucket: 'day',
                  column: 'at',
                  from: iso(t0 - 5 * 86_400_000),
                  to: iso(t0)
                },
          groups,
          ...(r() < 0.5 ? { period: { column: 'at', from: iso(t0), to: iso(t0 + 4 * 86_400_000) } } : {})
        }
        const run = (id: number) => {
          const r2 = thresholdCounts(db, getDataset(db, id), def, predicatesOf(id, def, false), seededRng(`key-${personColumn}-${j}`))
          return { counts: [...r2.counts], thresholds: [...r2.thresholds] }
        }
        const a = run(rowLevelImported)
        expect(run(rowLevelParquet), JSON.stringify(def)).toEqual(a)
        expect(run(rowLevelPostgres), JSON.stringify(def)).toEqual(a)
        expect(run(rowLevelChLocal), JSON.stringify(def)).toEqual(a)
        expect(run(rowLevelChByPerson), JSON.stringify(def)).toEqual(a)
        const { maxGroups: _, ...unbounded } = def.count as { kind: 'persons'; personColumn: string; cap: number; maxGroups: number }
        const whole = thresholdCounts(db, getDataset(db, rowLevelImported), { ...def, count: unbounded }, predicatesOf(rowLevelImported, def, false))
        if (whole.counts.some((c, i) => c !== a.counts[i])) bites++
      }
    }
    expect(bites).toBeGreaterThan(12)
  }, 600_000)

  it('anomaly identification columns (with persons) and search scores are identical', () => {
    const db = h.store.db
    for (const [cols, widths] of [
      [
        ['floor', 'value'],
        [1, 10]
      ],
      [
        ['room', 'kind', 'at'],
        [null, null, 3_600_000]
      ]
    ] as const) {
      const out = [imported, parquet, csv, postgres, chLocal, chByPerson, chRand].map((id) => {
        const q = saveQuery(db, id, `aiq ${cols.join('+')}`, {
          kind: 'anomaly-identification',
          columns: cols,
          binWidths: widths,
          metric: 'l1',
          radius: 1,
          beta: 2,
          k: 1
        })
        const d = loadAnomalyIdentificationData({ db }, q.id)
        return {
          columns: d.columns.map((c) => ({ ...c, values: [...c.values] })),
          rowCount: d.rowCount,
          skippedRows: d.skippedRows,
          persons: d.persons
        }
      })
      expect(out[0].rowCount).toBeGreaterThan(1000)
      for (const o of out.slice(1, 4)) expect(o).toEqual(out[0])
      // ClickHouse: the same rows (values and person together), in the table's own order.
      const asRows = (o: (typeof out)[number]) => ({
        rows: o.persons!.map((p, r) => JSON.stringify([p, ...o.columns.map((c) => c.values[r])])).sort(),
        columns: o.columns.map((c) => ({ ...c, values: [] })),
        rowCount: o.rowCount,
        skippedRows: o.skippedRows
      })
      for (const o of out.slice(4)) expect(asRows(o)).toEqual(asRows(out[0]))
    }
    for (const [idColumn, score] of [
      ['person', 'value'],
      ['room', 'floor']
    ]) {
      const individuals = idColumn === 'person' ? ['0', '1', '5', '39', '1000'] : [...ROOMS, 'r9']
      // A person-level dataset's search is over its persons; the room search runs on the row-level copies.
      const ids =
        idColumn === 'person'
          ? [imported, parquet, csv, postgres, chLocal, chByPerson, chRand]
          : [rowLevelImported, rowLevelParquet, rowLevelParquet, rowLevelPostgres, rowLevelChLocal, rowLevelChByPerson, rowLevelChByPerson]
      const out = ids.map((id) => {
        const q = saveQuery(db, id, `search ${idColumn}`, {
          kind: 'anomaly-search',
          scoreColumn: score,
          idColumn,
          individuals,
          scoreFloor: 0,
          tLow: 100,
          tHigh: 150,
          epsilonPerQuery: 0.5,
          budget: 2,
          oracle: 'rr'
        })
        const d = loadAnomalySearchData({ db }, q.id)
        return { ids: d.ids, scores: [...d.scores] }
      })
      for (const o of out.slice(1)) expect(o).toEqual(out[0])
    }
  })

  it('ClickHouse sharding: the per-shard per-person stage only when sharded by the person; on rand() it would overcount (the trap), so merge mode', () => {
    const db = h.store.db
    const mode = (id: number) => checkClickHouseSource(linkedClickHouseOf(db, id)!).sharding
    expect([mode(chLocal), mode(chByPerson), mode(chRand), mode(chLying)]).toEqual(['local', 'per-shard', 'merge', 'per-shard'])
    // Person counts with a cap of 1: a person whose rows lie on several shards, read per shard, counts once per shard.
    const defs: ThresholdQueryDefinition[] = [undefined, 2].map((maxGroups) => ({
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 1, ...(maxGroups ? { maxGroups } : {}) },
      threshold: { kind: 'constant', value: 1 },
      groups: ROOMS.map((r) => [r])
    }))
    for (const def of defs) {
      const counts = (id: number, perShard?: boolean) => {
        const ds = getDataset(db, id)
        const rec = linkedClickHouseOf(db, id)!
        const product = clickhouseSource(rec)
        // The trap: the per-person level forced to run per shard whatever the sharding key.
        const src = perShard
          ? {
              ...product,
              all: (q: { sql: string; params: Array<string | number | null>; perPerson?: boolean }) =>
                chQuery(
                  clickhouseConnectionAtUse(rec.url, rec.passwordEnv),
                  q.sql,
                  q.params,
                  q.perPerson ? { distributed_group_by_no_merge: '1' } : {}
                ).rows
            }
          : product
        return [...thresholdCountsFrom(src, ds, def, predicatesOf(id, def, false), seededRng('trap')).counts]
      }
      const exact = [...thresholdCounts(db, getDataset(db, imported), def, predicatesOf(imported, def, false), seededRng('trap')).counts]
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
      expect(counts(chRand), JSON.stringify(def)).toEqual(exact)
      expect(counts(chByPerson, true)).toEqual(exact)
      const trapped = counts(chRand, true)
      // Persons appear on about 2.9 of the 3 shards: far more than the true count, never less in any group.
      expect(sum(trapped)).toBeGreaterThan(2 * sum(exact))
      for (let i = 0; i < exact.length; i++)
        if (def.count.kind === 'persons' && !def.count.maxGroups) expect(trapped[i]).toBeGreaterThanOrEqual(exact[i])
      // A definition that says "by person" over rows that went to the shards another way is believed (README: rows must
      // reach the shards through the Distributed table): the same overcount, the deployment's to prevent.
      expect(counts(chLying)).toEqual(trapped)
    }
  })

  it('group keys of a linked file are the imported keys (timestamps, text with quotes, negative numbers)', () => {
    const db = h.store.db
    const keys = (id: number) => {
      const ds = getDataset(db, id)
      const cols = ['room', 'floor', 'at'].map((c) => findColumn(ds, c, 'column'))
      const src = sourceFor(db, ds)
      const d = src.dialect
      const sql = `SELECT ${cols.map((c) => d.column(ds, c)).join(', ')} FROM ${d.relation(ds)} ${d.fileOrder(ds)}`
      return src.all({ sql, params: [] }).map((r) =>
        groupKey(
          cols.map((c) => c.type),
          r
        )
      )
    }
    const a = keys(imported)
    expect(keys(parquet)).toEqual(a)
    expect(keys(csv)).toEqual(a)
    expect(keys(postgres)).toEqual(a)
    for (const id of [chLocal, chByPerson, chRand]) expect(keys(id).sort()).toEqual([...a].sort())
    const ds = getDataset(db, parquet)
    expect(storedValueFor(findColumn(ds, 'at', 'c'), '2015-01-01 00:00:00', 'x')).toBe(START)
  })
})

/**
 * Current ClickHouse (26.x) through `chdb`, the in-process engine, when QA_CHDB names its package directory (it is not a
 * dependency: 543 MB unpacked, too heavy for CI; `npm install chdb` in a scratch directory). The same dialect's SQL,
 * with values as query parameters (what a current server gets) and as literals (what 18.16 gets), on the same rows in
 * a MergeTree table, gives SQLite's aggregates for the same random definitions.
 */
describe.skipIf(!process.env.QA_CHDB)('current ClickHouse (chdb, QA_CHDB)', () => {
  it('the 150 definitions: parameters and literals both give the counts of the imported copy', () => {
    const chdb = createRequire(import.meta.url)(process.env.QA_CHDB!) as {
      Session: new () => {
        query(sql: string, format?: string): string
        queryBind(sql: string, args: object, format?: string): string
        cleanup(): void
      }
    }
    const session = new chdb.Session()
    try {
      session.query(
        'CREATE TABLE events_one (person Nullable(Int64), room Nullable(String), floor Nullable(Int32), kind Nullable(String), at Nullable(DateTime), value Nullable(Float64)) ENGINE = MergeTree ORDER BY tuple()'
      )
      session.query(`INSERT INTO events_one FORMAT JSONEachRow\n${chRowsJson}`)
      const db = h.store.db
      const rec = linkedClickHouseOf(db, chLocal)!
      const settings = ' SETTINGS output_format_json_quote_64bit_integers = 0, output_format_json_quote_denormals = 1'
      const via = (useParameters: boolean): Source => ({
        dialect: clickhouseDialect({ ...rec, database: 'default', table: 'events_one' }),
        linked: null,
        all: (q) => {
          const b = bindClickHouse(q.sql, q.params as StoredValue[], useParameters)
          const out = b.queryParams
            ? session.queryBind(b.sql + settings, b.queryParams, 'JSONCompact')
            : session.query(b.sql + settings, 'JSONCompact')
          return (JSON.parse(out) as { data: unknown[][] }).data
        }
      })
      let truncated = 0
      for (let i = 0; i < 150; i++) {
        const { def, columnThresholds } = randomDefinition(`def-${i}`)
        if (def.count.kind === 'persons' && def.count.maxGroups !== undefined) truncated++
        const p = predicatesOf(imported, def, columnThresholds)
        const expected = thresholdCounts(db, getDataset(db, imported), def, p, seededRng(`truncate-${i}`))
        for (const useParameters of [true, false]) {
          const got = thresholdCountsFrom(
            via(useParameters),
            getDataset(db, chLocal),
            def,
            predicatesOf(chLocal, def, columnThresholds),
            seededRng(`truncate-${i}`)
          )
          expect(
            { counts: [...got.counts], thresholds: [...got.thresholds] },
            `${useParameters ? 'parameters' : 'literals'}: ${JSON.stringify(def)}`
          ).toEqual({
            counts: [...expected.counts],
            thresholds: [...expected.thresholds]
          })
        }
      }
      expect(truncated).toBeGreaterThan(30)
    } finally {
      session.cleanup()
    }
  }, 300_000)
})
