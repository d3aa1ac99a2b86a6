/**
 * Accounts as attacks on the services (in-process; the same checks over TLS are in service-tls.test.ts): a wrong,
 * forged, revoked or expired credential is refused; repeated failures are throttled (every further guess from a locked
 * address refused, while valid credentials and sessions from it still answer); an analyst's officer and custodian acts are refused with one sentence and nothing
 * written; entries and audit events name the account; an account never receives the workspace's path.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { createServices, type Services } from '../../../src-main/services'
import type { Principal } from '../../../src-main/contract/accounts'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { credentialAccountId, issueCredential } from '../../../src-main/services/accounts/credentials'
import { auditHead } from '../../../src-main/services/chain/audit-chain'
import { headOf } from '../../../src-main/services/chain/ledger-chain'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { officerAct } from '../officer-fixture'
import { sixRoomVisits } from '../privacy/six-rooms-fixture'
import { tempWorkspace } from '../helpers'
import { thresholdSpec, writeThresholdWorkload } from '../experiments/harness'

let ws: ReturnType<typeof tempWorkspace>
let s: Services
let clock: number

beforeEach(() => {
  ws = tempWorkspace()
  clock = Date.now()
  s = createServices({ mode: 'headless', deployment: 'service', dbPath: ws.db, poolSize: 1, gate: { now: () => clock } })
})
afterEach(async () => {
  await s.close()
  ws.cleanup()
})

const db = () => s.context.store.db

function account(name: string, role: 'analyst' | 'officer' | 'custodian', days = 30): { credential: string; principal: Principal } {
  const { credential } = addAccount(db(), { name, role, days }, officerAct(db()))
  const auth = s.accounts.authenticate(credential, '10.0.0.1')
  if (!auth.ok) throw new Error(auth.error.message)
  return { credential, principal: auth.principal }
}

/** Everything an act could write: the two chains' heads, and the rows of every table an officer or custodian act fills. */
function written(): string {
  const d = db()
  const n = (t: string) => (d.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n
  return JSON.stringify({
    ledger: headOf(d),
    audit: auditHead(d),
    datasets: n('datasets'),
    accounts: n('accounts'),
    checkpoints: n('ledger_checkpoints')
  })
}

describe('credentials', () => {
  it('is shown once and only its hash is stored', () => {
    const { credential, principal } = account('ana', 'analyst')
    expect(credential).toMatch(/^qa1_1_[A-Za-z0-9_-]{43}$/)
    expect(credentialAccountId(credential)).toBe(1)
    expect(principal).toEqual({ accountId: 1, name: 'ana', roles: ['analyst'] })
    s.context.store.db.pragma('wal_checkpoint(TRUNCATE)')
    const secretPart = credential.slice(-43)
    expect(readFileSync(ws.db).includes(Buffer.from(secretPart))).toBe(false)
  })

  it('refuses a wrong secret for a real account, and a session token nobody issued', () => {
    const { credential } = account('ana', 'analyst')
    const wrong = credential.slice(0, -1) + (credential.endsWith('A') ? 'B' : 'A')
    const r = s.accounts.authenticate(wrong, '10.0.0.2')
    expect(r).toMatchObject({ ok: false, error: { code: 'unauthorized' } })
    expect(s.accounts.authenticate(`qas_${'x'.repeat(43)}`, '10.0.0.2')).toMatchObject({ ok: false, error: { code: 'unauthorized' } })
    expect(s.accounts.authenticate('', '10.0.0.2')).toMatchObject({ ok: false, error: { code: 'unauthorized' } })
  })

  it('refuses an account row written around the app (no valid officer signature), even with its own secret', () => {
    const { credential } = account('ana', 'analyst')
    // A file writer makes a credential of their own and inserts its hash as an officer account, with ana's signature.
    const d = db()
    const row = d.prepare('SELECT * FROM accounts WHERE id = 1').get() as Record<string, unknown>
    const mine = issueCredential(2)
    d.prepare(
      `INSERT INTO accounts (id, name, role, created_at, expires_at, secret_hash, signer, signature) VALUES (2, 'mallory', 'officer', ?, ?, ?, ?, ?)`
    ).run(row.created_at, row.expires_at, mine.hash, row.signer, row.signature)
    const r0 = s.accounts.authenticate(mine.credential, '10.0.0.3')
    expect(r0).toMatchObject({
      ok: false,
      error: { code: 'unauthorized', message: expect.stringMatching(/not one a registered privacy officer signed/) }
    })
    // ... and ana's expiry pushed out by editing the row is refused too (the trigger is dropped first, as a file writer can).
    d.exec('DROP TRIGGER accounts_registration_fixed')
    d.prepare(`UPDATE accounts SET expires_at = '2099-01-01T00:00:00.000Z' WHERE id = 1`).run()
    const r = s.accounts.authenticate(credential, '10.0.0.3')
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'unauthorized', message: expect.stringMatching(/not one a registered privacy officer signed/) }
    })
  })

  it('refuses a revoked credential at once, its sessions included, even if the row is cleared around the app', async () => {
    const { credential } = account('ana', 'analyst')
    const session = s.accounts.signIn(credential, '10.0.0.4')
    expect(session.ok).toBe(true)
    const token = session.ok ? session.session : ''
    expect(s.accounts.authenticate(token, '10.0.0.4').ok).toBe(true)
    await s.call('accounts/revoke', { name: 'ana', reason: 'left the project', ...officerAct(db()) })
    for (const secret of [credential, token]) {
      expect(s.accounts.authenticate(secret, '10.0.0.4')).toMatchObject({ ok: false, error: { code: 'unauthorized' } })
    }
    expect(s.accounts.authenticate(credential, '10.0.0.5')).toMatchObject({ ok: false, error: { message: expect.stringMatching(/revoked/) } })
    const d = db()
    d.exec('DROP TRIGGER accounts_revoked_once')
    d.prepare('UPDATE accounts SET revoked_at = NULL, revoked_by = NULL, revoke_reason = NULL, revoke_signature = NULL').run()
    expect(s.accounts.authenticate(credential, '10.0.0.6')).toMatchObject({ ok: false, error: { message: expect.stringMatching(/revoked/) } })
  })

  it('a session reports the end sign-in gave it, not the credential’s expiry (the page shows the same time after a reload)', () => {
    const { credential } = account('ana', 'analyst', 90)
    const session = s.accounts.signIn(credential, '10.0.0.8')
    if (!session.ok) throw new Error(session.error.message)
    clock += 60_000
    const again = s.accounts.authenticate(session.session, '10.0.0.8')
    expect(again).toMatchObject({ ok: true, expiresAt: session.expiresAt })
    // The credential itself still reports its own expiry, months later.
    const byCredential = s.accounts.authenticate(credential, '10.0.0.8')
    expect(byCredential.ok && Date.parse(byCredential.expiresAt) > Date.parse(session.expiresAt) + 80 * 86_400_000).toBe(true)
  })

  it('refuses an expired credential, and ends sessions at the expiry', () => {
    const { credential } = account('ana', 'analyst', 1)
    const session = s.accounts.signIn(credential, '10.0.0.7')
    expect(session.ok && Date.parse(session.expiresAt) <= clock + 86_400_000).toBe(true)
    clock += 86_400_000 + 60_000
    expect(s.accounts.authenticate(credential, '10.0.0.7')).toMatchObject({
      ok: false,
      error: { code: 'unauthorized', message: expect.stringMatching(/expired/) }
    })
    expect(s.accounts.authenticate(session.ok ? session.session : '', '10.0.0.7').ok).toBe(false)
  })

  it('throttles repeated wrong credentials from one address, and never locks out a valid credential or session from it', () => {
    const { credential } = account('ana', 'analyst')
    const { credential: custodian } = account('carl', 'custodian')
    const session = s.accounts.signIn(custodian, '10.9.9.9')
    if (!session.ok) throw new Error(session.error.message)
    const wrong = credential.slice(0, -2) + (credential.endsWith('AA') ? 'BB' : 'AA')
    for (let i = 0; i < 5; i++) expect(s.accounts.authenticate(wrong, '10.9.9.9')).toMatchObject({ ok: false, error: { code: 'unauthorized' } })
    // The sixth failure locks the address: every further guess from it is refused as throttled, with a wait.
    expect(s.accounts.authenticate(wrong, '10.9.9.9')).toMatchObject({ ok: false, error: { code: 'unauthorized' } })
    for (let i = 0; i < 30; i++) {
      const guess = `qa1_2_${String(i).padStart(43, 'x')}`
      expect(s.accounts.authenticate(guess, '10.9.9.9')).toMatchObject({ ok: false, error: { code: 'throttled' }, retryAfterMs: expect.any(Number) })
    }
    // The attack: one party behind the address must not lock out the others. Valid credentials and live sessions answer.
    expect(s.accounts.authenticate(credential, '10.9.9.9').ok).toBe(true)
    expect(s.accounts.authenticate(custodian, '10.9.9.9').ok).toBe(true)
    expect(s.accounts.authenticate(session.session, '10.9.9.9').ok).toBe(true)
    // ... and do not lift the lock for the guesser.
    expect(s.accounts.authenticate(wrong, '10.9.9.9')).toMatchObject({ ok: false, error: { code: 'throttled' } })
    // Another address is not locked.
    expect(s.accounts.authenticate(wrong, '10.9.9.8')).toMatchObject({ ok: false, error: { code: 'unauthorized' } })
    clock += 16 * 60_000
    expect(s.accounts.authenticate(credential, '10.9.9.9').ok).toBe(true)
    // The lockout is in the audit chain.
    const events = db().prepare(`SELECT detail FROM audit_events WHERE kind = 'account/sign-in-throttled'`).all() as Array<{ detail: string }>
    expect(events.map((e) => JSON.parse(e.detail).peer)).toEqual(['10.9.9.9'])
  })
})

describe('roles', () => {
  it("refuses an analyst's officer acts and custodian acts with one sentence, code forbidden, nothing written", async () => {
    const { id } = sixRoomVisits(db())
    const { principal } = account('ana', 'analyst')
    const officer = officerAct(db())
    const before = written()
    const attempts: Array<[string, unknown]> = [
      ['budgets/set', { datasetId: id, epsilon: '100', reason: 'more for me', ...officer }],
      ['datasets/declare-public', { datasetId: id, reason: 'so I can browse it', ...officer }],
      ['officer/unlock-ex-post', { releaseId: 1, reason: 'curious', ...officer }],
      ['ledger/checkpoint', officer],
      ['accounts/add', { name: 'ana2', role: 'officer', ...officer }],
      ['accounts/revoke', { name: 'ana', reason: 'test', ...officer }],
      ['datasets/import', { fileId: 'x' }],
      ['datasets/delete', { datasetId: id }],
      ['datasets/rename', { datasetId: id, name: 'mine' }],
      ['app/set-workers', { workers: 1 }],
      ['reports/export', { format: 'csv' }]
    ]
    for (const [method, req] of attempts) {
      const out = await s.dispatch(method, req, principal)
      expect(out, method).toMatchObject({ ok: false, error: { code: 'forbidden' } })
      const message = (out as { error: { message: string } }).error.message
      expect(message).toMatch(
        new RegExp(`^Forbidden: "${method}" is (an officer's|the custodian's) act, and account "ana" is an analyst; nothing was done\\.$`)
      )
      await expect(s.call(method as 'budgets/set', req as never, principal)).rejects.toMatchObject({ code: 'forbidden' })
    }
    expect(written()).toBe(before)
  })

  it('lets an officer account act only with the passphrase, and names the account in the entry and the audit event', async () => {
    const { id } = sixRoomVisits(db())
    const { principal } = account('olga', 'officer')
    const noPass = await s.dispatch('budgets/set', { datasetId: id, epsilon: '6', reason: 'more' }, principal)
    expect(noPass).toMatchObject({ ok: false, error: { code: 'forbidden', message: expect.stringMatching(/passphrase/) } })
    const ok = await s.dispatch('budgets/set', { datasetId: id, epsilon: '6', reason: 'more', ...officerAct(db()) }, principal)
    expect(ok.ok).toBe(true)
    const entry = db().prepare(`SELECT detail FROM ledger_entries ORDER BY seq DESC LIMIT 1`).get() as { detail: string }
    expect(JSON.parse(entry.detail).account).toEqual({ id: principal.accountId, name: 'olga', role: 'officer' })
    const ev = db().prepare(`SELECT detail FROM audit_events WHERE kind = 'budget/set' ORDER BY id DESC LIMIT 1`).get() as { detail: string }
    expect(JSON.parse(ev.detail).account).toEqual({ id: principal.accountId, name: 'olga', role: 'officer' })
  })

  it("records an analyst's release under the account, and refuses a request naming another actor", async () => {
    const { id, queryId } = sixRoomVisits(db())
    const { principal } = account('ana', 'analyst')
    setBudget(db(), { datasetId: id, epsilon: '5', reason: "ana's share", analyst: principal.accountId!, ...officerAct(db()) })
    const params = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.1, alpha: 2 }
    const before = written()
    const named = await s.dispatch('releases/run', { queryId, params, actor: 'the officer' }, principal)
    expect(named).toMatchObject({ ok: false, error: { code: 'bad-input' } })
    expect(written()).toBe(before)
    const out = await s.dispatch('releases/run', { queryId, params }, principal)
    expect(out.ok).toBe(true)
    const entry = db().prepare(`SELECT actor, detail FROM ledger_entries WHERE kind = 'charge'`).get() as { actor: string; detail: string }
    expect(entry.actor).toBe('ana')
    expect(JSON.parse(entry.detail).account).toEqual({ id: principal.accountId, name: 'ana', role: 'analyst' })
  })

  it('never gives an account the workspace path', async () => {
    const { principal } = account('ana', 'analyst')
    const status = await s.dispatch('app/status', {}, principal)
    expect(status.ok).toBe(true)
    expect(JSON.stringify(status)).not.toContain(ws.dir)
    const local = await s.dispatch('app/status', {})
    expect(local).toMatchObject({ ok: true, value: { deployment: 'service' } })
    expect(JSON.stringify(local)).not.toContain(ws.dir)
  })
})

describe("what an analyst reads of others' work", () => {
  const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.1, alpha: 2 }

  it("shows an analyst its own releases and charges only, never another analyst's", async () => {
    const { id, queryId } = sixRoomVisits(db())
    const ana = account('ana', 'analyst').principal
    const bob = account('bob', 'analyst').principal
    const olga = account('olga', 'officer').principal
    setBudget(db(), { datasetId: id, epsilon: '5', reason: "ana's share", analyst: ana.accountId!, ...officerAct(db()) })
    const mine = await s.call('releases/run', { queryId, params: tslm }, ana)
    // Bob's list, his lookup of ana's release, and his ledger entries show nothing of hers.
    expect(await s.call('releases/list', {}, bob)).toEqual([])
    await expect(s.call('releases/get', { releaseId: mine.releaseId }, bob)).rejects.toMatchObject({ code: 'not-found' })
    const bobEntries = await s.call('ledger/entries', {}, bob)
    expect(bobEntries.entries.map((e) => e.kind)).toEqual(['budget'])
    expect(bobEntries.total).toBe(1)
    // Ana sees hers; the officer sees everyone's, each entry naming its account.
    expect((await s.call('releases/list', {}, ana)).map((r) => r.releaseId)).toEqual([mine.releaseId])
    expect((await s.call('releases/get', { releaseId: mine.releaseId }, ana)).releaseId).toBe(mine.releaseId)
    const all = await s.call('ledger/entries', {}, olga)
    expect(all.entries.find((e) => e.kind === 'charge')?.account).toEqual({ id: ana.accountId, name: 'ana', role: 'analyst' })
  })

  it("keeps an analyst's jobs and their events from other analysts; the custodian sees them", async () => {
    const ana = account('ana', 'analyst').principal
    const bob = account('bob', 'analyst').principal
    const carl = account('carl', 'custodian').principal
    const path = writeThresholdWorkload(ws.dir)
    const { jobId } = await s.call('experiments/start', { spec: thresholdSpec(path, { mechanisms: ['tslm'], grid: { alpha: [1] }, trials: 4 }) }, ana)
    expect((await s.call('jobs/list', {}, bob)).map((j) => j.jobId)).not.toContain(jobId)
    await expect(s.call('jobs/get', { jobId }, bob)).rejects.toMatchObject({ code: 'not-found' })
    expect(await s.call('jobs/cancel', { jobId }, bob)).toEqual({ cancelled: false })
    expect(s.accounts.mayReceive(bob, 'job/state', { jobId })).toBe(false)
    expect(s.accounts.mayReceive(ana, 'job/state', { jobId })).toBe(true)
    expect(s.accounts.mayReceive(carl, 'job/progress', { jobId })).toBe(true)
    expect((await s.call('jobs/list', {}, ana)).map((j) => j.jobId)).toContain(jobId)
    expect((await s.call('jobs/get', { jobId }, carl)).jobId).toBe(jobId)
    await s.context.jobs.settled(jobId)
  })
})
