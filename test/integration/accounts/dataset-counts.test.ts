/**
 * A private dataset's exact counts as an attack by an analyst of the service: the number of rows (and skipped rows, the
 * source's bytes) is a count of the records with no noise, so an analyst's datasets/list and datasets/get carry none;
 * the officer and the custodian read them, and an analyst reads a public dataset's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../../src-main/services'
import type { Principal } from '../../../src-main/contract/accounts'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { declarePublic } from '../../../src-main/services/datasets/declare-public'
import { craftDataset } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { sixRoomVisits } from '../privacy/six-rooms-fixture'
import { tempWorkspace } from '../helpers'

let ws: ReturnType<typeof tempWorkspace>
let s: Services

beforeEach(() => {
  ws = tempWorkspace()
  s = createServices({ mode: 'headless', deployment: 'service', dbPath: ws.db, poolSize: 1 })
})
afterEach(async () => {
  await s.close()
  ws.cleanup()
})

const db = () => s.context.store.db

function account(name: string, role: 'analyst' | 'officer' | 'custodian'): Principal {
  const { credential } = addAccount(db(), { name, role, days: 30 }, officerAct(db()))
  const auth = s.accounts.authenticate(credential, '10.0.0.1')
  if (!auth.ok) throw new Error(auth.error.message)
  return auth.principal
}

const COUNTS = ['rowCount', 'skippedRows', 'sourceBytes']

describe("a private dataset's counts", () => {
  it('reach no analyst (list and get), and reach the officer and the custodian', async () => {
    const { id } = sixRoomVisits(db())
    const pub = craftDataset(db(), 'capacities', [{ name: 'room', type: 'text' }], [['R1'], ['R2']])
    declarePublic(db(), { datasetId: pub, reason: 'published room list', ...officerAct(db()) })
    const ana = account('ana', 'analyst')
    const got = await s.dispatch('datasets/get', { datasetId: id }, ana)
    const listed = await s.dispatch('datasets/list', {}, ana)
    expect(got.ok && listed.ok).toBe(true)
    const visits = [(got as { value: object }).value, (listed as { value: Array<{ id: number }> }).value.find((d) => d.id === id)]
    for (const v of visits) for (const k of COUNTS) expect(Object.keys(v ?? {}), k).not.toContain(k)
    const list = await s.call('datasets/list', {}, ana)
    expect(list.find((d) => d.id === id)).toMatchObject({ name: 'visits', public: false, columns: expect.any(Array) })
    // ... but not the published one's, which is public data.
    expect(list.find((d) => d.id === pub)).toMatchObject({ rowCount: 2, skippedRows: 0 })
    for (const who of [account('olga', 'officer'), account('carl', 'custodian')]) {
      expect(await s.call('datasets/get', { datasetId: id }, who)).toMatchObject({ rowCount: 66, skippedRows: 0 })
      expect((await s.call('datasets/list', {}, who)).find((d) => d.id === id)).toMatchObject({ rowCount: 66 })
    }
  })
})
