/**
 * The attack: with unsigned linked file paths, a file writer could point a budgeted dataset at any file the account
 * can read (another population, under the budget and unit the officer set for this one). Linking a file is an officer
 * act that signs the path, the columns, the unit and the real path it leads to; every use
 * checks them before the file is read, and refuses with one sentence, nothing charged.
 */
import { mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'
import { officerAct } from '../officer-fixture'

const PARAMS: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 4 }

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-file-link-')
  store = openStore(ws.db)
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

const csv = (rows: number, room = 'R1') => 'person,room\n' + Array.from({ length: rows }, (_, i) => `p${i},${room}`).join('\n') + '\n'
const charges = () => (store.db.prepare(`SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'`).get() as { n: number }).n

/** The budgeted dataset: visits.csv linked by the officer, a budget, a saved question. */
function linked(path: string): { queryId: number } {
  const id = linkFile(store.db, { name: 'visits', file: path, personColumn: 'person', ...officerAct(store.db) }).id
  setBudget(store.db, { datasetId: id, epsilon: '10', reason: 'visits review', ...officerAct(store.db) })
  const q = saveQuery(store.db, id, 'rooms', {
    kind: 'threshold',
    groupBy: ['room'],
    count: { kind: 'persons', personColumn: 'person', cap: 1 },
    threshold: { kind: 'constant', value: 5 },
    groups: [['R1'], ['R2']]
  })
  return { queryId: q.id }
}

describe('a linked file is what the officer signed', () => {
  it('linking without the officer is refused, nothing stored', () => {
    const file = join(ws.dir, 'visits.csv')
    writeFileSync(file, csv(20))
    officerAct(store.db)
    expect(() => linkFile(store.db, { name: 'visits', file, personColumn: 'person' })).toThrow(/This is an officer act: it needs the passphrase/)
    expect((store.db.prepare('SELECT count(*) AS n FROM datasets').get() as { n: number }).n).toBe(0)
  })

  it('the path rewritten in the workspace file to another file the account can read: refused before the charge', () => {
    const file = join(ws.dir, 'visits.csv')
    writeFileSync(file, csv(20))
    const other = join(ws.dir, 'payroll.csv')
    writeFileSync(other, csv(3))
    const { queryId } = linked(file)
    expect(runRelease(store.db, { queryId, params: PARAMS }).status).toBe('answered')
    const a = new Database(ws.db)
    a.prepare('UPDATE dataset_sources SET path = ?').run(other)
    a.close()
    const before = charges()
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(
      /^The file linked as dataset "visits" is not the one a privacy officer signed .*ask the privacy officer to link it again\. Nothing was charged\.$/
    )
    expect(charges()).toBe(before)
  })

  it('the path and identity repointed in the workspace file: ledger verify reports what the use refuses', () => {
    const file = join(ws.dir, 'visits.csv')
    writeFileSync(file, csv(20))
    const other = join(ws.dir, 'payroll.csv')
    writeFileSync(other, csv(3))
    linked(file)
    expect(verifyLedger(store.db).ok).toBe(true)
    const a = new Database(ws.db)
    a.prepare('UPDATE dataset_sources SET path = ?, identity = ?').run(other, other)
    a.close()
    const v = verifyLedger(store.db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(/the file link of dataset "visits" is not the one a privacy officer signed \(it was changed in the workspace file\)/)
  })

  it('a symbolic link in the path redirected to another file: refused before the charge; a refresh of the file itself is not', () => {
    mkdirSync(join(ws.dir, 'data'))
    const real = join(ws.dir, 'data', 'visits-2015.csv')
    writeFileSync(real, csv(20))
    const current = join(ws.dir, 'current.csv')
    symlinkSync(real, current)
    const { queryId } = linked(current)
    // New rows written to the same file: released on as it now is.
    writeFileSync(real, csv(30))
    expect(runRelease(store.db, { queryId, params: PARAMS }).status).toBe('answered')
    const other = join(ws.dir, 'data', 'payroll.csv')
    writeFileSync(other, csv(3, 'R2'))
    unlinkSync(current)
    symlinkSync(other, current)
    const before = charges()
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(
      /now leads to another file \(a link in its path was changed\).*Nothing was charged\./
    )
    expect(charges()).toBe(before)
  })

  it('a link made before links were signed (no signature) is refused at use until the officer links the file again', () => {
    const file = join(ws.dir, 'visits.csv')
    writeFileSync(file, csv(20))
    const { queryId } = linked(file)
    const a = new Database(ws.db)
    a.exec('UPDATE dataset_sources SET signer = NULL, signature = NULL')
    a.close()
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(/was linked before links were signed by the privacy officer/)
  })
})
