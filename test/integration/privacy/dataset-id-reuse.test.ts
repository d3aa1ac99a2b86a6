/**
 * The attack: the AUTOINCREMENT counter of dataset ids (`sqlite_sequence`) is a plain row. A file writer deletes a
 * dataset the officer declared public and budgeted, resets the counter, and the officer's next link (a private file)
 * would get the deleted dataset's id, and with it the signed public declaration (uncharged sweeps on true counts) and
 * budget. A new dataset's id is above every id the ledger, releases and saved queries ever named.
 *
 * The ledger can only say which ids it names while it verifies: a file writer who moves the deleted dataset's signed,
 * checkpointed acts out of the ledger while the officer links, and puts them back afterwards, would have the new link
 * reuse the id the acts name. No officer act is recorded while the ledger does not verify (the kernel judges the
 * workspace before the act's checkpoint is kept), so the link is refused and nothing of it stays.
 *
 * Nor can a file writer have the officer link in an older copy of the workspace (one from before those acts, which
 * verifies) and carry the signed link over into the current one: every dataset has a random uid that its link signs and
 * the officer's acts name, so the acts count only for the dataset they were signed for, and verify reports the reuse.
 */
import { copyFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deleteDataset, getDataset, listDatasets } from '../../../src-main/services/catalog/catalog'
import { declarePublic } from '../../../src-main/services/datasets/declare-public'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { admission } from '../../../src-main/services/ledger/admission'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { inspectWorkspace } from '../../../src-main/services/trust/kernel'
import { checkpoint, listOfficers, registerOfficer } from '../../../src-main/services/trust/officers'
import { tempWorkspace } from '../helpers'
import { craftDataset } from '../ledger/fixtures'
import { officerAct, testPassphrase } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-id-reuse-')
  store = openStore(ws.db)
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

describe('a deleted dataset id is never handed out again', () => {
  it("counter reset after deleting a public, budgeted dataset: the officer's new private link is private, with no budget", () => {
    const census = craftDataset(store.db, 'census', [{ name: 'room', type: 'text' }], [['a'], ['b']])
    declarePublic(store.db, { datasetId: census, reason: 'open data', ...officerAct(store.db) })
    setBudget(store.db, { datasetId: census, epsilon: '100', reason: 'toy data', ...officerAct(store.db) })
    expect(getDataset(store.db, census).info.public).toBe(true)
    deleteDataset(store.db, census)
    store.close()
    const a = new Database(ws.db)
    a.prepare(`UPDATE sqlite_sequence SET seq = ? WHERE name = 'datasets'`).run(census - 1)
    a.close()
    store = openStore(ws.db)
    const file = join(ws.dir, 'salaries.csv')
    writeFileSync(file, 'person,salary\nalice,250000\nbob,40000\n')
    const linked = linkFile(store.db, { file, name: 'salaries', personColumn: null, ...officerAct(store.db) })
    expect(linked.id).toBeGreaterThan(census)
    expect(getDataset(store.db, linked.id).info.public).toBe(false)
    const adm = admission(store.db, linked.id, 'salaries', 'eps-dp', ['{}'], 50e9)
    expect(adm.allowed).toBe(false)
    expect(verifyLedger(store.db).ok).toBe(true)
  })
})

/** The file writer's edit: the ledger entries naming `datasetId` moved to a table of its own, the id counter reset. */
function hideActs(path: string, datasetId: number): void {
  const a = new Database(path)
  const triggers = a.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'ledger_entries'`).all() as Array<{
    name: string
    sql: string
  }>
  a.exec(`CREATE TABLE hidden_triggers (name TEXT, sql TEXT)`)
  for (const t of triggers) {
    a.prepare('INSERT INTO hidden_triggers VALUES (?, ?)').run(t.name, t.sql)
    a.exec(`DROP TRIGGER "${t.name}"`)
  }
  a.exec(`CREATE TABLE hidden_entries AS SELECT * FROM ledger_entries WHERE dataset_id = ${datasetId}`)
  a.exec(`DELETE FROM ledger_entries WHERE dataset_id = ${datasetId}`)
  a.prepare(`UPDATE sqlite_sequence SET seq = ? WHERE name = 'datasets'`).run(datasetId - 1)
  a.close()
}

/** ... and put back afterwards, triggers included: the ledger is as the officers signed it. */
function restoreActs(path: string): void {
  const a = new Database(path)
  a.exec('INSERT INTO ledger_entries SELECT * FROM hidden_entries; DROP TABLE hidden_entries')
  for (const t of a.prepare('SELECT sql FROM hidden_triggers').pluck().all() as string[]) a.exec(t)
  a.exec('DROP TABLE hidden_triggers')
  a.close()
}

describe('no officer act is recorded while the ledger does not verify', () => {
  it('signed acts on a deleted dataset hidden while the officer links, put back afterwards: the link is refused and leaves nothing', () => {
    const census = craftDataset(store.db, 'census', [{ name: 'room', type: 'text' }], [['a'], ['b']])
    declarePublic(store.db, { datasetId: census, reason: 'open data', ...officerAct(store.db) })
    setBudget(store.db, { datasetId: census, epsilon: '100', reason: 'toy data', ...officerAct(store.db) })
    deleteDataset(store.db, census)
    store.close()
    hideActs(ws.db, census)
    store = openStore(ws.db)
    expect(verifyLedger(store.db).ok).toBe(false)
    const file = join(ws.dir, 'salaries.csv')
    writeFileSync(file, 'person,salary\nalice,250000\nbob,40000\n')
    const checkpoints = store.db.prepare('SELECT count(*) FROM ledger_checkpoints').pluck().get()
    const events = store.db.prepare('SELECT count(*) FROM audit_events').pluck().get()
    expect(() => linkFile(store.db, { file, name: 'salaries', personColumn: null, ...officerAct(store.db) })).toThrow(
      /No officer act is recorded while the workspace's ledger does not verify .*run "quiet-alarm ledger verify".*nothing was written$/
    )
    expect(store.db.prepare('SELECT count(*) FROM ledger_checkpoints').pluck().get()).toBe(checkpoints)
    expect(store.db.prepare('SELECT count(*) FROM audit_events').pluck().get()).toBe(events)
    expect(listDatasets(store.db).map((d) => d.name)).toEqual([])
    store.close()
    restoreActs(ws.db)
    store = openStore(ws.db)
    expect(verifyLedger(store.db).ok).toBe(true)
    expect(listDatasets(store.db)).toEqual([])
    // Once the ledger verifies again, the link gets an id no act names: private, with no budget.
    const linked = linkFile(store.db, { file, name: 'salaries', personColumn: null, ...officerAct(store.db) })
    expect(linked.id).toBeGreaterThan(census)
    expect(getDataset(store.db, linked.id).info.public).toBe(false)
    expect(admission(store.db, linked.id, 'salaries', 'eps-dp', ['{}'], 50e9).allowed).toBe(false)
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('a budget, a public declaration, a checkpoint and a new officer are refused on a ledger changed outside the app', () => {
    const rooms = craftDataset(store.db, 'rooms', [{ name: 'room', type: 'text' }], [['a'], ['b']])
    setBudget(store.db, { datasetId: rooms, epsilon: '5', reason: 'first', ...officerAct(store.db) })
    store.close()
    const a = new Database(ws.db)
    for (const t of a.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'ledger_entries'`).pluck().all() as string[])
      a.exec(`DROP TRIGGER "${t}"`)
    a.prepare(`UPDATE ledger_entries SET amount_nano = 100e9 WHERE kind = 'budget'`).run()
    a.close()
    store = openStore(ws.db)
    const head = () => [
      store.db.prepare('SELECT count(*) FROM ledger_entries').pluck().get(),
      store.db.prepare('SELECT count(*) FROM ledger_checkpoints').pluck().get(),
      store.db.prepare('SELECT count(*) FROM audit_events').pluck().get(),
      listOfficers(store.db).length
    ]
    const before = head()
    const cred = officerAct(store.db)
    const refused = /^No officer act is recorded while the workspace's ledger does not verify/
    expect(() => setBudget(store.db, { datasetId: rooms, epsilon: '6', reason: 'again', ...cred })).toThrow(refused)
    expect(() => declarePublic(store.db, { datasetId: rooms, reason: 'open data', ...cred })).toThrow(refused)
    expect(() => checkpoint(store.db, cred)).toThrow(refused)
    expect(() => registerOfficer(store.db, { name: 'Second', passphrase: testPassphrase('Second'), by: cred })).toThrow(refused)
    expect(head()).toEqual(before)
    expect(verifyLedger(store.db).ok).toBe(false)
  })
})

describe('an officer act counts only for the dataset it was signed for', () => {
  /** A copy of the workspace as it is now (the store stays open). */
  const snapshot = (name: string) => {
    const path = join(ws.dir, name)
    store.db.exec(`VACUUM INTO '${path}'`)
    return path
  }
  const replaceWorkspace = (path: string) => {
    store.close()
    for (const f of [ws.db, `${ws.db}-wal`, `${ws.db}-shm`]) rmSync(f, { force: true })
    copyFileSync(path, ws.db)
    store = openStore(ws.db)
  }

  it("a link signed in an older copy of the workspace, carried over onto a deleted dataset's id, gets none of its public declaration or budget", () => {
    const cred = officerAct(store.db)
    const before = snapshot('before.sqlite')
    const censusFile = join(ws.dir, 'census.csv')
    writeFileSync(censusFile, 'room,floor\na,1\nb,2\n')
    const census = linkFile(store.db, { file: censusFile, name: 'census', personColumn: null, ...cred }).id
    declarePublic(store.db, { datasetId: census, reason: 'open data', ...cred })
    setBudget(store.db, { datasetId: census, epsilon: '100', reason: 'toy data', ...cred })
    deleteDataset(store.db, census)
    const current = snapshot('current.sqlite')
    // The officer is handed the older copy (it verifies) and links a private file there: it gets census's id.
    replaceWorkspace(before)
    const file = join(ws.dir, 'salaries.csv')
    writeFileSync(file, 'person,salary\nalice,250000\nbob,40000\n')
    const linked = linkFile(store.db, { file, name: 'salaries', personColumn: null, ...cred }).id
    expect(linked).toBe(census)
    const withLink = snapshot('with-link.sqlite')
    // The file writer puts the current copy back and carries the signed link (catalog rows and link row) over.
    replaceWorkspace(current)
    store.close()
    const a = new Database(ws.db)
    const triggers = a.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`).all() as Array<{ name: string; sql: string }>
    for (const t of triggers) a.exec(`DROP TRIGGER "${t.name}"`)
    a.exec(`ATTACH '${withLink}' AS l`)
    a.exec(`INSERT INTO main.datasets SELECT * FROM l.datasets WHERE id = ${linked}`)
    for (const t of ['dataset_columns', 'dataset_units', 'dataset_sources']) {
      a.exec(`DELETE FROM main.${t} WHERE dataset_id = ${linked}`)
      a.exec(`INSERT INTO main.${t} SELECT * FROM l.${t} WHERE dataset_id = ${linked}`)
    }
    a.exec('DETACH l')
    for (const t of triggers) a.exec(t.sql)
    a.close()
    store = openStore(ws.db)
    expect(getDataset(store.db, linked).info.name).toBe('salaries')
    expect(getDataset(store.db, linked).info.public).toBe(false)
    const adm = admission(store.db, linked, 'salaries', 'eps-dp', ['{}'], 50e9)
    expect(adm.allowed).toBe(false)
    expect(verifyLedger(store.db).ok).toBe(false)
    expect(inspectWorkspace(store.db, { fresh: true }).problems.map((p) => p.reason)).toContainEqual(
      expect.stringMatching(/^entry \d+ \(public\) was recorded for another dataset than the one that holds id \d+ now/)
    )
  })
})
