/**
 * The attack: the AUTOINCREMENT counter of dataset ids (`sqlite_sequence`) is a plain row. A file writer deletes a
 * dataset the officer declared public and budgeted, resets the counter, and the officer's next link (a private file)
 * would get the deleted dataset's id, and with it the signed public declaration (uncharged sweeps on true counts) and
 * budget. A new dataset's id is above every id the ledger, releases and saved queries ever named.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deleteDataset, getDataset } from '../../../src-main/services/catalog/catalog'
import { declarePublic } from '../../../src-main/services/datasets/declare-public'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { admission } from '../../../src-main/services/ledger/admission'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'
import { craftDataset } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'

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
