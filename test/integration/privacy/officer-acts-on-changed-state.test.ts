/**
 * The attacks of a file writer without the officer's passphrase on what an officer signed, through the state the
 * signatures do not cover by themselves:
 * - a linked dataset turned into an "imported" one (its signed source row deleted, a table of the workspace put under
 *   its name), or its link put back in the unsigned form, must not keep the officer's public declaration and budget:
 *   verify fails, admission denies, nothing is public;
 * - an officer's next act must not sign (and so clear) a state changed outside the app: a budget set after the person
 *   column was changed in the file is refused, and the change stays a finding.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deleteDataset, getDataset } from '../../../src-main/services/catalog/catalog'
import { recordPrivacyUnit } from '../../../src-main/services/catalog/unit-record'
import { declarePublic } from '../../../src-main/services/datasets/declare-public'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { admission } from '../../../src-main/services/ledger/admission'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { inspectWorkspace } from '../../../src-main/services/trust/kernel'
import { isPublicDataset } from '../../../src-main/services/trust/public-flag'
import { tempWorkspace } from '../helpers'
import { craftDataset } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-acts-changed-')
  store = openStore(ws.db)
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

/** As the file writer: run `write` on the workspace file with the named tables' triggers dropped, then restored. */
function writeFile(tables: string[], write: (a: Database.Database) => void): void {
  store.close()
  const a = new Database(ws.db)
  const triggers = a
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN (${tables.map(() => '?').join(', ')})`)
    .all(...tables) as Array<{ name: string; sql: string }>
  for (const t of triggers) a.exec(`DROP TRIGGER "${t.name}"`)
  write(a)
  for (const t of triggers) a.exec(t.sql)
  a.close()
  store = openStore(ws.db)
}

describe('a file writer and the officer’s signed acts', () => {
  it('a signed link removed in the file does not turn the dataset into an imported one that keeps the officer’s acts', () => {
    const file = join(ws.dir, 'census.csv')
    writeFileSync(file, 'person,salary\nroom-a,1\nroom-b,2\n')
    const linked = linkFile(store.db, { file, name: 'census', personColumn: null, ...officerAct(store.db) })
    declarePublic(store.db, { datasetId: linked.id, reason: 'open data', ...officerAct(store.db) })
    setBudget(store.db, { datasetId: linked.id, epsilon: '100', reason: 'open', ...officerAct(store.db) })
    const before = getDataset(store.db, linked.id)
    expect(isPublicDataset(store.db, linked.id)).toBe(true)
    writeFile(['dataset_sources'], (a) => {
      a.prepare('DELETE FROM dataset_sources WHERE dataset_id = ?').run(linked.id)
      a.exec(`CREATE TABLE "${before.tableName}" (${before.columns.map((c) => `"${c.sqlName}"`).join(', ')})`)
      a.prepare(`INSERT INTO "${before.tableName}" VALUES (?, ?), (?, ?)`).run('alice', 250000, 'bob', 40000)
    })
    const problems = inspectWorkspace(store.db).problems.map((p) => p.reason)
    expect(problems.some((r) => r.includes('link of dataset "census" was removed or unsigned in the workspace file'))).toBe(true)
    expect(verifyLedger(store.db).ok).toBe(false)
    expect(isPublicDataset(store.db, linked.id)).toBe(false)
    expect(admission(store.db, linked.id, 'census', 'eps-dp', ['{}'], 50e9).allowed).toBe(false)
  })

  it('a signed link put back in the unsigned form of links made before signing is a finding', () => {
    const file = join(ws.dir, 'census.csv')
    writeFileSync(file, 'person,salary\nroom-a,1\nroom-b,2\n')
    const linked = linkFile(store.db, { file, name: 'census', personColumn: null, ...officerAct(store.db) })
    declarePublic(store.db, { datasetId: linked.id, reason: 'open data', ...officerAct(store.db) })
    writeFile(['dataset_sources'], (a) => a.prepare('UPDATE dataset_sources SET signer = NULL, signature = NULL WHERE dataset_id = ?').run(linked.id))
    const problems = inspectWorkspace(store.db).problems.map((p) => p.reason)
    expect(problems.some((r) => r.includes('link of dataset "census" was removed or unsigned in the workspace file'))).toBe(true)
    expect(verifyLedger(store.db).ok).toBe(false)
    expect(isPublicDataset(store.db, linked.id)).toBe(false)
  })

  it('an audit event written with the file under an inherited property name as its kind is reported, never a crash', () => {
    const file = join(ws.dir, 'census.csv')
    writeFileSync(file, 'person,salary\nroom-a,1\nroom-b,2\n')
    const linked = linkFile(store.db, { file, name: 'census', personColumn: null, ...officerAct(store.db) })
    writeFile(['audit_events'], (a) =>
      a
        .prepare(
          "INSERT INTO audit_events (at, kind, actor, subject, detail, signer, signature) VALUES ('2026-01-01T00:00:00.000Z', 'constructor', 'x', ?, '{}', 'x', 'x')"
        )
        .run(`dataset:${linked.id}`)
    )
    expect(inspectWorkspace(store.db).problems.length).toBeGreaterThan(0)
    expect(verifyLedger(store.db).ok).toBe(false)
  })

  it('a dataset deleted by the app after its link is no finding', () => {
    const file = join(ws.dir, 'gone.csv')
    writeFileSync(file, 'person,v\na,1\nb,2\n')
    const linked = linkFile(store.db, { file, name: 'gone', personColumn: null, ...officerAct(store.db) })
    deleteDataset(store.db, linked.id)
    expect(inspectWorkspace(store.db).problems).toEqual([])
  })

  it('an officer’s budget after the person column was changed in the file is refused and signs nothing', () => {
    const id = craftDataset(
      store.db,
      'visits',
      [
        { name: 'person', type: 'text' },
        { name: 'room', type: 'text' }
      ],
      [
        ['P', 'R1'],
        ['P', 'R2']
      ]
    )
    store.db.transaction(() => recordPrivacyUnit(store.db, id, 'person', []))()
    setBudget(store.db, { datasetId: id, epsilon: '5', reason: 'trial', ...officerAct(store.db) })
    writeFile(['dataset_units'], (a) => a.prepare("UPDATE dataset_units SET person_column = 'room' WHERE dataset_id = ?").run(id))
    const entries = (store.db.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n
    expect(() => setBudget(store.db, { datasetId: id, epsilon: '4', reason: 'lower', ...officerAct(store.db) })).toThrow(
      /No officer act is recorded while the workspace's ledger does not verify .*privacy unit of dataset "visits"/
    )
    expect((store.db.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n).toBe(entries)
    expect(inspectWorkspace(store.db).problems.some((p) => p.reason.includes('privacy unit of dataset "visits"'))).toBe(true)
    expect(verifyLedger(store.db).ok).toBe(false)
  })
})
