/**
 * Per-analyst allotments in admission, as attacks: an analyst account whose allotment on a dataset is spent is denied
 * (the sentence names their allotment, the denial is recorded), even though the dataset's budget would still admit the
 * release; another analyst's charges count in neither their admission nor their figures; allotments that would sum past
 * the dataset's budget are refused (and a dataset budget lowered below them); an analyst without an allotment is
 * denied; an analyst budget written around the officer is not obeyed.
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
  it("denies an analyst whose own allotment is spent, names it, and leaves other analysts' spend out of it", async () => {
    const { id, queryId } = sixRoomVisits(db())
    // The dataset's budget per person allows four releases of the rooms question (4.83 each); ana's allotment, one; bob's, three.
    setBudget(db(), { datasetId: id, epsilon: '20', reason: 'the whole review', ...officerAct(db()) })
    const ana = analyst('ana')
    const bob = analyst('bob')
    setBudget(db(), { datasetId: id, epsilon: '5', reason: "ana's share", analyst: ana.accountId!, ...officerAct(db()) })
    setBudget(db(), { datasetId: id, epsilon: '15', reason: "bob's share", analyst: bob.accountId!, ...officerAct(db()) })
    await s.call('releases/run', { queryId, params: tslm }, ana)
    await s.call('releases/run', { queryId, params: tslm }, bob)
    await s.call('releases/run', { queryId, params: tslm }, bob)
    const preview = await s.call('releases/preview', { queryId, params: tslm }, ana)
    expect(preview.allowed).toBe(false)
    // Her own figures: her spend (one release) and her allotment, not the dataset's three releases of 20.
    expect(preview.spentBeforeExact).toBe(preview.epsilonExact)
    expect(preview.budgetExact).toBe('5')
    const second = s.call('releases/run', { queryId, params: tslm }, ana)
    await expect(second).rejects.toMatchObject({ code: 'denied' })
    await expect(second).rejects.toThrow(/of your allotment on dataset "visits" remains/)
    await expect(second).rejects.toThrow(/raise your allotment/)
    expect(charges()).toEqual(['ana', 'bob', 'bob'])
    expect(denials()).toEqual([expect.objectContaining({ budgetOf: 'analyst' })])
    // Bob may go on within his own.
    await s.call('releases/run', { queryId, params: tslm }, bob)
    expect(charges()).toEqual(['ana', 'bob', 'bob', 'bob'])
  })

  it("refuses allotments that would sum past the dataset's budget, and a dataset budget lowered below them; a freeze stops every analyst", async () => {
    const { id, queryId } = sixRoomVisits(db())
    setBudget(db(), { datasetId: id, epsilon: '10', reason: 'two releases', ...officerAct(db()) })
    const ana = analyst('ana')
    const bob = analyst('bob')
    const allot = (who: Principal, epsilon: string) =>
      setBudget(db(), { datasetId: id, epsilon, reason: 'a share', analyst: who.accountId!, ...officerAct(db()) })
    const entries = () => (db().prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n
    let before = entries()
    expect(() => allot(ana, '100')).toThrow(
      /^Refused: this allotment for analyst "ana" would bring the analysts' allotments on dataset "visits" to epsilon 100 per person \(summed over notions\), and the dataset's budget is 10 per person/
    )
    expect(entries()).toBe(before)
    allot(ana, '5')
    before = entries()
    expect(() => allot(bob, '6')).toThrow(/to epsilon 11 per person/)
    expect(entries()).toBe(before)
    allot(bob, '5')
    before = entries()
    expect(() => setBudget(db(), { datasetId: id, epsilon: '9', reason: 'less', ...officerAct(db()) })).toThrow(
      /^Refused: the analysts' allotments on dataset "visits" sum to epsilon 10 per person/
    )
    expect(entries()).toBe(before)
    // Lowering an allotment is never refused; nor is a freeze.
    allot(bob, '4')
    await s.call('releases/run', { queryId, params: tslm }, ana)
    setBudget(db(), { datasetId: id, epsilon: '0', freeze: true, reason: 'stop', ...officerAct(db()) })
    await expect(s.call('releases/run', { queryId, params: tslm }, bob)).rejects.toThrow(/froze dataset "visits"/)
    expect(charges()).toEqual(['ana'])
  })

  it('denies an analyst without an allotment, whatever the dataset has left', async () => {
    const { id, queryId } = sixRoomVisits(db())
    setBudget(db(), { datasetId: id, epsilon: '20', reason: 'the whole review', ...officerAct(db()) })
    const bob = analyst('bob')
    await expect(s.call('releases/run', { queryId, params: tslm }, bob)).rejects.toThrow(
      /you have no allotment per person on dataset "visits", so 0 remains; nothing was spent/
    )
    expect(charges()).toEqual([])
    expect(denials()).toEqual([expect.objectContaining({ budgetOf: 'analyst' })])
  })

  it('denies an analyst under a notion their allotment does not cover, and under a notion the dataset caps without their share of it', async () => {
    const { id, queryId } = sixRoomVisits(db())
    setBudget(db(), { datasetId: id, epsilon: '20', reason: 'the whole review', ...officerAct(db()) })
    const ana = analyst('ana')
    setBudget(db(), { datasetId: id, epsilon: '5', notion: 'eps-k-sensitive', reason: 'search only', analyst: ana.accountId!, ...officerAct(db()) })
    await expect(s.call('releases/run', { queryId, params: tslm }, ana)).rejects.toThrow(/you have no allotment per person on dataset "visits" for/)
    setBudget(db(), { datasetId: id, epsilon: '10', reason: "ana's share", analyst: ana.accountId!, ...officerAct(db()) })
    const pw = (await s.call('releases/preview', { queryId, params: tslm }, ana)).notion
    setBudget(db(), { datasetId: id, epsilon: '8', notion: pw, reason: 'a cap', ...officerAct(db()) })
    await expect(s.call('releases/run', { queryId, params: tslm }, ana)).rejects.toThrow(/has its own .* budget and you have no allotment of it/)
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
