/**
 * Strict doors, as attacks by an analyst account on a real HTTPS service on loopback: whatever a request carries that
 * its method does not take is refused with one sentence and nothing is written, so a smuggled field cannot change who
 * acts or what runs.
 * - `actor` on releases/run (and preview, accuracy): the workbench's label for who asks; from an account it would put
 *   another name beside the charge (the ledger names the account anyway): refused, as `caller` and `account` are.
 * - the door's own envelope: `{ req, caller }` or `{ req, account }` beside the request; the sign-in's `{ credential, role }`.
 * - every method's request schema is strict all the way down (test/unit/request-schemas.test.ts walks them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditHead } from '../../../src-main/services/chain/audit-chain'
import { headOf } from '../../../src-main/services/chain/ledger-chain'
import { sixRoomVisits } from './six-rooms-fixture'
import { type TlsService, startTlsService } from './tls-service'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { officerAct } from '../officer-fixture'

let s: TlsService
let ana = ''
let queryId = 0
const tslm = { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 2 }

beforeAll(async () => {
  s = await startTlsService({ cadenceMs: 50 }, 'qa-strict-doors-')
  const ds = sixRoomVisits(s.db)
  queryId = ds.queryId
  ana = s.account('ana', 'analyst')
  // An analyst of the service spends an allotment of the dataset's budget.
  const { id } = s.db.prepare('SELECT id FROM accounts WHERE name = ?').get('ana') as { id: number }
  setBudget(s.db, { datasetId: ds.id, epsilon: '100', reason: 'the strict-door tests', ...officerAct(s.db) })
  setBudget(s.db, { datasetId: ds.id, epsilon: '50', analyst: id, reason: "ana's allotment", ...officerAct(s.db) })
})
afterAll(async () => {
  await s?.close()
})

/** What any act could have written: both chains' heads and the releases. */
function written(): string {
  const n = (s.db.prepare('SELECT count(*) AS n FROM releases').get() as { n: number }).n
  return JSON.stringify({ ledger: headOf(s.db), audit: auditHead(s.db), releases: n })
}

describe('strict doors', () => {
  it.each(['releases/run', 'releases/preview', 'releases/accuracy'])('refuses actor on %s from an account, and writes nothing', async (method) => {
    const before = written()
    const r = await s.call(ana, method, { queryId, params: tslm, actor: 'Test Officer' })
    expect(r.outcome).toEqual({
      ok: false,
      error: {
        code: 'bad-input',
        message: 'The request has a field "actor" that a service account may not give (the ledger names the account that calls); remove it'
      }
    })
    expect(written()).toBe(before)
  })

  it('refuses a field beside the request in the envelope, and writes nothing', async () => {
    for (const extra of [{ caller: { accountId: null, name: 'local user', roles: ['officer'] } }, { account: 1 }, { reqs: {} }]) {
      const before = written()
      const r = await s.post(ana, '/api/call/releases/run', JSON.stringify({ req: { queryId, params: tslm }, ...extra }))
      const key = Object.keys(extra)[0]
      expect(JSON.parse(r.body), key).toEqual({
        ok: false,
        error: { code: 'bad-input', message: `The request body has an unknown field "${key}"; it takes "req" only` }
      })
      expect(written()).toBe(before)
    }
    const notObject = await s.post(ana, '/api/call/releases/list', '[1]')
    expect(JSON.parse(notObject.body)).toEqual({ ok: false, error: { code: 'bad-input', message: 'The request body must be a JSON object' } })
  })

  it('refuses a field beside the credential at sign-in', async () => {
    const r = await s.post('', '/api/session', JSON.stringify({ credential: ana, role: 'officer' }))
    expect(r.status).toBe(400)
    expect(JSON.parse(r.body)).toEqual({
      ok: false,
      error: { code: 'bad-request', message: 'The request body has an unknown field "role"; it takes "credential" only' }
    })
    expect(r.headers['set-cookie']).toBeUndefined()
  })

  it('still runs the same release without the smuggled field, named for the account', async () => {
    const r = await s.call<{ releaseId: number }>(ana, 'releases/run', { queryId, params: tslm })
    expect(r.outcome.ok, r.body).toBe(true)
    const entry = s.db.prepare(`SELECT actor FROM ledger_entries WHERE kind = 'charge'`).get() as { actor: string }
    expect(entry.actor).toBe('ana')
  })
})
