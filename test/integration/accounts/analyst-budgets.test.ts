/**
 * Per-analyst budgets in admission, as attacks: an analyst account whose own budget on a dataset is spent is denied (the
 * sentence names their budget, the denial is recorded), even though the dataset's budget would still admit the release;
 * another analyst's charges do not count against theirs, and theirs do count against the dataset's; the dataset's
 * budget still binds an analyst who has one of their own; an analyst budget written around the officer is not obeyed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../../src-main/services'
import type { Principal } from '../../../src-main/contract/accounts'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { appendEntry } from '../../../src-main/services/chain/ledger-chain'
import { setBudget } from '../../../src-main/services/ledger/budgets'
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
const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.1, alpha: 2 }

function analyst(name: string): Principal {
  const { credential } = addAccount(db(), { name, role: 'analyst', days: 30 }, officerAct(db()))
  const auth = s.accounts.authenticate(credential, '10.0.0.1')
  if (!auth.ok) throw new Error(auth.error.message)
  return auth.principal
}

const charges = () =>
  (db().prepare(`SELECT detail FROM ledger_entries WHERE kind = 'charge' ORDER BY seq`).all() as Array<{ detail: string }>).map(
    (r) => (JSON.parse(r.detail) as { account?: { name: string } }).account?.name
  )
const denials = () =>
  (db().prepare(`SELECT detail FROM audit_events WHERE kind = 'release/denied' ORDER BY id`).all() as Array<{ detail: string }>).map(
    (r) => JSON.parse(r.detail) as { budgetOf?: string }
  )

describe('per-analyst budgets', () => {
  it("denies an analyst whose own budget is spent, names that budget, and leaves other analysts' spend out of it", async () => {
    const { id, queryId } = sixRoomVisits(db())
    // The dataset's budget per person allows four releases of the rooms question (4.83 each); ana's own, one.
    setBudget(db(), { datasetId: id, epsilon: '20', reason: 'the whole review', ...officerAct(db()) })
    const ana = analyst('ana')
    const bob = analyst('bob')
    setBudget(db(), { datasetId: id, epsilon: '5', reason: "ana's share", analyst: ana.accountId!, ...officerAct(db()) })
    await s.call('releases/run', { queryId, params: tslm }, ana)
    // Bob has no budget of his own: only the dataset's binds him, and his charges are not ana's.
    await s.call('releases/run', { queryId, params: tslm }, bob)
    await s.call('releases/run', { queryId, params: tslm }, bob)
    const preview = await s.call('releases/preview', { queryId, params: tslm }, ana)
    expect(preview.allowed).toBe(false)
    const second = s.call('releases/run', { queryId, params: tslm }, ana)
    await expect(second).rejects.toMatchObject({ code: 'denied' })
    await expect(second).rejects.toThrow(/of analyst "ana"'s budget on dataset "visits" remains/)
    await expect(second).rejects.toThrow(/raise your budget/)
    expect(charges()).toEqual(['ana', 'bob', 'bob'])
    expect(denials()).toEqual([expect.objectContaining({ budgetOf: 'analyst' })])
    // Bob may go on: the dataset still has room (3 x 4.83 of 20 spent).
    await s.call('releases/run', { queryId, params: tslm }, bob)
    expect(charges()).toEqual(['ana', 'bob', 'bob', 'bob'])
  })

  it("still holds an analyst with a budget of their own to the dataset's, which every analyst's charges spend", async () => {
    const { id, queryId } = sixRoomVisits(db())
    setBudget(db(), { datasetId: id, epsilon: '10', reason: 'two releases', ...officerAct(db()) })
    const ana = analyst('ana')
    const bob = analyst('bob')
    setBudget(db(), { datasetId: id, epsilon: '100', reason: 'generous', analyst: ana.accountId!, ...officerAct(db()) })
    await s.call('releases/run', { queryId, params: tslm }, bob)
    await s.call('releases/run', { queryId, params: tslm }, ana)
    const third = s.call('releases/run', { queryId, params: tslm }, ana)
    await expect(third).rejects.toThrow(/of dataset "visits" remains/)
    expect(denials()).toEqual([expect.objectContaining({ budgetOf: 'dataset' })])
  })

  it('denies an analyst under a notion their budget does not cover', async () => {
    const { id, queryId } = sixRoomVisits(db())
    setBudget(db(), { datasetId: id, epsilon: '20', reason: 'the whole review', ...officerAct(db()) })
    const ana = analyst('ana')
    setBudget(db(), { datasetId: id, epsilon: '5', notion: 'eps-k-sensitive', reason: 'search only', analyst: ana.accountId!, ...officerAct(db()) })
    await expect(s.call('releases/run', { queryId, params: tslm }, ana)).rejects.toThrow(/analyst "ana"'s budget on dataset "visits" has no budget/)
    expect(charges()).toEqual([])
  })

  it('obeys no analyst budget that no officer signed (a file writer raising their own)', async () => {
    const { id, queryId } = sixRoomVisits(db())
    setBudget(db(), { datasetId: id, epsilon: '20', reason: 'the whole review', ...officerAct(db()) })
    const ana = analyst('ana')
    setBudget(db(), { datasetId: id, epsilon: '5', reason: "ana's share", analyst: ana.accountId!, ...officerAct(db()) })
    await s.call('releases/run', { queryId, params: tslm }, ana)
    // Ana, with the file, appends a hashed budget entry of 100 naming herself (no officer signature).
    db().transaction(() =>
      appendEntry(db(), {
        kind: 'budget',
        datasetId: id,
        datasetName: 'visits',
        notion: null,
        amountNano: 100e9,
        cells: [],
        releaseId: null,
        actor: 'Test Officer',
        description: 'more for me',
        detail: { scope: 'per unit', analyst: { id: ana.accountId, name: 'ana' } }
      })
    )()
    await expect(s.call('releases/run', { queryId, params: tslm }, ana)).rejects.toMatchObject({ code: 'denied' })
    expect(charges()).toEqual(['ana'])
  })

  it('refuses a budget naming an account that is not an analyst', async () => {
    const { id } = sixRoomVisits(db())
    const { account } = addAccount(db(), { name: 'olga', role: 'officer', days: 30 }, officerAct(db()))
    expect(() => setBudget(db(), { datasetId: id, epsilon: '5', reason: 'a share', analyst: account.id, ...officerAct(db()) })).toThrow(
      /a budget may name an analyst account only/
    )
    expect(() => setBudget(db(), { datasetId: id, epsilon: '5', reason: 'a share', analyst: 99, ...officerAct(db()) })).toThrow(
      /no account with id 99/
    )
  })
})
