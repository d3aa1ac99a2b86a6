/**
 * No failure after the charge may depend on the data (ALGORITHMS.md section 5): a release that fails
 * for one person and is answered for another tells, at unbounded epsilon, a bit about that person's row. The attack,
 * in every engine: the same question filtered on one person ("alice", whose value cannot be counted: a bigint beyond
 * 2^53, an infinite or far-future timestamp, a numeric beyond a double, a CSV value that no longer parses, a date beyond
 * every timestamp, a 64-bit person id beyond 2^53) and on another ("bob", ordinary values). Before the fix alice's
 * release was "charged but not answered" and bob's answered; now such a value reads as NULL, decided from the declared
 * type, and both are answered.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FilterCondition, QueryDefinition } from '../../../src-main/contract/datasets'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import type { Store } from '../../../src-main/services/platform/handler-types'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { linkPostgres } from '../../../src-main/services/datasets/link-postgres'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { linkClickHouse } from '../../../src-main/services/datasets/link-clickhouse'
import { loadAnomalyIdentificationData } from '../../../src-main/services/datasets/anomaly-loaders'
import { closePg } from '../../../src-main/services/sources/pg-sync'
import { closeClickHouse } from '../../../src-main/services/sources/clickhouse-sync'
import { duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { tempWorkspace } from '../helpers'
import { chargeCount, closeLedgerWorkspace, craftDataset, openLedgerWorkspace, saveQuery } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { type PgCluster, startPgCluster } from '../sources/pg-cluster'
import { CH_USER_PASSWORD, type ChCluster, startChCluster } from '../sources/ch-cluster'

const PG_PASSWORD = `nf-${process.pid}-pw`
const saved = { PGPASSWORD: process.env.PGPASSWORD, CLICKHOUSE_PASSWORD: process.env.CLICKHOUSE_PASSWORD }
let pg: PgCluster
let ch: ChCluster
let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

beforeAll(async () => {
  pg = await startPgCluster()
  await pg.createRole('qa_reader', PG_PASSWORD)
  await pg.admin('CREATE TABLE tokens (person text, room text, token bigint, seen timestamp, day date, amount numeric)')
  await pg.admin(`INSERT INTO tokens VALUES
    ('alice', 'R1', 1152921504606846976, 'infinity', '280000-01-01', 1e400), ('alice', 'R2', 1152921504606846976, '-infinity', 'infinity', 'NaN'),
    ('bob', 'R1', 5, '2015-01-01 10:00:00', '2015-01-01', 1.5), ('bob', 'R2', 6, '2015-01-02 10:00:00', '2015-01-02', 2.5)`)
  await pg.admin('GRANT SELECT ON tokens TO qa_reader')
  ch = await startChCluster(1)
  await ch.admin('CREATE TABLE tokens (person Int64, room String, token Int64, score Float64) ENGINE = MergeTree ORDER BY tuple()')
  // Two persons beyond 2^53 (one JS number for both), two ordinary ones.
  await ch.admin(`INSERT INTO tokens VALUES (1152921504606846977, 'R1', 1152921504606846977, nan), (1152921504606846978, 'R1', 7, 1),
    (1152921504606846977, 'R2', 3, 2), (5, 'R1', 5, 1), (6, 'R2', 6, 2), (6, 'R1', 6, 3)`)
}, 120_000)
afterAll(async () => {
  await closePg()
  await closeClickHouse()
  await pg?.destroy()
  ch?.destroy()
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
})
beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-no-failure-'))
  process.env.PGPASSWORD = PG_PASSWORD
  process.env.CLICKHOUSE_PASSWORD = CH_USER_PASSWORD
})
afterEach(() => closeLedgerWorkspace(store, ws))

const tslm: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 10 }

/** Releases `definitions(person)` for each person: what each release says (answered, or its failure sentence). */
async function outcomes(datasetId: number, persons: string[], definitions: (person: string) => Array<[QueryDefinition, ReleaseParams]>) {
  await h['budgets/set']({ datasetId, epsilon: '100', reason: 'test', ...officerAct(store.db) })
  const out: Record<string, string[]> = {}
  for (const p of persons) {
    out[p] = []
    for (const [i, [def, params]] of definitions(p).entries()) {
      const q = saveQuery(store.db, datasetId, `q ${p} ${i}`, def)
      try {
        out[p].push(`answered ${(await h['releases/run']({ queryId: q, params })).answer!.kind}`)
      } catch (e) {
        out[p].push((e as Error).message)
      }
    }
  }
  return out
}

const rooms = [['R1'], ['R2']]
function rowsQuery(filter: FilterCondition[], groupBy = ['room'], groups: Array<Array<string | number>> = rooms): QueryDefinition {
  return { kind: 'threshold', groupBy, filter, count: { kind: 'rows' }, threshold: { kind: 'constant', value: 1 }, groups }
}

describe('no release fails after its charge because of a value', () => {
  it('PostgreSQL: a bigint beyond 2^53, an infinite or far-future timestamp or date, a numeric beyond a double (the bigint guard fired for alice only)', async () => {
    const ds = linkPostgres(store.db, {
      name: 'tokens',
      url: pg.url('qa_reader'),
      table: 'public.tokens',
      personColumn: null,
      ...officerAct(store.db)
    }).id
    const out = await outcomes(ds, ['alice', 'bob'], (p) => [
      [
        rowsQuery([
          { column: 'person', op: '=', value: p },
          { column: 'token', op: '>', value: 0 }
        ]),
        tslm
      ],
      [
        rowsQuery([
          { column: 'person', op: '=', value: p },
          { column: 'amount', op: '>', value: 0 }
        ]),
        tslm
      ],
      // Grouped by the timestamp and the date: their values come back as keys.
      [rowsQuery([{ column: 'person', op: '=', value: p }], ['seen'], [['2015-01-01 10:00:00']]), tslm],
      [rowsQuery([{ column: 'person', op: '=', value: p }], ['day'], [['2015-01-01']]), tslm],
      [
        { kind: 'anomaly-identification', columns: ['token'], binWidths: [1000], metric: 'l1', radius: 0, maxNeighbours: 2, k: 1, records: [[5]] },
        { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1 }
      ]
    ])
    expect(out).toEqual({
      alice: Array(5).fill('answered threshold').fill('answered anomaly-identification', 4),
      bob: Array(5).fill('answered threshold').fill('answered anomaly-identification', 4)
    })
  })

  it('DuckDB: a CSV value that no longer parses as its column (the file rewritten under the same header), a Parquet date beyond every timestamp', async () => {
    const csv = join(ws.dir, 'tokens.csv')
    writeFileSync(csv, 'person,room,token\nalice,R1,7\nbob,R1,5\nbob,R2,6\n')
    const csvDs = linkFile(store.db, { name: 'tokens csv', file: csv, personColumn: null, ...officerAct(store.db) }).id
    // The data owner's next export: alice's token is no number any more.
    writeFileSync(csv, 'person,room,token\nalice,R1,abc\nbob,R1,5\nbob,R2,6\n')
    const pq = join(ws.dir, 'tokens.parquet')
    duckAll(
      `COPY (SELECT * FROM (VALUES ('alice', 'R1', DATE '300000-01-01'), ('bob', 'R1', DATE '2015-01-01'), ('bob', 'R2', DATE '2015-01-02')) AS t(person, room, day)) TO ${duckString(pq)} (FORMAT parquet)`
    )
    const pqDs = linkFile(store.db, { name: 'tokens parquet', file: pq, personColumn: null, ...officerAct(store.db) }).id
    const csvOut = await outcomes(csvDs, ['alice', 'bob'], (p) => [
      [
        rowsQuery([
          { column: 'person', op: '=', value: p },
          { column: 'token', op: '>', value: 0 }
        ]),
        tslm
      ]
    ])
    const pqOut = await outcomes(pqDs, ['alice', 'bob'], (p) => [
      [rowsQuery([{ column: 'person', op: '=', value: p }], ['day'], [['2015-01-01']]), tslm]
    ])
    expect({ csvOut, pqOut }).toEqual({
      csvOut: { alice: ['answered threshold'], bob: ['answered threshold'] },
      pqOut: { alice: ['answered threshold'], bob: ['answered threshold'] }
    })
  })

  it('SQLite: a timestamp written around the import beyond JavaScript dates (the group key could not be shown for alice)', async () => {
    const ds = craftDataset(
      store.db,
      'crafted',
      [
        { name: 'person', type: 'text' },
        { name: 'seen', type: 'timestamp' }
      ],
      [
        ['alice', 9e15],
        ['bob', Date.UTC(2015, 0, 1, 10)]
      ]
    )
    const out = await outcomes(ds, ['alice', 'bob'], (p) => [
      [rowsQuery([{ column: 'person', op: '=', value: p }], ['seen'], [['2015-01-01 10:00:00']]), tslm]
    ])
    expect(out).toEqual({ alice: ['answered threshold'], bob: ['answered threshold'] })
  })

  it('ClickHouse: an Int64 beyond 2^53 never comes back as a JS number (two persons would become one) and a NaN is empty', async () => {
    const ds = linkClickHouse(store.db, {
      name: 'tokens',
      url: ch.url('reader'),
      table: 'default.tokens',
      personColumn: 'person',
      ...officerAct(store.db)
    }).id
    const q = saveQuery(store.db, ds, 'aiq', {
      kind: 'anomaly-identification',
      columns: ['token', 'score'],
      binWidths: [1, 1],
      metric: 'l1',
      radius: 0,
      maxNeighbours: 2,
      k: 1,
      records: [[5, 1]]
    })
    const d = loadAnomalyIdentificationData({ db: store.db }, q)
    // The rows of persons beyond 2^53 are left out (an empty person), as the row whose token is beyond 2^53 or score NaN.
    expect(d.persons!.every((p) => Number.isSafeInteger(p))).toBe(true)
    expect(d.rowCount).toBe(3)
    expect(d.columns[0].values).not.toContain(1152921504606846976)
    const out = await outcomes(ds, ['5', '1152921504606846977'], (p) => [
      [
        {
          kind: 'threshold',
          groupBy: ['room'],
          filter: [{ column: 'token', op: '>', value: Number(p) > 9e15 ? 0 : 1 }],
          count: { kind: 'persons', personColumn: 'person', cap: 1 },
          threshold: { kind: 'constant', value: 1 },
          groups: rooms
        },
        tslm
      ]
    ])
    expect(out).toEqual({ '5': ['answered threshold'], '1152921504606846977': ['answered threshold'] })
  })
})

/** The question of the attack: rows of `person` whose token is positive, by room. */
const tokenQuestion = (p: string): Array<[QueryDefinition, ReleaseParams]> => [
  [
    rowsQuery([
      { column: 'person', op: '=', value: p },
      { column: 'token', op: '>', value: 0 }
    ]),
    tslm
  ]
]

describe('a relation whose values are computed when read is refused when linked and before every charge', () => {
  // alice's code is no number: an expression reading it as one fails on her row only, when her row is read.
  it('PostgreSQL: a view whose cast fails on one row, a table replaced by such a view, a foreign table or partition, row-level security', async () => {
    await pg.admin('CREATE TABLE raw (person text, room text, code text)')
    await pg.admin(`INSERT INTO raw VALUES ('alice', 'R1', 'abc'), ('bob', 'R1', '5'), ('bob', 'R2', '6')`)
    await pg.admin('CREATE VIEW coded AS SELECT person, room, CAST(code AS bigint) AS token FROM raw')
    await pg.admin('CREATE TABLE swapped (person text, room text, token bigint)')
    await pg.admin(`INSERT INTO swapped VALUES ('alice', 'R1', 7), ('bob', 'R1', 5), ('bob', 'R2', 6)`)
    await pg.admin(`CREATE MATERIALIZED VIEW stored AS SELECT person, room, CAST(NULLIF(code, 'abc') AS bigint) AS token FROM raw`)
    await pg.admin('CREATE TABLE generated (person text, room text, token bigint GENERATED ALWAYS AS (length(room)) STORED)')
    const csvDir = mkdtempSync(join(tmpdir(), 'qa-fdw-'))
    chmodSync(csvDir, 0o755)
    const csv = join(csvDir, 'r2.csv')
    writeFileSync(csv, 'alice,R2,abc\nbob,R2,6\n')
    chmodSync(csv, 0o644)
    await pg.admin('CREATE EXTENSION file_fdw')
    await pg.admin('CREATE SERVER files FOREIGN DATA WRAPPER file_fdw')
    await pg.admin(`CREATE FOREIGN TABLE exported (person text, room text, token bigint) SERVER files OPTIONS (filename '${csv}', format 'csv')`)
    await pg.admin('CREATE TABLE parted (person text, room text, token bigint) PARTITION BY LIST (room)')
    await pg.admin(`CREATE TABLE parted_r1 PARTITION OF parted FOR VALUES IN ('R1')`)
    await pg.admin('CREATE TABLE local_parted (person text, room text, token bigint) PARTITION BY LIST (room)')
    await pg.admin(`CREATE TABLE local_parted_r1 PARTITION OF local_parted FOR VALUES IN ('R1')`)
    await pg.admin(`CREATE FOREIGN TABLE parted_r2 PARTITION OF parted FOR VALUES IN ('R2') SERVER files OPTIONS (filename '${csv}', format 'csv')`)
    await pg.admin('CREATE TABLE guarded (person text, room text, token bigint, code text)')
    await pg.admin(`INSERT INTO guarded VALUES ('alice', 'R1', 7, 'abc'), ('bob', 'R1', 5, '5'), ('bob', 'R2', 6, '6')`)
    await pg.admin('CREATE POLICY numbered ON guarded FOR SELECT USING (CAST(code AS bigint) > 0)')
    await pg.admin('GRANT SELECT ON raw, coded, swapped, stored, generated, exported, parted, local_parted, guarded TO qa_reader')
    const link = (table: string) =>
      linkPostgres(store.db, { name: table, url: pg.url('qa_reader'), table, personColumn: null, ...officerAct(store.db) }).id
    try {
      expect(() => link('public.coded')).toThrow(
        /^"public"\."coded" is a view: its values are computed each time it is read, .*; link the table it reads, or a materialized view of it$/
      )
      expect(() => link('public.exported')).toThrow(
        /^"public"\."exported" is a foreign table: .*; link a local copy \(a table or a materialized view\)$/
      )
      expect(() => link('public.parted')).toThrow(/^"public"\."parted" has a foreign table among its partitions or child tables: /)
      // Stored values link: a materialized view, a partitioned table of tables, a STORED generated column, a table (its
      // row-level security not enabled yet).
      for (const t of ['public.stored', 'public.local_parted', 'public.generated']) expect(link(t)).toBeGreaterThan(0)
      const guarded = link('public.guarded')
      const swapped = link('public.swapped')
      // After linking: the table is replaced by a view of the same name and columns, and row-level security is enabled.
      await pg.admin('DROP TABLE swapped')
      await pg.admin('CREATE VIEW swapped AS SELECT person, room, CAST(code AS bigint) AS token FROM raw')
      await pg.admin('GRANT SELECT ON swapped TO qa_reader')
      await pg.admin('ALTER TABLE guarded ENABLE ROW LEVEL SECURITY')
      const swappedOut = await outcomes(swapped, ['alice', 'bob'], tokenQuestion)
      const guardedOut = await outcomes(guarded, ['alice', 'bob'], tokenQuestion)
      expect(swappedOut.alice).toEqual([
        expect.stringMatching(/^The PostgreSQL relation "public"\."swapped" linked as dataset "public\.swapped" is a view: .*Nothing was charged\.$/)
      ])
      expect(swappedOut.bob).toEqual(swappedOut.alice)
      expect(guardedOut.alice).toEqual([
        expect.stringMatching(/ has row-level security that applies to the connection's role: .*Nothing was charged\.$/)
      ])
      expect(guardedOut.bob).toEqual(guardedOut.alice)
      expect([chargeCount(store.db, swapped), chargeCount(store.db, guarded)]).toEqual([0, 0])
    } finally {
      rmSync(csvDir, { recursive: true, force: true })
    }
  })

  it('ClickHouse: ALIAS columns, a View, a Distributed table over a View or over ALIAS columns, and an ALIAS column added after linking', async () => {
    const mergeTree = 'ENGINE = MergeTree PARTITION BY person ORDER BY person'
    await ch.admin(`CREATE TABLE raw (person String, room String, code String) ${mergeTree}`)
    await ch.admin(`INSERT INTO raw VALUES ('alice', 'R1', 'abc'), ('bob', 'R1', '5'), ('bob', 'R2', '6')`)
    await ch.admin(`CREATE TABLE aliased (person String, room String, code String, token Int64 ALIAS toInt64(code)) ${mergeTree}`)
    await ch.admin('CREATE VIEW coded AS SELECT person, room, toInt64(code) AS token FROM raw')
    await ch.admin(`CREATE TABLE over_view (person String, room String, token Int64) ENGINE = Distributed(${ch.name}, default, coded)`)
    await ch.admin(`CREATE TABLE over_alias (person String, room String, token Int64) ENGINE = Distributed(${ch.name}, default, aliased)`)
    await ch.admin(`CREATE TABLE swapped (person String, room String, code String, token Int64) ${mergeTree}`)
    await ch.admin(`INSERT INTO swapped VALUES ('alice', 'R1', 'abc', 7), ('bob', 'R1', '5', 5), ('bob', 'R2', '6', 6)`)
    await ch.admin(`INSERT INTO aliased (person, room, code) VALUES ('alice', 'R1', 'abc'), ('bob', 'R1', '5'), ('bob', 'R2', '6')`)
    const link = (table: string) =>
      linkClickHouse(store.db, { name: table, url: ch.url('reader'), table, personColumn: null, ...officerAct(store.db) }).id
    expect(() => link('default.aliased')).toThrow(
      /^default\.aliased has ALIAS columns \(token\): they are computed from other columns each time the table is read, .*; link a table without them/
    )
    expect(() => link('default.coded')).toThrow(
      /^default\.coded is a View table: its rows are computed each time it is read, .*MergeTree, Log or Memory/
    )
    expect(() => link('default.over_view')).toThrow(/^default\.over_view is a Distributed table over default\.coded, a View table on a shard: /)
    expect(() => link('default.over_alias')).toThrow(/^default\.over_alias has ALIAS columns on its shards \(token\): /)
    const swapped = link('default.swapped')
    // After linking: token becomes an ALIAS of the same name and type, in the same place.
    await ch.admin('ALTER TABLE swapped DROP COLUMN token')
    await ch.admin('ALTER TABLE swapped ADD COLUMN token Int64 ALIAS toInt64(code)')
    const out = await outcomes(swapped, ['alice', 'bob'], tokenQuestion)
    expect(out.alice).toEqual([
      expect.stringMatching(
        /^The ClickHouse table default\.swapped linked as dataset "default\.swapped" has ALIAS columns \(token\): .*Nothing was charged\.$/
      )
    ])
    expect(out.bob).toEqual(out.alice)
    expect(chargeCount(store.db, swapped)).toBe(0)
  })

  it('ClickHouse: a DEFAULT or MATERIALIZED column computed from other columns, added after rows were written, before or after linking', async () => {
    const mergeTree = 'ENGINE = MergeTree PARTITION BY person ORDER BY person'
    // Parts written before the column was added do not hold it: ClickHouse computes toInt64(code) when it reads them.
    await ch.admin(`CREATE TABLE defaulted (person String, room String, code String) ${mergeTree}`)
    await ch.admin(`INSERT INTO defaulted VALUES ('alice', 'R1', 'abc'), ('bob', 'R1', '5'), ('bob', 'R2', '6')`)
    await ch.admin('ALTER TABLE defaulted ADD COLUMN token Int64 DEFAULT toInt64(code)')
    await ch.admin(
      `CREATE TABLE over_default (person String, room String, code String, token Int64) ENGINE = Distributed(${ch.name}, default, defaulted)`
    )
    // Constant defaults are the same value in every part, added before or after the rows.
    await ch.admin(`CREATE TABLE constant (person String, room String, token Int64, zero Int64 DEFAULT 0) ${mergeTree}`)
    await ch.admin(`INSERT INTO constant (person, room, token) VALUES ('alice', 'R1', 7), ('bob', 'R1', 5), ('bob', 'R2', 6)`)
    await ch.admin(`ALTER TABLE constant ADD COLUMN label String DEFAULT 'x'`)
    await ch.admin('ALTER TABLE constant ADD COLUMN seven Int64 MATERIALIZED 7')
    await ch.admin(`CREATE TABLE rewritten (person String, room String, code String, token Int64) ${mergeTree}`)
    await ch.admin(`INSERT INTO rewritten VALUES ('alice', 'R1', 'abc', 7), ('bob', 'R1', '5', 5), ('bob', 'R2', '6', 6)`)
    const link = (table: string) =>
      linkClickHouse(store.db, { name: table, url: ch.url('reader'), table, personColumn: null, ...officerAct(store.db) }).id
    expect(() => link('default.defaulted')).toThrow(
      /^default\.defaulted has DEFAULT or MATERIALIZED columns computed from other columns \(token\): ClickHouse computes them when it reads a part written before the column was added, .*; link a table whose columns hold their values as plain columns or have a constant default/
    )
    expect(() => link('default.over_default')).toThrow(
      /^default\.over_default has DEFAULT or MATERIALIZED columns on its shards computed from other columns \(token\): /
    )
    const constant = link('default.constant')
    const rewritten = link('default.rewritten')
    // After linking: token becomes a MATERIALIZED column of the same name and type, in the same place, over the old parts.
    await ch.admin('ALTER TABLE rewritten DROP COLUMN token')
    await ch.admin('ALTER TABLE rewritten ADD COLUMN token Int64 MATERIALIZED toInt64(code)')
    const rewrittenOut = await outcomes(rewritten, ['alice', 'bob'], tokenQuestion)
    expect(rewrittenOut.alice).toEqual([
      expect.stringMatching(
        /^The ClickHouse table default\.rewritten linked as dataset "default\.rewritten" has DEFAULT or MATERIALIZED columns computed from other columns \(token\): .*Nothing was charged\.$/
      )
    ])
    expect(rewrittenOut.bob).toEqual(rewrittenOut.alice)
    expect(chargeCount(store.db, rewritten)).toBe(0)
    const constantOut = await outcomes(constant, ['alice', 'bob'], tokenQuestion)
    expect(constantOut).toEqual({ alice: ['answered threshold'], bob: ['answered threshold'] })
  })
})
