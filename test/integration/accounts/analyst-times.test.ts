/**
 * Times as a side channel in the service: what an analyst reads of its releases, its ledger entries, its saved
 * queries and the officers' list dates nothing finer than the cadence (a charge's milliseconds are the admission's
 * work); the officer reads the stored times.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../../src-main/services'
import type { Principal } from '../../../src-main/contract/accounts'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { officerAct } from '../officer-fixture'
import { sixRoomVisits } from '../privacy/six-rooms-fixture'
import { tempWorkspace } from '../helpers'

const CADENCE = 1000
let ws: ReturnType<typeof tempWorkspace>
let s: Services

beforeEach(() => {
  ws = tempWorkspace()
  s = createServices({ mode: 'headless', deployment: 'service', dbPath: ws.db, poolSize: 1, cadenceMs: CADENCE })
})
afterEach(async () => {
  await s.close()
  ws.cleanup()
})

const db = () => s.context.store.db

function account(name: string, role: 'analyst' | 'officer'): Principal {
  const { credential } = addAccount(db(), { name, role, days: 30 }, officerAct(db()))
  const auth = s.accounts.authenticate(credential, '10.0.0.1')
  if (!auth.ok) throw new Error(auth.error.message)
  return auth.principal
}

/** Every value of a time field in `v`. */
function times(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => times(x, out))
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      if (['at', 'createdAt', 'answeredAt'].includes(k) && typeof x === 'string') out.push(x)
      else times(x, out)
    }
  return out
}

describe('times an analyst reads', () => {
  it('are floored to the cadence in releases, ledger entries, saved queries and the officers’ list; the officer reads them as stored', async () => {
    const { id } = sixRoomVisits(db())
    const ana = account('ana', 'analyst')
    const olga = account('olga', 'officer')
    setBudget(db(), { datasetId: id, epsilon: '5', reason: "ana's share", analyst: ana.accountId!, ...officerAct(db()) })
    const q = await s.call(
      'queries/save',
      {
        datasetId: id,
        name: 'two rooms',
        definition: {
          kind: 'threshold',
          groupBy: ['room'],
          count: { kind: 'persons', personColumn: 'person', cap: 1 },
          threshold: { kind: 'constant', value: 3 },
          groups: [['R1'], ['R2']]
        }
      },
      ana
    )
    const r = await s.call('releases/run', { queryId: q.id, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 2 } }, ana)
    const read = [
      q,
      await s.call('queries/list', { datasetId: id }, ana),
      await s.call('queries/get', { queryId: q.id }, ana),
      await s.call('queries/versions', { queryId: q.id }, ana),
      await s.call('releases/list', {}, ana),
      await s.call('releases/get', { releaseId: r.releaseId }, ana),
      await s.call('ledger/entries', {}, ana),
      await s.call('officer/list', {}, ana)
    ]
    const shown = times(read)
    expect(shown.length).toBeGreaterThanOrEqual(8)
    for (const t of shown) expect(Date.parse(t) % CADENCE, t).toBe(0)
    // The stored times keep their milliseconds, and the officer reads them (one in a thousand would be on a tick).
    const stored = times([
      await s.call('ledger/entries', {}, olga),
      await s.call('releases/list', {}, olga),
      await s.call('queries/list', {}, olga),
      await s.call('officer/list', {}, olga)
    ])
    expect(stored.some((t) => Date.parse(t) % CADENCE !== 0)).toBe(true)
  })
})
