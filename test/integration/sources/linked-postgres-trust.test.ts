/**
 * Attacks on linked PostgreSQL tables, against a real PostgreSQL (pg-cluster.ts):
 *
 * - Finding 5: linking told the analyst, uncharged, whether a bigint column held a value beyond 2^53 (the catalog type
 *   became text) and the planner's row estimate of the private relation. Now the catalog is the declared schema only:
 *   two relations with the same declared schema but different rows link to identical catalog entries, and the workspace
 *   holds no estimate in clear.
 * - Finding 6: the server's password goes to the URL's host. A rewritten stored URL (anyone who can write the workspace
 *   file) pointed at a listener on this machine got it in clear. Now a link is a signed officer act over (URL, password
 *   variable, relation, declared columns, unit); every use checks the signature and refuses, with no connection made.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import type { Store } from '../../../src-main/services/store/store'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { getDataset } from '../../../src-main/services/catalog/catalog'
import { linkedPostgresOf } from '../../../src-main/services/sources/linked-postgres'
import { linkPostgres } from '../../../src-main/services/datasets/link-postgres'
import { openStore } from '../../../src-main/services/store/store'
import { migrations } from '../../../src-main/services/store/migrations'
import { closePg } from '../../../src-main/services/sources/pg-sync'
import { datasetsHandlers } from '../../../src-main/services/datasets/datasets-handlers'
import type { ServiceContext } from '../../../src-main/services/platform/handler-types'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, openLedgerWorkspace, saveQuery } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { type PgCluster, startPgCluster } from './pg-cluster'
import { passwordCatcher, restoreEnvAfterAll, watchSecret, workspaceBytes } from './secret-watch'

const PASSWORD = `trust-${process.pid}-secret`
restoreEnvAfterAll(['PGPASSWORD'])
const { failure } = watchSecret(() => PASSWORD)
let cluster: PgCluster
let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

beforeAll(async () => {
  cluster = await startPgCluster()
  await cluster.createRole('qa_reader', PASSWORD)
  await cluster.admin('CREATE SCHEMA hr')
  // Two neighbouring relations: the same declared schema, 300 rows each; one row of "big" differs (2^60 against 7).
  for (const [table, big] of [
    ['small_ids', '7'],
    ['big_ids', '1152921504606846976']
  ]) {
    await cluster.admin(`CREATE TABLE hr.${table} (person text, room text, badge bigint)`)
    await cluster.admin(
      `INSERT INTO hr.${table} SELECT 'p' || (i % 30), 'R' || (1 + i % 3), CASE WHEN i = 0 THEN ${big} ELSE i END FROM generate_series(0, 299) AS t(i)`
    )
  }
  // A third with 40 times the rows: its planner estimate differs.
  await cluster.admin(`CREATE TABLE hr.many (person text, room text, badge bigint)`)
  await cluster.admin(`INSERT INTO hr.many SELECT 'p' || (i % 30), 'R' || (1 + i % 3), i FROM generate_series(0, 11999) AS t(i)`)
  await cluster.admin('ANALYZE hr.small_ids, hr.big_ids, hr.many')
  await cluster.admin('GRANT USAGE ON SCHEMA hr TO qa_reader')
  await cluster.admin('GRANT SELECT ON hr.small_ids, hr.big_ids, hr.many TO qa_reader')
  process.env.PGPASSWORD = PASSWORD
}, 120_000)
afterAll(async () => {
  await closePg()
  await cluster?.destroy()
})
beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-pg-trust-'))
  process.env.PGPASSWORD = PASSWORD
})
afterEach(() => closeLedgerWorkspace(store, ws))

function link(name: string, table: string): number {
  return linkPostgres(store.db, { name, url: cluster.url('qa_reader'), table, personColumn: 'person', ...officerAct(store.db) }).id
}

/**
 * A fake PostgreSQL on loopback: asks every client for its password in clear and keeps what it gets. It runs in its own
 * thread: a release blocks this one while its PostgreSQL client works.
 */
const CATCHER = `
const net = require('node:net')
const { parentPort } = require('node:worker_threads')
const server = net.createServer((s) => {
  parentPort.postMessage({ connection: true })
  let buf = Buffer.alloc(0)
  let started = false
  s.on('error', () => {})
  s.on('data', (d) => {
    buf = Buffer.concat([buf, d])
    if (!started && buf.length >= 8) {
      const len = buf.readInt32BE(0)
      if (buf.readInt32BE(4) === 80877103) {
        s.write('N')
        buf = buf.subarray(8)
        return
      }
      if (buf.length < len) return
      buf = buf.subarray(len)
      started = true
      const r = Buffer.alloc(9)
      r.write('R', 0)
      r.writeInt32BE(8, 1)
      r.writeInt32BE(3, 5)
      s.write(r)
    }
    if (started && buf.length >= 5 && buf[0] === 0x70) {
      const len = buf.readInt32BE(1)
      if (buf.length < 1 + len) return
      parentPort.postMessage({ password: buf.subarray(5, 1 + len).toString('utf8').replace(/\\0$/, '') })
      s.destroy()
    }
  })
})
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }))
`

describe('finding 5: linking reveals nothing about the private rows', () => {
  it('a bigint column is integer whatever its values, and no row estimate is shown or stored in clear', () => {
    const small = getDataset(store.db, link('small', 'hr.small_ids')).info
    const big = getDataset(store.db, link('big', 'hr.big_ids')).info
    const many = getDataset(store.db, link('many', 'hr.many')).info
    const shown = (d: typeof small) => JSON.stringify({ columns: d.columns, rowCount: d.rowCount, unit: d.unit, source: d.source })
    // Neighbouring relations (one value beyond 2^53 or not, 300 rows or 12,000): the analyst sees the same entry.
    expect(shown(big)).toBe(shown(small))
    expect(shown(many)).toBe(shown(small))
    expect(big.columns.map((c) => `${c.name}:${c.type}`)).toEqual(['person:text', 'room:text', 'badge:integer'])
    // Not in the workspace file either (the analyst can read it with sqlite3).
    const stored =
      JSON.stringify(store.db.prepare('SELECT * FROM dataset_postgres_sources').all()) +
      JSON.stringify(store.db.prepare('SELECT * FROM datasets').all())
    expect(stored).not.toMatch(/rowEstimate|12000|12,000/)
    expect(workspaceBytes(ws.db)).not.toContain('"rowEstimate"')
  })

  it('a value beyond 2^53 read by a release is empty (NULL), never a failure after the charge; a threshold query never reads it', async () => {
    const ds = link('big', 'hr.big_ids')
    await h['budgets/set']({ datasetId: ds, epsilon: '20', reason: 'test', ...officerAct(store.db) })
    // Counts per room: the bigint is never brought into JS; answered.
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 2 },
      threshold: { kind: 'constant', value: 5 },
      groups: [['R1'], ['R2']]
    })
    expect((await h['releases/run']({ queryId: q, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 10 } })).answer!.kind).toBe(
      'threshold'
    )
    // Anomaly identification reads the badge values: the one beyond 2^53 is empty, its row left out; answered.
    const aiq = saveQuery(store.db, ds, 'odd badges', {
      kind: 'anomaly-identification',
      columns: ['badge'],
      binWidths: [1000],
      metric: 'l1',
      radius: 0,
      maxNeighbours: 2,
      k: 1,
      records: [[7]]
    })
    const before = (await h['ledger/entries']({})).total
    const r = await h['releases/run']({ queryId: aiq, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1 } })
    expect(r.answer!.kind).toBe('anomaly-identification')
    expect((await h['ledger/entries']({})).total).toBe(before + 1)
  })
})

describe('finding 6: a PostgreSQL link is a signed officer act, checked at every use', () => {
  it('a stored URL rewritten to a listener on this machine: refused before any connection, nothing charged', async () => {
    const ds = link('small', 'hr.small_ids')
    await h['budgets/set']({ datasetId: ds, epsilon: '20', reason: 'test', ...officerAct(store.db) })
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 2 },
      threshold: { kind: 'constant', value: 5 },
      groups: [['R1'], ['R2']]
    })
    const catcher = await passwordCatcher(CATCHER)
    try {
      // The attacker edits the workspace file (sqlite3): the link now points at their listener.
      store.db
        .prepare('UPDATE dataset_postgres_sources SET url = ? WHERE dataset_id = ?')
        .run(`postgresql://qa_reader@127.0.0.1:${catcher.port}/qa`, ds)
      const before = (await h['ledger/entries']({})).total
      const m = await failure(h['releases/run']({ queryId: q, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 10 } }))
      // Without the signature check the listener was sent the server's password in clear.
      await new Promise((r) => setTimeout(r, 200))
      expect(catcher.caught).toEqual([])
      expect(m).toBe(
        'The PostgreSQL link of dataset "small" is not the one a privacy officer signed (its connection, relation, columns or unit were changed in the workspace file); ask the officer to link it again. Nothing was charged.'
      )
      expect(catcher.connections()).toBe(0)
      expect((await h['ledger/entries']({})).total).toBe(before)
    } finally {
      await catcher.close()
    }
  })

  it('other rewrites (password variable, relation, unit, signature removed) are refused too; the untouched link works', async () => {
    const ds = link('small', 'hr.small_ids')
    await h['budgets/set']({ datasetId: ds, epsilon: '20', reason: 'test', ...officerAct(store.db) })
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 1 },
      threshold: { kind: 'constant', value: 5 },
      groups: [['R1'], ['R2']]
    })
    const run = () => h['releases/run']({ queryId: q, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 10 } })
    expect((await run()).answer!.kind).toBe('threshold')
    // The attacker has sqlite3: the trigger that fixes a unit goes first.
    store.db.exec('DROP TRIGGER dataset_units_fixed')
    const edits: Array<[string, string]> = [
      [
        `UPDATE dataset_postgres_sources SET password_env = 'OTHER_PGPASSWORD' WHERE dataset_id = ${ds}`,
        `UPDATE dataset_postgres_sources SET password_env = NULL WHERE dataset_id = ${ds}`
      ],
      [
        `UPDATE dataset_postgres_sources SET relation_name = 'many' WHERE dataset_id = ${ds}`,
        `UPDATE dataset_postgres_sources SET relation_name = 'small_ids' WHERE dataset_id = ${ds}`
      ],
      [
        `UPDATE dataset_units SET person_column = NULL WHERE dataset_id = ${ds}`,
        `UPDATE dataset_units SET person_column = 'person' WHERE dataset_id = ${ds}`
      ]
    ]
    for (const [edit, undo] of edits) {
      store.db.exec(edit)
      expect(await failure(run())).toMatch(/^The PostgreSQL link of dataset "small" is not the one a privacy officer signed/)
      store.db.exec(undo)
    }
    const sig = store.db.prepare('SELECT signature FROM dataset_postgres_sources WHERE dataset_id = ?').get(ds) as { signature: string }
    store.db.prepare('UPDATE dataset_postgres_sources SET signature = NULL WHERE dataset_id = ?').run(ds)
    expect(await failure(run())).toMatch(/^The PostgreSQL link of dataset "small" is not the one a privacy officer signed/)
    store.db.prepare('UPDATE dataset_postgres_sources SET signature = ? WHERE dataset_id = ?').run(sig.signature, ds)
    expect((await run()).answer!.kind).toBe('threshold')
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it("linking needs the officer; from a door, testing a connection does too (the password is the server's)", async () => {
    expect(() => linkPostgres(store.db, { name: 'x', url: cluster.url('qa_reader'), table: 'hr.small_ids', personColumn: 'person' })).toThrow(
      /No privacy officer is registered|officer act/
    )
    officerAct(store.db)
    expect(() => linkPostgres(store.db, { name: 'x', url: cluster.url('qa_reader'), table: 'hr.small_ids', personColumn: 'person' })).toThrow(
      /^This is an officer act: it needs the passphrase of officer "Test Officer"; nothing was written$/
    )
    const d = datasetsHandlers({ store } as unknown as ServiceContext)
    const catcher = await passwordCatcher(CATCHER)
    try {
      const url = `postgresql://qa_reader@127.0.0.1:${catcher.port}/qa`
      expect(await failure(d['datasets/postgres-relations']({ url }))).toMatch(/^This is an officer act/)
      expect(await failure(d['datasets/link-postgres']({ name: 'x', url, table: 'hr.small_ids' }))).toMatch(/^This is an officer act/)
      expect(catcher.connections()).toBe(0)
    } finally {
      await catcher.close()
    }
    const { relations } = await d['datasets/postgres-relations']({ url: cluster.url('qa_reader'), ...officerAct(store.db) })
    expect(relations.length).toBe(3)
    const info = await d['datasets/link-postgres']({
      name: 'small',
      url: cluster.url('qa_reader'),
      table: 'hr.small_ids',
      personColumn: 'person',
      ...officerAct(store.db)
    })
    expect(info.source).toBe('linked-postgres')
    // Recorded as a signed officer act; verify accepts it.
    const ev = store.db.prepare(`SELECT actor, signer FROM audit_events WHERE kind = 'officer/link-postgres'`).all() as Array<{
      actor: string
      signer: string | null
    }>
    expect(ev).toHaveLength(1)
    expect(ev[0].actor).toBe('Test Officer')
    expect(ev[0].signer).not.toBeNull()
    expect(verifyLedger(store.db).ok).toBe(true)
  })
})

describe('migration 010: links made before it', () => {
  it('keep no row estimate in clear and are refused, with no connection, until an officer links them again', async () => {
    store.close()
    // A workspace of schema 9 with a link as it was made then: the planner's estimate in the catalog and the link.
    const file = join(ws.dir, 'schema-9.sqlite')
    const old = openStore(file, { migrations: migrations.filter((m) => m.version <= 9) })
    const columns = [
      { name: 'person', pgType: 'text', type: 'text' as const },
      { name: 'badge', pgType: 'bigint', type: 'integer' as const }
    ]
    // The catalog rows as a link wrote them then (schema 9: no dataset uid).
    const ds = Number(
      old.db
        .prepare(
          `INSERT INTO datasets (name, table_name, source_file, source_bytes, delimiter, row_count, skipped_rows) VALUES ('old link', 'ds_old', 'hr.small_ids', 0, ',', 12345, 0)`
        )
        .run().lastInsertRowid
    )
    old.db.prepare('UPDATE datasets SET table_name = ? WHERE id = ?').run(`ds_${ds}`, ds)
    columns.forEach((c, j) =>
      old.db
        .prepare('INSERT INTO dataset_columns (dataset_id, position, name, sql_name, type, type_source, per_person) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(ds, j + 1, c.name, `c${j + 1}`, c.type, 'inferred', j === 0 ? 1 : 0)
    )
    old.db.prepare('INSERT INTO dataset_units (dataset_id, person_column) VALUES (?, ?)').run(ds, 'person')
    old.db
      .prepare(
        'INSERT INTO dataset_postgres_sources (dataset_id, url, password_env, schema_name, relation_name, columns, fingerprint) VALUES (?, ?, NULL, ?, ?, ?, ?)'
      )
      .run(
        ds,
        'postgresql://qa_reader@127.0.0.1:1/qa',
        'hr',
        'small_ids',
        JSON.stringify(columns),
        JSON.stringify({ relation: 'hr.small_ids', oid: 1, kind: 'table', rowEstimate: 12345 })
      )
    old.close()
    store = openStore(file)
    expect(getDataset(store.db, ds).info.rowCount).toBe(0)
    expect(JSON.stringify(store.db.prepare('SELECT * FROM dataset_postgres_sources').all())).not.toContain('12345')
    expect(() => linkedPostgresOf(store.db, ds)).toThrow(/^The PostgreSQL link of dataset "old link" is not the one a privacy officer signed/)
  })
})
