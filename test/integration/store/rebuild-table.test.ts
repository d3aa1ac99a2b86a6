/**
 * rebuildTable inside a migration's transaction, with foreign keys on: the rows, the children's references (and their
 * enforcement), the indexes, triggers and AUTOINCREMENT counter all survive; the way migration 005 rebuilt a table
 * fails on a parent that has children; and migration 019 keeps a v18 workspace's releases, queries and ledger whole.
 */
import { afterEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { rebuildTable } from '../../../src-main/services/store/rebuild-table'
import { type Store, openStore } from '../../../src-main/services/store/store'
import { migrations } from '../../../src-main/services/store/migrations'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { appendEntry, headOf } from '../../../src-main/services/chain/ledger-chain'
import { craftDataset } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { tempWorkspace } from '../helpers'

let ws: ReturnType<typeof tempWorkspace> | undefined
let store: Store | undefined
afterEach(() => {
  store?.close()
  store = undefined
  ws?.cleanup()
  ws = undefined
})

const PARENT = `CREATE TABLE parent (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('a', 'b')),
    v    REAL,
    up   INTEGER REFERENCES parent(id)
  ) STRICT`
const PARENT_NO_CHECK = PARENT.replace(" CHECK (kind IN ('a', 'b'))", '')

/** A parent with a CHECK, a self-reference, an index, triggers (one counting inserts) and a child that references it. */
function synthetic(): Database.Database {
  const db = new Database(':memory:')
  db.pragma('foreign_keys = ON')
  db.exec(`${PARENT};
    CREATE TABLE child (parent_id INTEGER PRIMARY KEY REFERENCES parent(id), note TEXT NOT NULL) STRICT;
    CREATE TABLE inserts (n INTEGER NOT NULL) STRICT; INSERT INTO inserts VALUES (0);
    INSERT INTO parent (kind, v, up) VALUES ('a', 1.5, NULL), ('b', NULL, 1), ('a', 3, 2), ('b', 4, NULL);
    DELETE FROM parent WHERE id = 4;
    CREATE INDEX parent_by_kind ON parent (kind, v);
    CREATE TRIGGER parent_no_delete BEFORE DELETE ON parent BEGIN SELECT RAISE(ABORT, 'parents stay'); END;
    CREATE TRIGGER parent_counted AFTER INSERT ON parent BEGIN UPDATE inserts SET n = n + 1; END;
    INSERT INTO child VALUES (1, 'one'), (3, 'three');`)
  return db
}

const everything = (db: Database.Database, table: string) => db.prepare(`SELECT *, typeof(id) t_id FROM ${table} ORDER BY rowid`).all()

describe('rebuildTable', () => {
  it('rebuilds a parent table inside a transaction with foreign keys on, keeping rows, children, objects and its counter', () => {
    const db = synthetic()
    const before = db.prepare('SELECT id, kind, v, typeof(v) tv, up FROM parent ORDER BY id').all()
    const childSql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'child'").pluck().get()
    const objects = db.prepare("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'parent' AND type <> 'table' ORDER BY name").all()
    const result = db.transaction(() => rebuildTable(db, { table: 'parent', create: PARENT_NO_CHECK }))()
    expect(result.rows).toBe(3)
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(db.pragma('defer_foreign_keys', { simple: true })).toBe(0)
    expect(db.prepare('SELECT id, kind, v, typeof(v) tv, up FROM parent ORDER BY id').all()).toEqual(before)
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'child'").pluck().get()).toBe(childSql)
    expect(db.prepare("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'parent' AND type <> 'table' ORDER BY name").all()).toEqual(objects)
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name LIKE 'qa_rebuild_%'").pluck().get()).toBe(0)
    expect(db.prepare("SELECT count(*) FROM sqlite_temp_master WHERE name LIKE 'qa_rebuild_%'").pluck().get()).toBe(0)
    // No trigger fired on the copy.
    expect(db.prepare('SELECT n FROM inserts').pluck().get()).toBe(0)
    // The CHECK is gone; ids are not reused (4 was deleted before the rebuild); triggers and keys still hold.
    expect(db.prepare("INSERT INTO parent (kind) VALUES ('new kind')").run().lastInsertRowid).toBe(5)
    expect(db.prepare('SELECT n FROM inserts').pluck().get()).toBe(1)
    expect(() => db.prepare('DELETE FROM parent WHERE id = 2').run()).toThrow(/parents stay/)
    expect(() => db.prepare("INSERT INTO child VALUES (99, 'orphan')").run()).toThrow(/FOREIGN KEY constraint failed/)
    expect(() => db.prepare("INSERT INTO parent (kind, up) VALUES ('a', 98)").run()).toThrow(/FOREIGN KEY constraint failed/)
    expect(db.pragma('foreign_key_check')).toEqual([])
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    db.close()
  })

  it('is the fix for the trap: rebuilt the way migration 005 does it, the same parent fails and the transaction rolls back', () => {
    const db = synthetic()
    const before = everything(db, 'parent')
    const way005 = db.transaction(() =>
      db.exec(`${PARENT_NO_CHECK.replace('TABLE parent', 'TABLE parent_new')};
        INSERT INTO parent_new SELECT * FROM parent; DROP TABLE parent; ALTER TABLE parent_new RENAME TO parent;`)
    )
    expect(() => way005()).toThrow(/FOREIGN KEY constraint failed/)
    // Deferring the keys alone only moves the failure to the commit: the children counted as orphaned stay counted.
    const deferredOnly = db.transaction(() => {
      db.pragma('defer_foreign_keys = ON')
      db.exec(`${PARENT_NO_CHECK.replace('TABLE parent', 'TABLE parent_new')};
        INSERT INTO parent_new SELECT * FROM parent; DROP TABLE parent; ALTER TABLE parent_new RENAME TO parent;`)
    })
    expect(() => deferredOnly()).toThrow(/FOREIGN KEY constraint failed/)
    expect(everything(db, 'parent')).toEqual(before)
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'parent_new'").pluck().get()).toBe(0)
    db.close()
  })

  it('refuses what it cannot keep, and leaves the table as it was', () => {
    const db = synthetic()
    const before = everything(db, 'parent')
    expect(() => rebuildTable(db, { table: 'parent', create: PARENT_NO_CHECK })).toThrow(/inside a transaction/)
    const run = (create: string) => db.transaction(() => rebuildTable(db, { table: 'parent', create }))()
    expect(() => run(PARENT_NO_CHECK.replace(',\n    up   INTEGER REFERENCES parent(id)', ''))).toThrow(/lacks up/)
    expect(() => run(PARENT_NO_CHECK.replace('v    REAL', 'v    REAL, w TEXT'))).toThrow(/adds w/)
    expect(() => run(PARENT_NO_CHECK.replace('TABLE parent', 'TABLE other'))).toThrow(/CREATE TABLE parent/)
    // A copy the new definition refuses (a narrower CHECK) rolls back whole.
    expect(() => run(PARENT.replace("('a', 'b')", "('a')"))).toThrow(/CHECK constraint failed/)
    expect(everything(db, 'parent')).toEqual(before)
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'parent'").pluck().get()).toBe(PARENT)
    db.exec('CREATE TABLE cascading (parent_id INTEGER REFERENCES parent(id) ON DELETE CASCADE) STRICT; INSERT INTO cascading VALUES (1)')
    expect(() => run(PARENT_NO_CHECK)).toThrow(/cascading references parent ON DELETE CASCADE/)
    expect(db.prepare('SELECT count(*) FROM cascading').pluck().get()).toBe(1)
    db.close()
  })
})

describe('migration 019 on a workspace with releases', () => {
  it('drops the kind CHECKs, admits signed alarm acts, and keeps every row, reference and hash', () => {
    ws = tempWorkspace('qa-migration-019-')
    const old = openStore(ws.db, { migrations: migrations.filter((m) => m.version <= 18) })
    const ds = craftDataset(
      old.db,
      'visits',
      [
        { name: 'room', type: 'text' },
        { name: 'code', type: 'integer' }
      ],
      Array.from({ length: 60 }, (_, i) => [`R${i % 3}`, i])
    )
    setBudget(old.db, { datasetId: ds, epsilon: '10', reason: 'for the test', ...officerAct(old.db, 'olga') })
    const first = saveQuery(old.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 10 },
      groups: [['R0'], ['R1']]
    })
    const second = saveQuery(
      old.db,
      ds,
      'rooms',
      { kind: 'threshold', groupBy: ['room'], count: { kind: 'rows' }, threshold: { kind: 'constant', value: 15 }, groups: [['R2']] },
      first.id
    )
    const odd = saveQuery(old.db, ds, 'odd', {
      kind: 'anomaly-identification',
      columns: ['code'],
      binWidths: [1],
      metric: 'l1',
      radius: 1,
      beta: 5,
      k: 2,
      records: [[2]]
    })
    const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.05, alpha: 10 }
    runRelease(old.db, { queryId: first.id, params: tslm })
    runRelease(old.db, { queryId: second.id, params: tslm })
    runRelease(old.db, { queryId: odd.id, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1 } })
    const tables = ['queries', 'releases', 'release_ex_post', 'ledger_entries', 'ledger_cell_charges', 'ledger_head', 'sqlite_sequence']
    const snapshot = (db: Database.Database) => Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()]))
    const before = snapshot(old.db)
    expect(before.release_ex_post.length).toBeGreaterThan(0)
    const childSql = old.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'release_ex_post'").pluck().get()
    const objects = (db: Database.Database) =>
      db
        .prepare(
          "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name IN ('queries', 'releases', 'ledger_entries') ORDER BY name"
        )
        .all()
    const objectsBefore = objects(old.db)
    old.close()

    store = openStore(ws.db, { migrations: migrations.filter((m) => m.version <= 19) })
    const db = store.db
    expect(store.schemaVersion()).toBe(19)
    expect(snapshot(db)).toEqual(before)
    expect(objects(db)).toEqual(objectsBefore)
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'release_ex_post'").pluck().get()).toBe(childSql)
    expect(db.pragma('foreign_key_check')).toEqual([])
    const v = verifyLedger(db)
    expect(v.ok, v.message).toBe(true)
    for (const t of ['queries', 'releases']) {
      expect(db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(t)).not.toMatch(/CHECK \(kind/)
    }
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'releases'").pluck().get()).toMatch(
      /CHECK \(status IN \('charged', 'answered', 'failed'\)\)/
    )
    // Keys still hold on the rebuilt tables.
    expect(() => db.prepare("INSERT INTO release_ex_post VALUES (9999, '{}')").run()).toThrow(/FOREIGN KEY constraint failed/)
    expect(() => db.prepare('UPDATE releases SET kind = ? WHERE id = 1').run('x')).toThrow(/charge cannot change|answered once/)
    // Releases keep working, and ids go on from where they were.
    const r = runRelease(db, { queryId: first.id, params: tslm })
    expect(r.releaseId).toBe(4)
    // An alarm act: signed, amount 0, no notion; anything else is refused by the schema.
    const alarm = (over: { amountNano?: number; signed?: boolean }) =>
      db.transaction(() =>
        appendEntry(db, {
          kind: 'alarm' as never,
          datasetId: ds,
          datasetName: 'visits',
          notion: null,
          amountNano: over.amountNano ?? 0,
          cells: [],
          releaseId: null,
          actor: 'olga',
          description: 'alarm defined',
          detail: {},
          signer: over.signed === false ? undefined : { keyId: 'k', sign: () => 'signature' }
        })
      )()
    const head = headOf(db)
    expect(() => alarm({ signed: false })).toThrow(/CHECK constraint failed/)
    expect(() => alarm({ amountNano: 1 })).toThrow(/CHECK constraint failed/)
    expect(headOf(db)).toEqual(head)
    expect(alarm({}).kind).toBe('alarm')
  })
})
