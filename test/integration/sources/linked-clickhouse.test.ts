/**
 * Linked ClickHouse tables against a REAL ClickHouse (Debian's 18.16: a throwaway 3-shard cluster,
 * ch-cluster.ts; no mocks). Linking through the CLI and the service (an officer act, signed); every release kind on a
 * Distributed table, charged as usual with the table's fingerprint sealed in the ledger entry; the password never
 * stored or shown; every statement read-only and under the execution-time limit; bad sources (server down, a shard
 * down, wrong password, table gone, a column or the engine changed, a user who cannot take the limit) one sentence
 * before any charge; a failure after the charge the neutral one; a stored link rewritten by a file writer refused
 * before any connection; hostile values and names compiled into SQL without changing it.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ThresholdQueryDefinition } from '../../../src-main/contract/datasets'
import type { Store } from '../../../src-main/services/platform/handler-types'
import type { ServiceContext } from '../../../src-main/services/platform/handler-types'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { getDataset, listDatasets, storedRows } from '../../../src-main/services/catalog/catalog'
import { datasetsHandlers } from '../../../src-main/services/datasets/datasets-handlers'
import { linkClickHouse, listClickHouseTables } from '../../../src-main/services/datasets/link-clickhouse'
import { thresholdCounts } from '../../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../../src-main/services/datasets/threshold-predicates'
import { ChError, chAll, closeClickHouse } from '../../../src-main/services/sources/clickhouse-sync'
import { checkClickHouseUrl, linkedClickHouseOf } from '../../../src-main/services/sources/linked-clickhouse'
import { sourceFor } from '../../../src-main/services/sources/source'
import { openStore } from '../../../src-main/services/store/store'
import { seededRng } from '../../../src-worker/engine/random'
import { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, openLedgerWorkspace, saveQuery } from '../ledger/fixtures'
import { officerAct, testPassphrase } from '../officer-fixture'
import { openedChargeDetails } from './charge-details'
import { CH_USER_PASSWORD, type ChCluster, startChCluster } from './ch-cluster'
import { passwordCatcher, restoreEnvAfterAll, watchSecret, workspaceBytes } from './secret-watch'
import { saveBadgesAnomalyQuestions } from './badges-questions'

restoreEnvAfterAll(['CLICKHOUSE_PASSWORD', 'QA_CH_EXECUTION_TIMEOUT_MS'])
const watch = watchSecret(() => CH_USER_PASSWORD)
let cluster: ChCluster
let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

/** Rooms whose names are hostile to SQL written by string concatenation. */
const HOSTILE = ["x' OR 1=1 --", 'a\\b', "\\'", '{p1:String}', 'q?', "é€😀'", 'back`tick', 'line\nbreak', 'nul\u0000byte', '"dq"']

/**
 * Each test's and the set-up's limit: a 3-shard cluster, CLI processes and a worker on a small CI machine running the
 * whole suite (or a shared one) take minutes; the limit stops a hung engine and says nothing about speed (benchmarks do).
 */
const CLUSTER_WORK_MS = 300_000

beforeAll(async () => {
  cluster = await startChCluster(3)
  const cols = '(person String, room String, floor Int32, at DateTime, score Float64, badge Int64)'
  await cluster.onEachShard('CREATE DATABASE hr')
  await cluster.onEachShard(`CREATE TABLE hr.badges_local ${cols} ENGINE = MergeTree ORDER BY person`)
  await cluster.admin(`CREATE TABLE hr.badges AS hr.badges_local ENGINE = Distributed(${cluster.name}, hr, badges_local, cityHash64(person))`)
  // badges: persons p0..p49, 4 rooms, one row per (person, hour) over two days; a score per row.
  await cluster.admin(
    `INSERT INTO hr.badges SELECT concat('p', toString(number % 50)), concat('R', toString(1 + number % 4)), toInt32(number % 3),
       toDateTime('2015-01-01 00:00:00', 'UTC') + 3600 * (number % 48), (number * 7919) % 1000 / 10, toInt64(number) FROM system.numbers LIMIT 2000`
  )
  // A local table on the first server (a plain MergeTree) and one the reader may write (only the session stops a write).
  await cluster.admin(`CREATE TABLE hr.solo ${cols} ENGINE = MergeTree ORDER BY person`)
  await cluster.admin(`INSERT INTO hr.solo SELECT * FROM hr.badges WHERE room = 'R1'`)
  await cluster.admin('CREATE TABLE hr.scratch (x Int32) ENGINE = Memory')
  // Hostile values and names: room i has i + 1 rows of distinct persons; the columns' names are hostile too.
  await cluster.onEachShard('CREATE TABLE hr.odd_local (`per son` String, `ro?om` String, `fl``oor` Int32) ENGINE = MergeTree ORDER BY tuple()')
  await cluster.admin(`CREATE TABLE hr.odd AS hr.odd_local ENGINE = Distributed(${cluster.name}, hr, odd_local, cityHash64(\`per son\`))`)
  const oddRows = HOSTILE.flatMap((room, i) =>
    Array.from({ length: i + 1 }, (_, k) => ({ 'per son': `${room}#${k}`, 'ro?om': room, 'fl`oor': k % 2 }))
  )
  await cluster.admin(`INSERT INTO hr.odd FORMAT JSONEachRow\n${oddRows.map((r) => JSON.stringify(r)).join('\n')}`)
}, CLUSTER_WORK_MS)
afterAll(async () => {
  await closeClickHouse()
  cluster?.destroy()
})
beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-ch-'))
  process.env.CLICKHOUSE_PASSWORD = CH_USER_PASSWORD
  delete process.env.QA_CH_EXECUTION_TIMEOUT_MS
})
afterEach(() => closeLedgerWorkspace(store, ws))

const cli = (args: string[]) => watch.cli(args, ws.dir)
const failure = watch.failure

const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.05, alpha: 10 }

function link(name = 'badges', table = 'hr.badges', personColumn: string | null = 'person', user = 'reader'): number {
  return linkClickHouse(store.db, { name, url: cluster.url(user), table, personColumn, ...officerAct(store.db, 'olga') }).id
}

const entries = async () => (await h['ledger/entries']({})).total

describe('linked ClickHouse tables', { timeout: CLUSTER_WORK_MS }, () => {
  it('CLI: link --clickhouse URL --table DB.T (an officer act); the kind, declared columns and unit in the catalog, no count; bad URLs refused', async () => {
    officerAct(store.db, 'olga')
    store.close()
    const noOfficer = await cli(['link', '--db', ws.db, '--name', 'badges', '--clickhouse', cluster.url('reader'), '--table', 'hr.badges'])
    expect(noOfficer.code).toBe(2)
    expect(noOfficer.err).toMatch(/This is an officer act: give the privacy officer's passphrase/)
    process.env.QUIET_ALARM_PASSPHRASE = testPassphrase('olga')
    const r = await cli([
      'link',
      '--db',
      ws.db,
      '--name',
      'badges',
      '--clickhouse',
      cluster.url('reader'),
      '--table',
      'hr.badges',
      '--person-column',
      'person',
      '--json'
    ])
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ name: 'badges', source: 'linked-clickhouse', table: 'hr.badges', unit: 'person', unitKind: 'person' })
    expect(j.columns.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual([
      'person:text',
      'room:text',
      'floor:integer',
      'at:timestamp',
      'score:real',
      'badge:integer'
    ])
    // A password in the URL, or a query string: refused with a sentence that does not repeat it; nothing stored.
    const withPassword = cluster.url('reader').replace('reader@', `reader:${encodeURIComponent(CH_USER_PASSWORD)}@`)
    const bad = await cli(['link', '--db', ws.db, '--name', 'x', '--clickhouse', withPassword, '--table', 'hr.badges'])
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/The ClickHouse URL contains a password; give the URL without it and put the password in the CLICKHOUSE_PASSWORD/)
    expect(bad.err).not.toContain(encodeURIComponent(CH_USER_PASSWORD))
    expect(() => checkClickHouseUrl(`${cluster.url('reader')}/?password=x`)).toThrow(/must not carry a query/)
    expect(() => checkClickHouseUrl('tcp://reader@127.0.0.1:9000')).toThrow(/must be an HTTP URL/)
    const both = await cli([
      'link',
      '--db',
      ws.db,
      '--name',
      'x',
      '--clickhouse',
      cluster.url('reader'),
      '--postgres',
      'postgresql://a@b/c',
      '--table',
      't'
    ])
    expect(both.err).toMatch(/Give either --postgres or --clickhouse, not both/)
    const missing = await cli(['link', '--db', ws.db, '--name', 'x', '--clickhouse', cluster.url('reader'), '--table', 'hr.nothing'])
    expect(missing.err).toMatch(/There is no table hr.nothing on that server/)
    const dup = await cli([
      'link',
      '--db',
      ws.db,
      '--name',
      'x',
      '--clickhouse',
      cluster.url('reader'),
      '--table',
      'hr.badges',
      '--person-column',
      'person',
      '--per-person-columns',
      'room'
    ])
    expect(dup.err).toMatch(/Columns cannot be declared one value per person on a linked source \("room"\)/)
    process.env.CLICKHOUSE_PASSWORD = 'wrong'
    const wrong = await cli(['link', '--db', ws.db, '--name', 'x', '--clickhouse', cluster.url('reader'), '--table', 'hr.badges'])
    expect(wrong.err).toMatch(
      /ClickHouse refused the login for this connection: set the user's password in the CLICKHOUSE_PASSWORD environment variable/
    )
    process.env.CLICKHOUSE_PASSWORD = CH_USER_PASSWORD
    // A user whose profile is readonly = 1 cannot take the execution-time limit: refused when linked.
    const ro1 = await cli(['link', '--db', ws.db, '--name', 'x', '--clickhouse', cluster.url('reader1'), '--table', 'hr.badges'])
    expect(ro1.err).toMatch(/has readonly = 1, which forbids the execution-time limit .* give the user a profile with readonly = 2/)
    store = openStore(ws.db)
    const info = listDatasets(store.db)
    expect(info.map((d) => [d.name, d.source, d.sourceFile, d.rowCount])).toEqual([['badges', 'linked-clickhouse', 'hr.badges', 0]])
    expect(() => storedRows(store.db, info[0].id)).toThrow(/linked ClickHouse table; its rows are not paged/)
    store.close()
    expect((await cli(['datasets', 'list', '--db', ws.db])).out).toMatch(
      /1  badges  rows not counted \(linked ClickHouse hr.badges, queried in place\)/
    )
    delete process.env.QUIET_ALARM_PASSPHRASE
    store = openStore(ws.db)
    expect(workspaceBytes(ws.db)).not.toContain(CH_USER_PASSWORD)
  })

  it('every release kind on a Distributed table is charged as usual and records its fingerprint (per-shard mode); the password is nowhere', async () => {
    const ds = link()
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      filter: [{ column: 'floor', op: '>=', value: 1 }],
      period: { column: 'at', from: '2015-01-01 00:00:00', to: '2015-01-02 00:00:00' },
      count: { kind: 'persons', personColumn: 'person', cap: 2, maxGroups: 1 },
      threshold: {
        kind: 'reference',
        factor: 1,
        aggregate: 'max',
        bucket: 'hour',
        column: 'at',
        from: '2015-01-02 00:00:00',
        to: '2015-01-03 00:00:00'
      },
      groups: [['R1'], ['R2'], ['R9']]
    })
    const plainDef: ThresholdQueryDefinition = {
      kind: 'threshold',
      groupBy: ['room', 'floor'],
      count: { kind: 'persons', personColumn: 'person', cap: 3 },
      threshold: { kind: 'constant', value: 20 },
      groups: [
        ['R1', 0],
        ['R2', 1]
      ]
    }
    const plain = saveQuery(store.db, ds, 'rooms plain', plainDef)
    const { aiq, search } = saveBadgesAnomalyQuestions(store.db, ds)
    await h['budgets/set']({ datasetId: ds, epsilon: '30', reason: 'test', ...officerAct(store.db, 'olga') })
    expect((await h['releases/run']({ queryId: q, params: tslm })).answer!.kind).toBe('threshold')
    expect((await h['releases/run']({ queryId: plain, params: tslm })).answer!.kind).toBe('threshold')
    const a = await h['releases/run']({ queryId: aiq, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1 } })
    expect(a.answer!.kind).toBe('anomaly-identification')
    const s = await h['releases/run']({ queryId: search, params: { kind: 'anomaly-search' } })
    expect(s.answer!.kind).toBe('anomaly-search')
    const details = openedChargeDetails<Record<string, unknown>>(store.db, ds, 'olga')
    expect(details).toHaveLength(4)
    for (const d of details) {
      expect(d.params.source).toEqual({
        engine: 'clickhouse',
        table: 'hr.badges',
        tableEngine: 'Distributed',
        sharding: 'per-shard',
        version: '18.16.1',
        rowEstimate: null
      })
    }
    expect(verifyLedger(store.db).ok).toBe(true)
    // The true counts the releases used are the table's (the person-level stage per shard; a person is on one shard).
    const dataset = getDataset(store.db, ds)
    const ev = thresholdCounts(store.db, dataset, plainDef, thresholdPredicates(store.db, dataset, plainDef), seededRng('x'))
    // The same aggregate written plainly in ClickHouse (merged on the initiator).
    const truth = await cluster.admin(
      `SELECT room, floor, sum(least(c, 3)) FROM (SELECT room, floor, person, count() AS c FROM hr.badges GROUP BY room, floor, person) WHERE (room, floor) IN (('R1', 0), ('R2', 1)) GROUP BY room, floor ORDER BY room`
    )
    expect([...ev.counts]).toEqual(
      truth
        .trim()
        .split('\n')
        .map((l) => Number(l.split('\t')[2]))
    )
    // The password: not in the workspace file, not in the ledger, not in any sentence.
    const ledgerText =
      JSON.stringify(store.db.prepare('SELECT * FROM ledger_entries').all()) + JSON.stringify(store.db.prepare('SELECT * FROM releases').all())
    expect(ledgerText).not.toContain(CH_USER_PASSWORD)
    expect(workspaceBytes(ws.db)).not.toContain(CH_USER_PASSWORD)
  })

  it('a local table answers as one server; a user already read-only (readonly = 2) keeps its mode', async () => {
    const ds = link('solo', 'hr.solo', 'person', 'reader2')
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 1, maxGroups: 1 },
      threshold: { kind: 'constant', value: 3 },
      groups: [['R1'], ['R2']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    expect((await h['releases/run']({ queryId: q, params: tslm })).answer!.kind).toBe('threshold')
    expect(openedChargeDetails<Record<string, unknown>>(store.db, ds, 'olga')[0].params.source).toMatchObject({
      tableEngine: 'MergeTree',
      sharding: 'local'
    })
  })

  it('every statement is read-only and under the execution-time limit', async () => {
    // The reader's profile allows writes: only the session's readonly = 1 stops this one.
    const conn = { url: cluster.url('reader'), password: CH_USER_PASSWORD }
    let e: unknown = null
    try {
      chAll(conn, 'INSERT INTO hr.scratch VALUES (1)', undefined)
    } catch (x) {
      e = x
    }
    expect(e).toBeInstanceOf(ChError)
    expect((e as ChError).code).toBe('CH164')
    expect((await cluster.admin('SELECT count() FROM hr.scratch')).trim()).toBe('0')
    // A query over the limit stops at the server.
    expect(() => chAll(conn, 'SELECT sleep(3)', undefined, {}, 1000)).toThrow(expect.objectContaining({ code: 'CH159' }))
    const ds = link('badges')
    process.env.QA_CH_EXECUTION_TIMEOUT_MS = '1000'
    const src = sourceFor(store.db, getDataset(store.db, ds))
    const m = await failure(() => src.all({ sql: 'SELECT sleep(3)', params: [] }))
    expect(m).toBe('The aggregate on dataset "badges" took longer than the ClickHouse execution-time limit (1 s; QA_CH_EXECUTION_TIMEOUT_MS sets it)')
  })

  it('bad sources: server down, a shard down, wrong password, table gone, a column or the engine changed: one sentence each, nothing charged', async () => {
    const ds = link()
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 2 },
      threshold: { kind: 'constant', value: 40 },
      groups: [['R1'], ['R2']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    const before = await entries()
    const run = () => h['releases/run']({ queryId: q, params: tslm })
    cluster.stopShard(0)
    try {
      expect(await failure(run())).toBe(
        'The ClickHouse server of dataset "badges" cannot be reached (it is down, or the connection was lost). Nothing was charged.'
      )
    } finally {
      await cluster.startShard(0)
    }
    cluster.stopShard(2)
    try {
      expect(await failure(run())).toBe('A shard of the ClickHouse table hr.badges of dataset "badges" cannot be reached. Nothing was charged.')
    } finally {
      await cluster.startShard(2)
    }
    process.env.CLICKHOUSE_PASSWORD = 'not-the-password'
    expect(await failure(run())).toBe(
      'ClickHouse refused the login for dataset "badges": set the user\'s password in the CLICKHOUSE_PASSWORD environment variable. Nothing was charged.'
    )
    process.env.CLICKHOUSE_PASSWORD = CH_USER_PASSWORD
    await cluster.admin('RENAME TABLE hr.badges TO hr.badges_old')
    expect(await failure(run())).toBe(
      'The ClickHouse table hr.badges linked as dataset "badges" is gone; link the dataset again. Nothing was charged.'
    )
    await cluster.admin(
      `CREATE TABLE hr.badges (person String, room String, floor String, at DateTime, score Float64, badge Int64) ENGINE = Distributed(${cluster.name}, hr, badges_local, cityHash64(person))`
    )
    expect(await failure(run())).toBe(
      'The ClickHouse table hr.badges linked as dataset "badges" has changed its schema: column "floor" changed type from Int32 to String; link it again as a new dataset. Nothing was charged.'
    )
    await cluster.admin('DROP TABLE hr.badges')
    await cluster.admin('CREATE TABLE hr.badges (person String, room String, floor Int32, at DateTime, score Float64, badge Int64) ENGINE = Memory')
    expect(await failure(run())).toBe(
      'The ClickHouse table hr.badges linked as dataset "badges" is now a Memory table (it was Distributed); link it again as a new dataset. Nothing was charged.'
    )
    expect(await entries()).toBe(before)
    await cluster.admin('DROP TABLE hr.badges')
    await cluster.admin('RENAME TABLE hr.badges_old TO hr.badges')
    expect((await run()).answer!.kind).toBe('threshold')
    expect(await entries()).toBe(before + 1)
  })

  it('a failure after the charge (a shard lost meanwhile) is the neutral failure; the charge stays', async () => {
    const ds = link()
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 2, maxGroups: 1 },
      threshold: { kind: 'constant', value: 40 },
      groups: [['R1'], ['R2']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    const before = await entries()
    try {
      const m = await failure(() => runRelease(store.db, { queryId: q, params: tslm }, { afterCharge: () => cluster.stopShard(1) }))
      expect(m).toMatch(
        /^Release \d+ was charged but not answered \(the answer could not be computed from the data\); the charge stays in the ledger$/
      )
    } finally {
      await cluster.startShard(1)
    }
    expect(await entries()).toBe(before + 1)
  })

  it('hostile values (quotes, backslashes, braces, ?, NUL, newlines, emoji) and hostile column names are compiled without changing the SQL', () => {
    const ds = link('odd', 'hr.odd', 'per son')
    const dataset = getDataset(store.db, ds)
    const groups = HOSTILE.map((r) => [r])
    const count = (def: Omit<ThresholdQueryDefinition, 'kind' | 'threshold' | 'groups' | 'groupBy'>) => {
      const d: ThresholdQueryDefinition = { kind: 'threshold', groupBy: ['ro?om'], threshold: { kind: 'constant', value: 1 }, groups, ...def }
      return [...thresholdCounts(store.db, dataset, d, thresholdPredicates(store.db, dataset, d), seededRng('odd')).counts]
    }
    const persons = { kind: 'persons' as const, personColumn: 'per son', cap: 1 }
    // Room i has i + 1 persons.
    expect(count({ count: persons })).toEqual(HOSTILE.map((_, i) => i + 1))
    expect(count({ count: { ...persons, maxGroups: 1 } })).toEqual(HOSTILE.map((_, i) => i + 1))
    // Each hostile value as a filter: equality keeps exactly its room; inequality and NOT IN keep every other one.
    HOSTILE.forEach((v, i) => {
      expect(count({ count: persons, filter: [{ column: 'ro?om', op: '=', value: v }] })).toEqual(HOSTILE.map((_, j) => (j === i ? i + 1 : 0)))
      expect(count({ count: persons, filter: [{ column: 'ro?om', op: '!=', value: v }] })).toEqual(HOSTILE.map((_, j) => (j === i ? 0 : j + 1)))
    })
    expect(count({ count: persons, filter: [{ column: 'ro?om', op: 'not in', value: HOSTILE.slice(0, 5) }] })).toEqual(
      HOSTILE.map((_, j) => (j < 5 ? 0 : j + 1))
    )
    expect(count({ count: persons, filter: [{ column: 'fl`oor', op: '=', value: 1 }] })).toEqual(HOSTILE.map((_, i) => Math.floor((i + 1) / 2)))
  })

  it('a stored link rewritten in the workspace file is refused before any connection (the password is never sent); other rewrites too', async () => {
    const ds = link()
    await h['budgets/set']({ datasetId: ds, epsilon: '20', reason: 'test', ...officerAct(store.db, 'olga') })
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 1 },
      threshold: { kind: 'constant', value: 5 },
      groups: [['R1'], ['R2']]
    })
    const run = () => h['releases/run']({ queryId: q, params: tslm })
    expect((await run()).answer!.kind).toBe('threshold')
    const catcher = await passwordCatcher(CATCHER)
    const refused = /^The ClickHouse link of dataset "badges" is not the one a privacy officer signed/
    try {
      const before = await entries()
      store.db.prepare('UPDATE dataset_clickhouse_sources SET url = ? WHERE dataset_id = ?').run(`http://reader@127.0.0.1:${catcher.port}`, ds)
      expect(await failure(run())).toMatch(refused)
      await new Promise((r) => setTimeout(r, 200))
      // Without the signature check the listener is sent the server's password (HTTP basic authentication).
      expect(catcher.connections()).toBe(0)
      expect(catcher.caught).toEqual([])
      expect(await entries()).toBe(before)
      store.db.prepare('UPDATE dataset_clickhouse_sources SET url = ? WHERE dataset_id = ?').run(cluster.url('reader'), ds)
    } finally {
      await catcher.close()
    }
    store.db.exec('DROP TRIGGER dataset_units_fixed')
    const edits: Array<[string, string]> = [
      [`password_env = 'OTHER_CLICKHOUSE_PASSWORD'`, 'password_env = NULL'],
      [`table_name = 'solo'`, `table_name = 'badges'`],
      [`table_engine = 'MergeTree'`, `table_engine = 'Distributed'`],
      [
        `columns = replace(columns, '"Int32"', '"Int64"')`,
        `columns = replace(columns, '"Int64","type":"integer"},{"name":"at"', '"Int32","type":"integer"},{"name":"at"')`
      ]
    ]
    for (const [edit, undo] of edits) {
      store.db.exec(`UPDATE dataset_clickhouse_sources SET ${edit} WHERE dataset_id = ${ds}`)
      expect(await failure(run())).toMatch(refused)
      store.db.exec(`UPDATE dataset_clickhouse_sources SET ${undo} WHERE dataset_id = ${ds}`)
    }
    store.db.exec(`UPDATE dataset_units SET person_column = NULL WHERE dataset_id = ${ds}`)
    expect(await failure(run())).toMatch(refused)
    store.db.exec(`UPDATE dataset_units SET person_column = 'person' WHERE dataset_id = ${ds}`)
    store.db.prepare('UPDATE dataset_clickhouse_sources SET signature = NULL WHERE dataset_id = ?').run(ds)
    expect(() => linkedClickHouseOf(store.db, ds)).toThrow(refused)
  })

  it('contract methods: list the tables and link from a door (officer acts); only to this machine or the hosts in QA_CLICKHOUSE_HOSTS', async () => {
    const d = datasetsHandlers({ store } as unknown as ServiceContext)
    const catcher = await passwordCatcher(CATCHER)
    try {
      const url = `http://reader@127.0.0.1:${catcher.port}`
      officerAct(store.db, 'olga')
      expect(await failure(d['datasets/clickhouse-tables']({ url }))).toMatch(/^This is an officer act/)
      expect(await failure(d['datasets/link-clickhouse']({ name: 'x', url, table: 'hr.badges' }))).toMatch(/^This is an officer act/)
      expect(catcher.connections()).toBe(0)
    } finally {
      await catcher.close()
    }
    const { tables } = await d['datasets/clickhouse-tables']({ url: cluster.url('reader'), ...officerAct(store.db, 'olga') })
    // The declared columns (the person column is picked among them) and what each table is sharded by.
    const columns = ['person', 'room', 'floor', 'at', 'score', 'badge']
    expect(tables).toContainEqual({ database: 'hr', table: 'badges', engine: 'Distributed', columns, shardedBy: ['person'] })
    expect(tables).toContainEqual({ database: 'hr', table: 'solo', engine: 'MergeTree', columns, shardedBy: [] })
    expect(tables).toContainEqual({
      database: 'hr',
      table: 'odd',
      engine: 'Distributed',
      columns: ['per son', 'ro?om', 'fl`oor'],
      shardedBy: ['per son']
    })
    expect(tables.some((t) => t.database === 'system')).toBe(false)
    const info = await d['datasets/link-clickhouse']({
      name: 'badges',
      url: cluster.url('reader'),
      table: 'hr.badges',
      personColumn: 'person',
      ...officerAct(store.db, 'olga')
    })
    expect(info).toMatchObject({ name: 'badges', source: 'linked-clickhouse', sourceFile: 'hr.badges', unit: { kind: 'person', column: 'person' } })
    const ev = store.db.prepare(`SELECT actor, signer, detail FROM audit_events WHERE kind = 'officer/link-clickhouse'`).all() as Array<{
      actor: string
      signer: string | null
      detail: string
    }>
    expect(ev).toHaveLength(1)
    expect(ev[0].signer).not.toBeNull()
    expect(JSON.parse(ev[0].detail)).toMatchObject({ table: 'hr.badges', engine: 'Distributed', sharding: 'per-shard' })
    expect(verifyLedger(store.db).ok).toBe(true)
    const far = 'http://reader@clickhouse.example.org:8123'
    expect(await failure(d['datasets/clickhouse-tables']({ url: far, ...officerAct(store.db, 'olga') }))).toMatch(
      /^From the app, ClickHouse connections go to this machine or to the hosts listed in QA_CLICKHOUSE_HOSTS/
    )
    expect(listDatasets(store.db).map((x) => x.name)).toEqual(['badges'])
    process.env.HR_CLICKHOUSE_PASSWORD = CH_USER_PASSWORD
    process.env.CLICKHOUSE_PASSWORD = 'wrong'
    expect(listClickHouseTables({ url: cluster.url('reader'), passwordEnv: 'HR_CLICKHOUSE_PASSWORD' }).length).toBe(tables.length)
    delete process.env.HR_CLICKHOUSE_PASSWORD
    expect(() => listClickHouseTables({ url: cluster.url('reader'), passwordEnv: 'QUIET_ALARM_PASSPHRASE' })).toThrow(
      /must be the name of an environment variable ending in CLICKHOUSE_PASSWORD/
    )
  })
})

/** An HTTP listener on loopback that records every request's credentials (it runs in its own thread: a release blocks this one). */
const CATCHER = `
const http = require('node:http')
const { parentPort } = require('node:worker_threads')
const server = http.createServer((req, res) => {
  parentPort.postMessage({ connection: true })
  const auth = req.headers['authorization'] || req.headers['x-clickhouse-key'] || ''
  if (auth) parentPort.postMessage({ password: String(auth) })
  res.writeHead(401)
  res.end('no')
})
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }))
`
