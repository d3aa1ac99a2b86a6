/**
 * What a host's monitoring may ask the service (over TLS, in-process, a real release runner), as attacks:
 * - `/api/health` answers anyone, under any Host name, with `{"ok":true}` and nothing else: no account, no count, no
 *   version, the same bytes before and after releases and denials;
 * - readiness and the Prometheus metrics are the custodian's: no credential, a wrong one, an analyst's or an officer's
 *   is refused with one sentence and gets no metric; the custodian's shows requests, latency histograms, releases
 *   running and queued, and the denials recorded, and never an account's name, a credential or a value of the data;
 * - `/health`, `/healthz`, `/metrics` and any other path that names no file of the UI get a 404 with one sentence, not
 *   the UI's page; an address that does not start with a single "/" (`//api/call/...`) and a page POST get one sentence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { connect } from 'node:tls'
import { join } from 'node:path'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { tempWorkspace } from './helpers'
import { type TestPki, makeTestPki } from '../support/tls'
import { credentialFor, httpsCall } from './https-call'
import { sixRoomVisits } from './privacy/six-rooms-fixture'

let ws: ReturnType<typeof tempWorkspace>
let pki: TestPki
let h: HeadlessServer
const cred = { carl: '', ana: '', olga: '' }
let queryId: number

beforeAll(async () => {
  ws = tempWorkspace('qa-health-')
  pki = makeTestPki()
  const rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>the UI page</title>')
  h = await startHeadless({
    dbPath: join(ws.dir, 'w.sqlite'),
    rendererDir,
    poolSize: 1,
    deployment: 'service',
    cadenceMs: 50,
    listen: { host: '127.0.0.1', port: 0 },
    tls: { cert: pki.cert, key: pki.key }
  })
  const db = h.services.context.store.db
  queryId = sixRoomVisits(db).queryId
  cred.carl = credentialFor(db, 'carl', 'custodian')
  cred.ana = credentialFor(db, 'ana', 'analyst')
  cred.olga = credentialFor(db, 'olga', 'officer')
}, 60_000)
afterAll(async () => {
  await h?.close()
  ws?.cleanup()
  pki?.cleanup()
})

const get = (path: string, headers: Record<string, string> = {}) => httpsCall(h.port, pki.ca, path, { headers })
const bearer = (c: string) => ({ Authorization: `Bearer ${c}` })

/** A raw request line over TLS (an address Node's client would not send as written). */
function raw(requestLine: string, host = `127.0.0.1:${h.port}`): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: h.port, ca: pki.ca, servername: 'localhost' }, () => {
      s.write(`${requestLine}\r\nHost: ${host}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`)
    })
    let text = ''
    s.setEncoding('utf8')
    s.on('data', (d: string) => (text += d))
    s.on('end', () => resolve(text))
    s.on('error', reject)
  })
}

/** Releases the rooms question twice as ana: the budget of 5 admits one, the second is denied (and recorded). */
async function releaseTwice(): Promise<void> {
  const params = { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 2 }
  for (let i = 0; i < 2; i++) {
    await httpsCall(h.port, pki.ca, '/api/call/releases/run', {
      method: 'POST',
      headers: { ...bearer(cred.ana), 'Content-Type': 'application/json' },
      body: JSON.stringify({ req: { queryId, params } })
    })
  }
}

describe('liveness, readiness and metrics', () => {
  it('answers /api/health to anyone with {"ok":true} only, the same bytes before and after releases and denials', async () => {
    const before = await get('/api/health')
    expect(before.status).toBe(200)
    expect(before.body).toBe('{"ok":true}')
    // Under any Host (a probe uses an address), without a credential, and with a wrong one.
    expect((await raw('GET /api/health HTTP/1.1', 'probe.example:1')).endsWith('\r\n\r\n{"ok":true}')).toBe(true)
    expect((await get('/api/health', bearer('qa1_not-a-credential'))).body).toBe('{"ok":true}')
    await releaseTwice()
    const after = await get('/api/health')
    expect(after.body).toBe(before.body)
    expect(Object.keys(after.headers).filter((k) => /version|server|powered/i.test(k))).toEqual([])
  })

  it('gives readiness and metrics to the custodian only; every other caller gets one sentence and no metric', async () => {
    for (const path of ['/api/ready', '/api/metrics']) {
      const none = await get(path)
      expect(none.status).toBe(401)
      expect(none.body).not.toMatch(/quiet_alarm_/)
      const wrong = await get(path, bearer('qa1_not-a-credential'))
      expect(wrong.status).toBe(401)
      for (const who of [cred.ana, cred.olga]) {
        const r = await get(path, bearer(who))
        expect(r.status).toBe(403)
        const body = JSON.parse(r.body) as { ok: boolean; error: { message: string } }
        expect(body.error.message).toMatch(/^Forbidden: Reading the service's readiness and metrics is the custodian's act/)
        expect(r.body).not.toMatch(/quiet_alarm_/)
      }
    }
    const ready = await get('/api/ready', bearer(cred.carl))
    expect(ready.status).toBe(200)
    expect(JSON.parse(ready.body)).toEqual({ ok: true, value: { ready: true } })
  })

  it('shows the custodian requests, latency histograms, releases running and queued and the denials, and no name or value', async () => {
    await releaseTwice()
    const m = await get('/api/metrics', bearer(cred.carl))
    expect(m.status).toBe(200)
    expect(m.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    const lines = m.body.split('\n')
    const sample = (re: RegExp) => lines.find((l) => re.test(l))
    expect(sample(/^quiet_alarm_http_requests_total\{route="call:releases\/run",status="200"\} \d+$/)).toBeDefined()
    expect(sample(/^quiet_alarm_http_request_duration_seconds_bucket\{route="call:releases\/run",le="\+Inf"\} \d+$/)).toBeDefined()
    expect(sample(/^quiet_alarm_http_request_duration_seconds_count\{route="\/api\/health"\} \d+$/)).toBeDefined()
    expect(sample(/^quiet_alarm_releases_running 0$/)).toBeDefined()
    expect(sample(/^quiet_alarm_releases_queued 0$/)).toBeDefined()
    // Both tests' second releases were denied (the budget of 5 admits one), and each denial is counted.
    const denied = Number(sample(/^quiet_alarm_denials_total\{kind="release\/denied"\}/)?.split(' ')[1])
    const recorded = (
      h.services.context.store.db.prepare(`SELECT count(*) AS n FROM audit_events WHERE kind = 'release/denied'`).get() as { n: number }
    ).n
    expect(recorded).toBeGreaterThanOrEqual(1)
    expect(denied).toBe(recorded)
    // Histogram buckets are cumulative: each bucket holds at least the one before it.
    const buckets = lines
      .filter((l) => l.startsWith('quiet_alarm_http_request_duration_seconds_bucket{route="call:releases/run"'))
      .map((l) => Number(l.split(' ')[1]))
    expect(buckets.length).toBeGreaterThan(2)
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]).toBeGreaterThanOrEqual(buckets[i - 1])
    // No account, credential or data value (rooms, persons) in the text.
    for (const secret of ['ana', 'olga', 'carl', cred.ana, cred.carl, 'R1', 'other-R1', '"P"']) expect(m.body).not.toContain(secret)
    // What a client types never becomes a label.
    await get('/api/call/no-such%2Fmethod-typed-by-a-client')
    const again = await get('/api/metrics', bearer(cred.carl))
    expect(again.body).not.toContain('typed-by-a-client')
  })
})

describe('addresses that name nothing', () => {
  it('answers /health, /healthz, /metrics and other unknown pages with a 404 and one sentence, not the UI', async () => {
    for (const path of ['/health', '/healthz', '/metrics', '/status', '/nothing/here.js']) {
      const r = await get(path)
      expect(r.status).toBe(404)
      expect(r.body).not.toContain('the UI page')
      const body = JSON.parse(r.body) as { ok: boolean; error: { message: string; code: string } }
      expect(body.error.message).toMatch(/^There is nothing at this address: .*\/api\/health/)
      expect(body.error.message.split('. ').length).toBe(1)
    }
    // The UI itself is still there.
    expect((await get('/')).body).toContain('the UI page')
    expect((await get('/index.html')).body).toContain('the UI page')
  })

  it('answers //api/call/..., a backslash path and a page POST with one sentence', async () => {
    for (const line of ['POST //api/call/app%2Fstatus HTTP/1.1', 'POST /\\api/call/app%2Fstatus HTTP/1.1', 'GET //evil.example/x HTTP/1.1']) {
      const text = await raw(line)
      expect(text).toMatch(/^HTTP\/1\.1 400 /)
      expect(text).toContain('"message":"The request\'s address is not a path this server has: it must start with a single \\"/\\""')
    }
    const post = await raw('POST /index.html HTTP/1.1')
    expect(post).toMatch(/^HTTP\/1\.1 405 /)
    expect(post).toMatch(/Allow: GET, HEAD/i)
    expect(post).toContain("POST is not used on the UI's pages: they are read with GET")
  })
})
