/**
 * The service's JSON-lines log, as an attack on what it may hold: sign-ins, failed sign-ins, releases and denials are
 * logged (time, event, account, address), and a planted credential, session, passphrase and distinctive data values
 * sent in requests appear in no line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { setBudget } from '../../src-main/services/ledger/budgets'
import { tempWorkspace } from './helpers'
import { type TestPki, makeTestPki } from '../support/tls'
import { credentialFor, httpsCall } from './https-call'
import { officerAct, testPassphrase, TEST_OFFICER } from './officer-fixture'
import { sixRoomVisits } from './privacy/six-rooms-fixture'

let ws: ReturnType<typeof tempWorkspace>
let pki: TestPki
let h: HeadlessServer
const lines: string[] = []

beforeAll(async () => {
  ws = tempWorkspace('qa-log-')
  pki = makeTestPki()
  const rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
  h = await startHeadless({
    dbPath: join(ws.dir, 'w.sqlite'),
    rendererDir,
    poolSize: 1,
    deployment: 'service',
    cadenceMs: 50,
    listen: { host: '127.0.0.1', port: 0 },
    tls: { cert: pki.cert, key: pki.key },
    logSink: (l) => lines.push(l)
  })
}, 60_000)
afterAll(async () => {
  await h?.close()
  ws?.cleanup()
  pki?.cleanup()
})

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  httpsCall(h.port, pki.ca, path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) })

describe('the service log', () => {
  it('records sign-ins, failures, releases and denials, and no secret or data value', async () => {
    const db = h.services.context.store.db
    const ds = sixRoomVisits(db)
    const ana = credentialFor(db, 'ana', 'analyst')
    const olga = credentialFor(db, 'olga', 'officer')
    const { id } = db.prepare(`SELECT id FROM accounts WHERE name = 'ana'`).get() as { id: number }
    setBudget(db, { datasetId: ds.id, epsilon: '5', reason: "ana's share", analyst: id, ...officerAct(db) })
    const planted = 'qa1_PLANTED-credential-0000000000000000000000000'
    expect((await post('/api/session', { credential: planted })).status).toBe(401)
    const signed = await post('/api/session', { credential: ana })
    expect(signed.status).toBe(200)
    const session = String(signed.headers['set-cookie']).split(';')[0]
    const params = { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 2 }
    const first = JSON.parse((await post('/api/call/releases/run', { req: { queryId: ds.queryId, params } }, { Cookie: session })).body)
    expect(first.ok).toBe(true)
    const second = JSON.parse((await post('/api/call/releases/run', { req: { queryId: ds.queryId, params } }, { Cookie: session })).body)
    expect(second.error.code).toBe('denied')
    // An officer act carrying the passphrase, and a saved query carrying distinctive values.
    await post(
      '/api/call/accounts/add',
      { req: { name: 'bo', role: 'analyst', days: 1, officer: TEST_OFFICER, passphrase: testPassphrase(TEST_OFFICER) } },
      { Authorization: `Bearer ${olga}` }
    )
    await post(
      '/api/call/queries/save',
      { req: { datasetId: ds.id, name: 'ZEBRA-7741-name', definition: { kind: 'threshold', groupBy: ['room'], groups: [['ZEBRA-7741-room']] } } },
      { Authorization: `Bearer ${ana}` }
    )
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    for (const p of parsed) {
      expect(typeof p.time).toBe('string')
      expect(typeof p.event).toBe('string')
      expect('account' in p && 'address' in p).toBe(true)
    }
    const events = parsed.map((p) => `${String(p.event)}:${String(p.account)}`)
    expect(events).toContain('service-start:null')
    expect(events).toContain('sign-in-failed:null')
    expect(events).toContain('sign-in:ana')
    expect(events).toContain('release:ana')
    expect(events).toContain('release-denied:ana')
    expect(parsed.find((p) => p.event === 'release')?.releaseId).toBe(first.value.releaseId)
    const text = lines.join('')
    for (const secret of [planted, ana, olga, session.split('=')[1], testPassphrase(TEST_OFFICER), 'ZEBRA-7741', 'other-R1'])
      expect(text, secret).not.toContain(secret)
    // A release's values (its answer) are not in the log.
    expect(text).not.toMatch(/"flagged"|"answer"|"groups"/)
  })
})
