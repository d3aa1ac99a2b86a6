/**
 * Webhooks hear an alarm's fires (services/webhooks/), tested against an HTTPS receiver on loopback with a certificate
 * made by openssl (test/support/tls.ts). Each test is the failure or attack it stops:
 * - a forged or altered fire accepted by a receiver: every request carries sha256=HMAC(secret, body), verified here;
 * - a fire lost to a receiver's 500, to a restart, or sent twice by two senders at once;
 * - fires sent over plain HTTP, to a receiver whose certificate does not verify, or after the webhook was removed;
 * - private values leaving by a webhook: distinctive counts planted in the data, and the instance's threshold noise,
 *   are searched for in every byte the receiver got (request line, headers, body), in the events and in the outbox.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createHmac } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { type Server, createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { SecureRandom } from '../../../src-worker/engine/random'
import { evaluateDueAlarms, type EvaluateOptions } from '../../../src-main/services/alarms/evaluate'
import { createAlarm } from '../../../src-main/services/alarms/create'
import { addWebhook, listWebhooks, removeWebhook } from '../../../src-main/services/webhooks/webhook-store'
import { DEFAULT_BASE_DELAY_MS, deliverDue, httpsSender, queueFires } from '../../../src-main/services/webhooks/delivery'
import { openStore, type Store } from '../../../src-main/services/store/store'
import type { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, openLedgerWorkspace } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { HOUR, START, plantStream } from './continual-fixture'
import { type TestPki, makeTestPki } from '../../support/tls'
import type { CreateAlarmRequest } from '../../../src-main/contract/alarms'

interface Received {
  raw: string
  body: string
  headers: IncomingMessage['headers']
}

let pki: TestPki
let server: Server
let received: Received[] = []
/** The statuses the receiver answers with, in turn (then 200). */
let answers: number[] = []

beforeAll(async () => {
  pki = makeTestPki(['127.0.0.1'])
  server = createServer({ key: pki.key, cert: pki.cert }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const head = [`${req.method} ${req.url} HTTP/${req.httpVersion}`]
      for (let i = 0; i < req.rawHeaders.length; i += 2) head.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`)
      received.push({ raw: `${head.join('\r\n')}\r\n\r\n${body}`, body, headers: req.headers })
      res.statusCode = answers.shift() ?? 200
      res.end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
})
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()))
  pki.cleanup()
})

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ;({ ws, store } = openLedgerWorkspace('qa-webhook-'))
  received = []
  answers = []
})
afterEach(() => closeLedgerWorkspace(store, ws))

const url = () => `https://127.0.0.1:${(server.address() as AddressInfo).port}/quiet-alarm/hook?team=wards`
const at = (hours: number) => START + hours * HOUR
const send = () => httpsSender({ ca: pki.ca, timeoutMs: 5000 })
const verify = (secret: string, r: Received) =>
  r.headers['x-quiet-alarm-signature'] === `sha256=${createHmac('sha256', secret).update(r.body, 'utf8').digest('hex')}`

/**
 * A when-fires alarm over `hours` hourly periods of 3 rooms, room R2 over the threshold in hour 1. The margins are
 * wide for alpha = 50 (quiet cells about 4 alpha under the threshold, the fired one 4 alpha over): a miss or a false
 * fire has probability below 1e-5 per cell, so each test knows which period fires.
 */
function watchedStream(o: { hours: number; quiet: number; high: number; threshold: number }): number {
  const s = plantStream(store.db, {
    hours: o.hours,
    rooms: 3,
    quiet: o.quiet,
    high: o.high,
    threshold: o.threshold,
    over: (h, r) => h === 1 && r === 1
  })
  const req: CreateAlarmRequest = {
    queryId: s.queryId,
    timeColumn: 'at',
    period: 'hour',
    start: new Date(START).toISOString(),
    mode: 'when-fires',
    beta: 0.05,
    alpha: 50,
    fires: 3,
    reason: 'rooms over capacity, every hour',
    ...officerAct(store.db)
  } as CreateAlarmRequest
  return createAlarm(store.db, req).alarmId
}

describe('webhooks', () => {
  it('POSTs each fire once, signed with the HMAC of its exact body, with the public fields only', async () => {
    const hook = addWebhook(store.db, { url: url(), createdBy: 'custodian', now: new Date(START) })
    const alarmId = watchedStream({ hours: 4, quiet: 5, high: 400, threshold: 200 })
    evaluateDueAlarms(store.db, new Date(at(4)), SecureRandom.create())
    expect(queueFires(store.db, at(4))).toBe(1)
    const r = await deliverDue(store.db, at(4), { send: send() })
    expect(r).toMatchObject({ attempted: 1, delivered: 1, failed: [] })
    expect(received).toHaveLength(1)
    expect(verify(hook.secret, received[0])).toBe(true)
    // The same body with one byte changed does not verify: a receiver that checks refuses it.
    expect(verify(hook.secret, { ...received[0], body: received[0].body.replace('R2', 'R3') })).toBe(false)
    expect(received[0].headers['content-type']).toBe('application/json')
    const body = JSON.parse(received[0].body)
    expect(body).toEqual({
      v: 1,
      event: 'alarm.fired',
      id: expect.stringMatching(/:1$/),
      alarm: {
        id: alarmId,
        uid: expect.any(String),
        name: expect.any(String),
        dataset: 'visits',
        period: 'hour',
        mode: 'when-fires',
        timeColumn: 'at'
      },
      period: { index: 1, from: new Date(at(1)).toISOString(), to: new Date(at(2)).toISOString() },
      fired: [expect.stringContaining('R2')],
      firedKeys: { columns: ['room'], keys: [['R2']] },
      accuracy: expect.any(String)
    })
    // Again: nothing new to queue, nothing due.
    expect(queueFires(store.db, at(5))).toBe(0)
    expect(await deliverDue(store.db, at(5), { send: send() })).toMatchObject({ attempted: 0 })
    expect(received).toHaveLength(1)
    expect(listWebhooks(store.db)[0]).toMatchObject({ id: hook.id, deliveries: 1, delivered: 1, pending: 0, lastError: null })
  })

  it('retries after a 500 with exponential backoff, and delivers', async () => {
    addWebhook(store.db, { url: url(), createdBy: 'custodian', now: new Date(START) })
    watchedStream({ hours: 3, quiet: 5, high: 400, threshold: 200 })
    evaluateDueAlarms(store.db, new Date(at(3)), SecureRandom.create())
    queueFires(store.db, at(3))
    answers = [500, 503]
    const t0 = at(3)
    const first = await deliverDue(store.db, t0, { send: send() })
    expect(first.failed).toEqual([{ deliveryId: 1, webhookId: 1, attempts: 1, error: 'the receiver answered HTTP 500', gaveUp: false }])
    // Not due before the backoff has passed; then the second attempt (503), then twice the wait, then delivered.
    expect((await deliverDue(store.db, t0 + DEFAULT_BASE_DELAY_MS - 1, { send: send() })).attempted).toBe(0)
    const second = await deliverDue(store.db, t0 + DEFAULT_BASE_DELAY_MS, { send: send() })
    expect(second.failed[0]).toMatchObject({ attempts: 2, error: 'the receiver answered HTTP 503' })
    const t2 = t0 + DEFAULT_BASE_DELAY_MS
    expect((await deliverDue(store.db, t2 + 2 * DEFAULT_BASE_DELAY_MS - 1, { send: send() })).attempted).toBe(0)
    expect(await deliverDue(store.db, t2 + 2 * DEFAULT_BASE_DELAY_MS, { send: send() })).toMatchObject({ attempted: 1, delivered: 1 })
    expect(received).toHaveLength(3)
    expect(new Set(received.map((r) => r.body)).size).toBe(1)
    expect(listWebhooks(store.db)[0]).toMatchObject({ delivered: 1, pending: 0 })
  })

  it('gives up after the last attempt and says so, keeping the delivery', async () => {
    addWebhook(store.db, { url: url(), createdBy: 'custodian', now: new Date(START) })
    watchedStream({ hours: 3, quiet: 5, high: 400, threshold: 200 })
    evaluateDueAlarms(store.db, new Date(at(3)), SecureRandom.create())
    queueFires(store.db, at(3))
    answers = [500, 500]
    await deliverDue(store.db, at(3), { send: send(), maxAttempts: 2, baseDelayMs: 1000 })
    const last = await deliverDue(store.db, at(3) + 1000, { send: send(), maxAttempts: 2, baseDelayMs: 1000 })
    expect(last.failed[0]).toMatchObject({ attempts: 2, gaveUp: true })
    expect(await deliverDue(store.db, at(3) + 10 * HOUR, { send: send(), maxAttempts: 2 })).toMatchObject({ attempted: 0 })
    expect(listWebhooks(store.db)[0]).toMatchObject({
      deliveries: 1,
      delivered: 0,
      pending: 0,
      lastError: 'the receiver answered HTTP 500; gave up after 2 attempts'
    })
  })

  it('survives a restart: a fire queued by one process is sent by the next, and two senders at once send it once', async () => {
    addWebhook(store.db, { url: url(), createdBy: 'custodian', now: new Date(START) })
    watchedStream({ hours: 3, quiet: 5, high: 400, threshold: 200 })
    evaluateDueAlarms(store.db, new Date(at(3)), SecureRandom.create())
    queueFires(store.db, at(3))
    store.close()
    store = openStore(ws.db)
    const other = openStore(ws.db)
    try {
      const [a, b] = await Promise.all([deliverDue(store.db, at(3), { send: send() }), deliverDue(other.db, at(3), { send: send() })])
      expect(a.delivered + b.delivered).toBe(1)
      expect(a.attempted + b.attempted).toBe(1)
    } finally {
      other.close()
    }
    expect(received).toHaveLength(1)
  })

  it('refuses http:// and credentials in the URL, does not deliver to a receiver whose certificate fails, stops after remove', async () => {
    const refused: Array<[string, string]> = [
      ['http://127.0.0.1/hook', 'A webhook URL must use https:// (got http): fires are sent only over TLS'],
      ['https://user:pw@127.0.0.1/hook', 'A webhook URL may not hold a user name or password: the receiver checks the signature instead'],
      ['not a url', '"not a url" is not a URL; give the receiver\'s address, e.g. https://alerts.example.org/quiet-alarm']
    ]
    for (const [u, message] of refused) expect(() => addWebhook(store.db, { url: u, createdBy: 'custodian' })).toThrow(message)
    expect(listWebhooks(store.db)).toEqual([])
    const hook = addWebhook(store.db, { url: url(), createdBy: 'custodian', now: new Date(START) })
    watchedStream({ hours: 3, quiet: 5, high: 400, threshold: 200 })
    evaluateDueAlarms(store.db, new Date(at(3)), SecureRandom.create())
    queueFires(store.db, at(3))
    // A sender trusting another authority: the receiver's certificate does not verify, nothing reaches it.
    const { readFileSync } = await import('node:fs')
    const wrong = await deliverDue(store.db, at(3), { send: httpsSender({ ca: readFileSync(pki.otherCaPath) }) })
    expect(wrong.failed[0].error).toMatch(/^TLS: the receiver's certificate was refused/)
    expect(received).toHaveLength(0)
    removeWebhook(store.db, hook.id, 'custodian')
    expect(await deliverDue(store.db, at(3) + HOUR, { send: send() })).toMatchObject({ attempted: 0 })
    expect(queueFires(store.db, at(3) + HOUR)).toBe(0)
    expect(received).toHaveLength(0)
  })

  it('leaks no private value: planted counts and the threshold noise appear in no byte sent, no event and no stored body', async () => {
    const hook = addWebhook(store.db, { url: url(), createdBy: 'custodian', now: new Date(START) })
    // Distinctive true counts: 1733 in quiet cells and 4919 in the fired one; the threshold 3000 is public.
    watchedStream({ hours: 3, quiet: 1733, high: 4919, threshold: 3000 })
    const events: Array<Parameters<NonNullable<EvaluateOptions['emit']>>[0]> = []
    evaluateDueAlarms(store.db, new Date(at(3)), SecureRandom.create(), { emit: (e) => events.push(e) })
    expect(queueFires(store.db, at(3))).toBe(1)
    expect(await deliverDue(store.db, at(3), { send: send() })).toMatchObject({ attempted: 1, delivered: 1 })
    expect(received).toHaveLength(1)
    expect(verify(hook.secret, received[0])).toBe(true)
    const rhos = (store.db.prepare('SELECT rho FROM alarm_instances').all() as Array<{ rho: number }>).map((r) => r.rho)
    expect(rhos.length).toBeGreaterThan(0)
    const outbox = store.db.prepare('SELECT body, last_error FROM webhook_deliveries').all()
    const everything = [...received.map((r) => r.raw), JSON.stringify(events), JSON.stringify(outbox)].join('\n')
    expect(events.some((e) => e.name === 'alarm:fired')).toBe(true)
    for (const planted of ['1733', '4919', String(3 * 1733), String(2 * 1733 + 4919)]) expect(everything).not.toContain(planted)
    for (const rho of rhos) {
      // The noise's leading digits in any form a serializer would write it.
      const digits = Math.abs(rho).toPrecision(6).replace('.', '').replace(/^0+/, '').slice(0, 5)
      expect(everything.replace(/[.,]/g, '')).not.toContain(digits)
    }
    // No time finer than the period's public bounds: not when the evaluation ran or took.
    expect(everything).not.toMatch(/evaluatedAt|evaluated_at|"at":/)
  })
})
