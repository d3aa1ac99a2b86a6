/**
 * Linked PostgreSQL tables against a REAL PostgreSQL (a throwaway cluster, pg-cluster.ts; no mocks): linking
 * through the CLI and the service, threshold / anomaly-identification / search releases charged as usual with the
 * relation's fingerprint in the ledger entry, the password never stored or shown, every statement read-only under a
 * statement timeout, and bad sources (server down, wrong table, no permission, column type changed, wrong password)
 * refused with one sentence before any charge; a failure after the charge is the neutral failure.
 */
import { openedChargeDetails } from './charge-details'
import { unlockOfficer } from '../../../src-main/services/trust/officers'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../../src-main/services/store/store'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { getDataset, listDatasets, storedRows } from '../../../src-main/services/catalog/catalog'
import { checkPostgresUrl, linkedPostgresOf } from '../../../src-main/services/sources/linked-postgres'
import { linkPostgres, listPostgresRelations } from '../../../src-main/services/datasets/link-postgres'
import { PgError, closePg, pgAll } from '../../../src-main/services/sources/pg-sync'
import { sourceFor } from '../../../src-main/services/sources/source'
import { isPerPersonColumn } from '../../../src-main/services/trust/privacy-unit'
import { datasetsHandlers } from '../../../src-main/services/datasets/datasets-handlers'
import type { ServiceContext } from '../../../src-main/services/platform/handler-types'
import { gatherReportData } from '../../../src-main/services/reports/report-data'
import { resolvePeriod } from '../../../src-main/services/reports/period'
import { openStore } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, openLedgerWorkspace, saveQuery } from '../ledger/fixtures'
import { officerAct, testPassphrase } from '../officer-fixture'
import { type PgCluster, startPgCluster } from './pg-cluster'
import { restoreEnvAfterAll, watchSecret, workspaceBytes } from './secret-watch'
import { saveBadgesAnomalyQuestions } from './badges-questions'

const PASSWORD = `S3cr3t-${process.pid}-p@ss:word/x`
restoreEnvAfterAll(['PGPASSWORD', 'QA_PG_STATEMENT_TIMEOUT_MS'])
const watch = watchSecret(() => PASSWORD)
let cluster: PgCluster
let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

beforeAll(async () => {
  cluster = await startPgCluster()
  await cluster.createRole('qa_reader', PASSWORD)
  // badges: persons p0..p49, 4 rooms, one row per (person, hour) over two days; a score per row.
  await cluster.admin('CREATE SCHEMA hr')
  await cluster.admin(`CREATE TABLE hr.badges AS SELECT 'p' || (i % 50) AS person, 'R' || (1 + (i % 4)) AS room, (i % 3) AS floor,
    TIMESTAMPTZ '2015-01-01 00:00:00+00' + make_interval(hours => i % 48) AS "at", CAST((i * 7919) % 1000 / 10.0 AS numeric(6, 1)) AS score
    FROM generate_series(0, 1999) AS t(i)`)
  await cluster.admin('ANALYZE hr.badges')
  await cluster.admin('CREATE MATERIALIZED VIEW hr.badges_r1 AS SELECT 1 AS one')
  await cluster.admin('CREATE TABLE hr.salaries (person text, amount integer)')
  await cluster.admin('CREATE TABLE hr.scratch (x integer)')
  await cluster.admin('GRANT USAGE ON SCHEMA hr TO qa_reader')
  await cluster.admin('GRANT SELECT ON hr.badges, hr.badges_r1 TO qa_reader')
  // The role may write here: only the read-only transaction stops a write.
  await cluster.admin('GRANT SELECT, INSERT ON hr.scratch TO qa_reader')
}, 120_000)
afterAll(async () => {
  await closePg()
  await cluster?.destroy()
})
beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-pg-'))
  process.env.PGPASSWORD = PASSWORD
  delete process.env.QA_PG_STATEMENT_TIMEOUT_MS
})
afterEach(() => closeLedgerWorkspace(store, ws))

const cli = (args: string[]) => watch.cli(args, ws.dir)
const failure = watch.failure

const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.05, alpha: 10 }

function chargeDetails(datasetId: number) {
  return openedChargeDetails<Record<string, unknown>>(store.db, datasetId, 'olga')
}

function link(name = 'badges', table = 'hr.badges', personColumn: string | null = 'person'): number {
  return linkPostgres(store.db, { name, url: cluster.url('qa_reader'), table, personColumn, ...officerAct(store.db, 'olga') }).id
}

describe('linked PostgreSQL tables', () => {
  it('CLI: link --postgres URL --table T (an officer act); the kind, columns and unit in the catalog, no row estimate; a URL with a password is refused', async () => {
    officerAct(store.db, 'olga')
    store.close()
    // Without the officer's passphrase: refused before anything is read or written.
    const noOfficer = await cli(['link', '--db', ws.db, '--name', 'badges', '--postgres', cluster.url('qa_reader'), '--table', 'hr.badges'])
    expect(noOfficer.code).toBe(2)
    expect(noOfficer.err).toMatch(/This is an officer act: give the privacy officer's passphrase/)
    process.env.QUIET_ALARM_PASSPHRASE = testPassphrase('olga')
    const r = await cli([
      'link',
      '--db',
      ws.db,
      '--name',
      'badges',
      '--postgres',
      cluster.url('qa_reader'),
      '--table',
      'hr.badges',
      '--person-column',
      'person',
      '--json'
    ])
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ name: 'badges', source: 'linked-postgres', relation: 'hr.badges', unit: 'person', unitKind: 'person' })
    expect(j.rowEstimate).toBeUndefined()
    expect(j.columns.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual([
      'person:text',
      'room:text',
      'floor:integer',
      'at:timestamp',
      'score:real'
    ])
    // A password in the URL: refused with a sentence that does not repeat it; nothing stored.
    const withPassword = cluster.url('qa_reader').replace('qa_reader@', `qa_reader:${encodeURIComponent(PASSWORD)}@`)
    const bad = await cli(['link', '--db', ws.db, '--name', 'x', '--postgres', withPassword, '--table', 'hr.badges'])
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(
      /The PostgreSQL URL contains a password; give the URL without it and put the password in the PGPASSWORD environment variable/
    )
    expect(bad.err).not.toContain(encodeURIComponent(PASSWORD))
    expect(() => checkPostgresUrl(`${cluster.url('qa_reader')}?password=x`)).toThrow(/contains a password/)
    const missing = await cli(['link', '--db', ws.db, '--name', 'x', '--postgres', cluster.url('qa_reader'), '--table', 'hr.nothing'])
    expect(missing.err).toMatch(/There is no table or view "hr.nothing" in that database/)
    const secret = await cli(['link', '--db', ws.db, '--name', 'x', '--postgres', cluster.url('qa_reader'), '--table', 'hr.salaries'])
    expect(secret.err).toMatch(/The connection's role may not read "hr"."salaries"; ask the database's owner to grant SELECT on it/)
    const dup = await cli([
      'link',
      '--db',
      ws.db,
      '--name',
      'x',
      '--postgres',
      cluster.url('qa_reader'),
      '--table',
      'hr.badges',
      '--person-column',
      'person',
      '--per-person-columns',
      'room'
    ])
    expect(dup.err).toMatch(/Columns cannot be declared one value per person on a linked source \("room"\)/)
    process.env.PGPASSWORD = 'wrong'
    const wrong = await cli(['link', '--db', ws.db, '--name', 'x', '--postgres', cluster.url('qa_reader'), '--table', 'hr.badges'])
    expect(wrong.err).toMatch(/PostgreSQL refused the login for this connection: set the role's password in the PGPASSWORD environment variable/)
    process.env.PGPASSWORD = PASSWORD
    store = openStore(ws.db)
    const info = listDatasets(store.db)
    expect(info.map((d) => [d.name, d.source, d.sourceFile])).toEqual([['badges', 'linked-postgres', 'hr.badges']])
    expect(() => storedRows(store.db, info[0].id)).toThrow(/linked PostgreSQL table; its rows are not paged/)
    expect(info[0].rowCount).toBe(0)
    store.close()
    expect((await cli(['datasets', 'list', '--db', ws.db])).out).toMatch(
      /1  badges  rows not counted \(linked PostgreSQL hr.badges, queried in place\)/
    )
    expect((await cli(['datasets', 'show', '--db', ws.db, '--dataset', 'badges'])).out).toMatch(
      /^1  badges  rows not counted, in the linked PostgreSQL relation hr.badges \(queried in place\)\nPrivacy unit/
    )
    delete process.env.QUIET_ALARM_PASSPHRASE
    store = openStore(ws.db)
    expect(workspaceBytes(ws.db)).not.toContain(PASSWORD)
  })

  it('threshold, anomaly identification and search releases are charged as usual and record the relation fingerprint; the password is nowhere', async () => {
    const ds = link()
    const rec = linkedPostgresOf(store.db, ds)!
    expect(rec.url).toBe(cluster.url('qa_reader'))
    const oid = Number((await cluster.admin(`SELECT CAST('hr.badges'::regclass AS oid) AS oid`)).rows[0].oid)
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
    const { aiq, search } = saveBadgesAnomalyQuestions(store.db, ds)
    await h['budgets/set']({ datasetId: ds, epsilon: '20', reason: 'test', ...officerAct(store.db, 'olga') })
    const t = await h['releases/run']({ queryId: q, params: tslm })
    expect(t.answer!.kind).toBe('threshold')
    const a = await h['releases/run']({ queryId: aiq, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1 } })
    expect(a.answer!.kind).toBe('anomaly-identification')
    const s = await h['releases/run']({ queryId: search, params: { kind: 'anomaly-search' } })
    expect(s.answer!.kind).toBe('anomaly-search')
    const fp = { engine: 'postgres', relation: 'hr.badges', oid, kind: 'table', rowEstimate: 2000 }
    expect(chargeDetails(ds).map((d) => d.params.source)).toEqual([fp, fp, fp])
    expect(verifyLedger(store.db).ok).toBe(true)
    // The officer edition of a report opens the fingerprint; the analyst edition says it is sealed.
    const analyst = await gatherReportData(store, { datasetId: ds, period: resolvePeriod(undefined, undefined), edition: 'analyst' })
    expect(analyst.releases.map((r) => r.params.source)).toEqual(Array(3).fill('linked source (fingerprint sealed to the privacy officers)'))
    const officerKey = unlockOfficer(store.db, officerAct(store.db, 'olga'))
    const report = await gatherReportData(store, {
      datasetId: ds,
      period: resolvePeriod(undefined, undefined),
      edition: 'officer',
      officerKey,
      reason: 'fingerprint check'
    })
    expect(report.releases.map((r) => JSON.parse(String(r.params.source)))).toEqual([fp, fp, fp])
    // The relation changed (rows and estimate): released on as it now is, with the new estimate recorded.
    await cluster.admin(`INSERT INTO hr.badges SELECT * FROM hr.badges WHERE room = 'R2'`)
    await cluster.admin('ANALYZE hr.badges')
    await h['releases/run']({ queryId: q, params: tslm })
    expect(chargeDetails(ds)[3].params.source).toEqual({ ...fp, rowEstimate: 2500 })
    await cluster.admin(`DELETE FROM hr.badges WHERE ctid IN (SELECT ctid FROM hr.badges OFFSET 2000)`)
    await cluster.admin('VACUUM ANALYZE hr.badges')
    // The password: not in the workspace file, not in the ledger, not in any sentence.
    const ledgerText =
      JSON.stringify(store.db.prepare('SELECT * FROM ledger_entries').all()) + JSON.stringify(store.db.prepare('SELECT * FROM releases').all())
    expect(ledgerText).not.toContain(PASSWORD)
    expect(workspaceBytes(ws.db)).not.toContain(PASSWORD)
    expect(JSON.stringify(store.db.prepare('SELECT * FROM dataset_postgres_sources').all())).not.toContain(PASSWORD)
  })

  it('every statement is read-only and under a statement timeout', async () => {
    const conn = { url: cluster.url('qa_reader'), password: PASSWORD }
    let e: unknown = null
    try {
      pgAll(conn, 'INSERT INTO hr.scratch VALUES (1)')
    } catch (x) {
      e = x
    }
    expect(e).toBeInstanceOf(PgError)
    expect((e as PgError).code).toBe('25006') // read_only_sql_transaction
    expect((await cluster.admin('SELECT count(*) AS n FROM hr.scratch')).rows[0].n).toBe('0')
    expect(() => pgAll(conn, 'SELECT pg_sleep(5)', [], 200)).toThrow(expect.objectContaining({ code: '57014' }))
    // Through a linked dataset: one sentence naming it and the timeout.
    const ds = link('badges')
    process.env.QA_PG_STATEMENT_TIMEOUT_MS = '100'
    const src = sourceFor(store.db, getDataset(store.db, ds))
    const m = await failure(() => src.all({ sql: 'SELECT count(*) FROM hr.badges, pg_sleep(1)', params: [] }))
    expect(m).toBe('The aggregate on dataset "badges" took longer than the PostgreSQL statement timeout (100 ms; QA_PG_STATEMENT_TIMEOUT_MS sets it)')
  })

  it('columns cannot be declared one value per person on a linked table (it may change; a check would be an oracle), true or not', async () => {
    await cluster.admin(`CREATE TABLE hr.people AS SELECT 'p' || i AS person, 'team ' || (i % 3) AS team FROM generate_series(0, 99) AS t(i)`)
    await cluster.admin('GRANT SELECT ON hr.people TO qa_reader')
    // True of the rows today (one team per person), refused all the same: the refusal does not depend on the rows.
    expect(() =>
      linkPostgres(store.db, {
        name: 'people',
        url: cluster.url('qa_reader'),
        table: 'hr.people',
        personColumn: 'person',
        perPersonColumns: ['team'],
        ...officerAct(store.db, 'olga')
      })
    ).toThrow(/Columns cannot be declared one value per person on a linked source \("team"\)/)
    const ds = linkPostgres(store.db, {
      name: 'people',
      url: cluster.url('qa_reader'),
      table: 'hr.people',
      personColumn: 'person',
      ...officerAct(store.db, 'olga')
    }).id
    expect(getDataset(store.db, ds).info.unit).toEqual({ kind: 'person', column: 'person' })
    expect(isPerPersonColumn(store.db, ds, 'team')).toBe(false)
  })

  it('a connection cut by a server restart or by the server is replaced at the next use', async () => {
    const conn = { url: cluster.url('qa_reader'), password: PASSWORD }
    expect(pgAll(conn, 'SELECT 1').rows).toEqual([[1]])
    cluster.stop()
    cluster.start()
    expect(pgAll(conn, 'SELECT 2').rows).toEqual([[2]])
    await cluster.admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'qa_reader'`)
    expect(pgAll(conn, 'SELECT 3').rows).toEqual([[3]])
  })

  it('bad sources: server down, wrong password, table gone, no permission, a column that changed type: one sentence each, nothing charged', async () => {
    const ds = link()
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 2 },
      threshold: { kind: 'constant', value: 40 },
      groups: [['R1'], ['R2']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    const entries = async () => (await h['ledger/entries']({})).total
    const before = await entries()
    const run = () => h['releases/run']({ queryId: q, params: tslm })

    cluster.stop()
    try {
      expect(await failure(run())).toBe(
        'The PostgreSQL server of dataset "badges" cannot be reached (it is down, or the connection was lost). Nothing was charged.'
      )
    } finally {
      cluster.start()
    }
    process.env.PGPASSWORD = 'not-the-password'
    expect(await failure(run())).toBe(
      'PostgreSQL refused the login for dataset "badges": set the role\'s password in the PGPASSWORD environment variable. Nothing was charged.'
    )
    process.env.PGPASSWORD = PASSWORD
    await cluster.admin('REVOKE SELECT ON hr.badges FROM qa_reader')
    expect(await failure(run())).toBe(
      'The PostgreSQL role of dataset "badges" may not read "hr"."badges"; ask the database\'s owner to grant SELECT on it. Nothing was charged.'
    )
    await cluster.admin('GRANT SELECT ON hr.badges TO qa_reader')
    await cluster.admin('ALTER TABLE hr.badges RENAME TO badges_old')
    expect(await failure(run())).toBe(
      'The PostgreSQL relation "hr"."badges" linked as dataset "badges" is gone; link the dataset again. Nothing was charged.'
    )
    await cluster.admin('ALTER TABLE hr.badges_old RENAME TO badges')
    await cluster.admin('ALTER TABLE hr.badges ALTER COLUMN floor TYPE text')
    expect(await failure(run())).toBe(
      'The PostgreSQL relation "hr"."badges" linked as dataset "badges" has changed its schema: column "floor" changed type from integer to text; link it again as a new dataset. Nothing was charged.'
    )
    expect(await entries()).toBe(before)
    await cluster.admin('ALTER TABLE hr.badges ALTER COLUMN floor TYPE integer USING CAST(floor AS integer)')
    const ok = await run()
    expect(ok.answer!.kind).toBe('threshold')
    expect(await entries()).toBe(before + 1)
  })

  it('a failure after the charge (statement timeout on a locked table) is the neutral failure; the charge stays', async () => {
    const ds = link('locked', 'hr.badges', null)
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 40 },
      groups: [['R1'], ['R2']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    process.env.QA_PG_STATEMENT_TIMEOUT_MS = '300'
    // The checks before the charge read the catalog only; the aggregate waits for the lock until its statement timeout.
    await cluster.admin('BEGIN')
    try {
      await cluster.admin('LOCK TABLE hr.badges IN ACCESS EXCLUSIVE MODE')
      const m = await failure(h['releases/run']({ queryId: q, params: tslm }))
      expect(m).toMatch(/^Release \d+ was charged but not answered \(.*\); the charge stays in the ledger$/)
    } finally {
      await cluster.admin('ROLLBACK')
    }
    expect(chargeDetails(ds)).toHaveLength(1)
    expect(chargeDetails(ds)[0].params.source).toMatchObject({ engine: 'postgres', relation: 'hr.badges', kind: 'table' })
  })

  it('test a connection and list the tables and materialized views the role may read', () => {
    const list = listPostgresRelations({ url: cluster.url('qa_reader') })
    expect(list).toEqual(
      expect.arrayContaining([
        { schema: 'hr', table: 'badges', kind: 'table' },
        { schema: 'hr', table: 'badges_r1', kind: 'materialized view' }
      ])
    )
    expect(list.some((r) => r.table === 'salaries')).toBe(false)
    process.env.PGPASSWORD = 'nope'
    expect(() => listPostgresRelations({ url: cluster.url('qa_reader') })).toThrow(/PostgreSQL refused the login for this connection/)
    process.env.QA_HR_PGPASSWORD = PASSWORD
    expect(listPostgresRelations({ url: cluster.url('qa_reader'), passwordEnv: 'QA_HR_PGPASSWORD' }).length).toBe(list.length)
    delete process.env.QA_HR_PGPASSWORD
    expect(() => listPostgresRelations({ url: cluster.url('qa_reader'), passwordEnv: 'QUIET_ALARM_PASSPHRASE' })).toThrow(
      /must be the name of an environment variable ending in PGPASSWORD/
    )
  })

  it('contract methods: list the relations and link from a door; only to this machine or the hosts in QA_PG_HOSTS', async () => {
    const d = datasetsHandlers({ store } as unknown as ServiceContext)
    const { relations } = await d['datasets/postgres-relations']({ url: cluster.url('qa_reader'), ...officerAct(store.db, 'olga') })
    expect(relations).toContainEqual({ schema: 'hr', table: 'badges', kind: 'table' })
    const info = await d['datasets/link-postgres']({
      name: 'badges',
      url: cluster.url('qa_reader'),
      table: 'hr.badges',
      personColumn: 'person',
      ...officerAct(store.db, 'olga')
    })
    expect(info).toMatchObject({ name: 'badges', source: 'linked-postgres', sourceFile: 'hr.badges', unit: { kind: 'person', column: 'person' } })
    const far = 'postgresql://qa_reader@db.example.org:5432/qa'
    expect(await failure(d['datasets/postgres-relations']({ url: far, ...officerAct(store.db, 'olga') }))).toMatch(
      /^From the app, PostgreSQL connections go to this machine or to the hosts listed in QA_PG_HOSTS/
    )
    expect(await failure(d['datasets/link-postgres']({ name: 'far', url: far, table: 'hr.badges', ...officerAct(store.db, 'olga') }))).toMatch(
      /QA_PG_HOSTS/
    )
    expect(listDatasets(store.db).map((x) => x.name)).toEqual(['badges'])
  })
})
