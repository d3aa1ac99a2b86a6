/**
 * Delivering an alarm's fires to the custodian's webhooks: an outbox in the workspace (webhook_deliveries, migration 021).
 *
 * 1. `queueFires` makes one delivery per active webhook for every evaluated period that fired after the webhook was added
 *    (alarm_periods rows with fired predicates), with its body: so a fire found by any evaluator (the service's timer,
 *    `alarm run-due` from cron, the workbench) is queued by whichever process runs next, and a crash loses nothing.
 * 2. `deliverDue` sends every queued delivery that is due: claimed first (attempts + 1 and the next attempt's time, in one
 *    IMMEDIATE transaction, so two senders never send one attempt twice), POSTed over HTTPS with the body's HMAC, then
 *    marked delivered on a 2xx answer. Any other outcome keeps it queued for the next attempt after an exponential backoff,
 *    up to `maxAttempts`.
 *
 * The body holds the alarm's public fields and the fired predicates only (fireBody): no count, noisy value, threshold
 * noise, charge detail or ex-post cost, and no time finer than the period's public bounds (not when the evaluation ran).
 * When the request leaves is the caller's business: the alarm clock sends at the service's public cadence's ticks (watch/alarm-clock.ts).
 */
import { createHmac } from 'node:crypto'
import { request } from 'node:https'
import type Database from 'better-sqlite3'
import { canonicalJson } from '../chain/canonical'
import { alarmRow, firedLabels, paramsOf, startMs } from '../alarms/alarm-store'
import { periodRange } from '../../../src-worker/engine/alarms/periods'
import { activeWebhooks } from './webhook-store'

type Db = Database.Database

export const SIGNATURE_HEADER = 'X-Quiet-Alarm-Signature'
export const DELIVERY_HEADER = 'X-Quiet-Alarm-Delivery'

/** `sha256=<hex HMAC-SHA256(secret, body)>`: the key is the secret's text (UTF-8), the message the body's exact bytes. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`
}

/** The JSON a webhook receives for one fired period (canonical: the bytes signed are the bytes sent). */
export function fireBody(db: Db, alarmId: number, period: number): string {
  const a = alarmRow(db, alarmId)
  const p = paramsOf(a)
  const row = db.prepare('SELECT fired FROM alarm_periods WHERE alarm_id = ? AND period = ?').get(alarmId, period) as { fired: string } | undefined
  if (!row) throw new Error(`alarm ${alarmId} has no evaluated period ${period}`)
  const keys = JSON.parse(row.fired) as Array<Array<string | number | null>>
  const ds = db.prepare('SELECT name FROM datasets WHERE id = ?').get(a.dataset_id) as { name: string } | undefined
  const [from, to] = periodRange(startMs(a), a.period, period)
  return canonicalJson({
    v: 1,
    event: 'alarm.fired',
    id: `${a.uid}:${period}`,
    alarm: { id: a.id, uid: a.uid, name: a.name, dataset: ds?.name ?? null, period: a.period, mode: a.mode, timeColumn: a.time_column },
    period: { index: period, from: new Date(from).toISOString(), to: new Date(to).toISOString() },
    fired: firedLabels(p.groupBy, keys),
    firedKeys: { columns: p.groupBy, keys },
    accuracy: p.guarantee
  })
}

/** Queues the fires not yet queued for each active webhook (those evaluated since it was added). Returns how many. */
export function queueFires(db: Db, nowMs: number): number {
  const hooks = activeWebhooks(db)
  if (hooks.length === 0) return 0
  const find = db.prepare(
    `SELECT p.alarm_id, p.period FROM alarm_periods p
      WHERE p.fired <> '[]' AND p.evaluated_at >= @since
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = @w AND d.alarm_id = p.alarm_id AND d.period = p.period)
      ORDER BY p.evaluated_at, p.alarm_id, p.period`
  )
  const insert = db.prepare('INSERT OR IGNORE INTO webhook_deliveries (webhook_id, alarm_id, period, body, next_attempt_at) VALUES (?, ?, ?, ?, ?)')
  return db
    .transaction(() => {
      let n = 0
      const bodies = new Map<string, string>()
      for (const w of hooks) {
        for (const r of find.all({ w: w.id, since: w.createdAt }) as Array<{ alarm_id: number; period: number }>) {
          const k = `${r.alarm_id}:${r.period}`
          let body = bodies.get(k)
          if (body === undefined) bodies.set(k, (body = fireBody(db, r.alarm_id, r.period)))
          n += insert.run(w.id, r.alarm_id, r.period, body, nowMs).changes
        }
      }
      return n
    })
    .immediate()
}

export type SendOutcome = { ok: true; status: number } | { ok: false; error: string }

/** One POST; resolves with the answer's status or why there was none (never the answer's body). */
export type Sender = (url: string, body: string, headers: Record<string, string>) => Promise<SendOutcome>

export interface HttpsSendOptions {
  /** Authorities to trust instead of the system's (PEM): a receiver with a private CA. */
  ca?: string | Buffer
  timeoutMs?: number
}

/** POST over HTTPS, the certificate checked; redirects are not followed (a 3xx is a failed attempt). */
export function httpsSender(options: HttpsSendOptions = {}): Sender {
  const timeoutMs = options.timeoutMs ?? 10_000
  return (url, body, headers) =>
    new Promise<SendOutcome>((resolve) => {
      let settled = false
      const done = (o: SendOutcome) => {
        if (!settled) {
          settled = true
          resolve(o)
        }
      }
      const bytes = Buffer.from(body, 'utf8')
      const req = request(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(bytes.length), 'User-Agent': 'quiet-alarm-webhook/1' },
          ...(options.ca === undefined ? {} : { ca: options.ca }),
          // A connection of its own per delivery: a pooled keep-alive socket the receiver has just closed would fail it.
          agent: false,
          timeout: timeoutMs
        },
        (res) => {
          res.resume()
          res.on('end', () => done({ ok: true, status: res.statusCode ?? 0 }))
          res.on('error', () => done({ ok: true, status: res.statusCode ?? 0 }))
        }
      )
      req.on('timeout', () => {
        req.destroy()
        done({ ok: false, error: `no answer within ${Math.round(timeoutMs / 1000)} s` })
      })
      req.on('error', (e: NodeJS.ErrnoException) => done({ ok: false, error: connectionError(e) }))
      req.end(bytes)
    })
}

function connectionError(e: NodeJS.ErrnoException): string {
  const code = e.code ?? ''
  if (/CERT|SIGNATURE|SELF_SIGNED|TLS|SSL|HOSTNAME|ERR_TLS/.test(code)) return `TLS: the receiver's certificate was refused (${code})`
  if (code === 'ECONNREFUSED') return 'could not connect (connection refused)'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return "could not connect (the receiver's host name does not resolve)"
  if (code === 'ECONNRESET') return 'the connection was reset before an answer'
  return `could not deliver (${code || 'connection failed'})`
}

export interface DeliverOptions {
  send?: Sender
  /** First retry after this (ms); doubled at each failed attempt, at most `maxDelayMs`. */
  baseDelayMs?: number
  maxDelayMs?: number
  /** After this many failed attempts the delivery is given up (kept, with its last error). */
  maxAttempts?: number
}

export const DEFAULT_BASE_DELAY_MS = 30_000
export const DEFAULT_MAX_DELAY_MS = 3_600_000
export const DEFAULT_MAX_ATTEMPTS = 15

/** The wait after the `attempts`-th failed attempt: base * 2^(attempts - 1), at most max. */
export function backoffMs(attempts: number, baseMs = DEFAULT_BASE_DELAY_MS, maxMs = DEFAULT_MAX_DELAY_MS): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1))
}

export interface DeliveryReport {
  attempted: number
  delivered: number
  failed: Array<{ deliveryId: number; webhookId: number; attempts: number; error: string; gaveUp: boolean }>
}

interface DueRow {
  id: number
  webhook_id: number
  alarm_id: number
  period: number
  body: string
  attempts: number
  next_attempt_at: number
  url: string
  secret: string
}

/** Sends every delivery due at `nowMs` (see the file comment). */
export async function deliverDue(db: Db, nowMs: number, options: DeliverOptions = {}): Promise<DeliveryReport> {
  const send = options.send ?? httpsSender()
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS
  const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
  const due = db
    .prepare(
      `SELECT d.id, d.webhook_id, d.alarm_id, d.period, d.body, d.attempts, d.next_attempt_at, w.url, w.secret
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE w.active = 1 AND d.delivered_at IS NULL AND d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ?
        ORDER BY d.next_attempt_at, d.id`
    )
    .all(nowMs) as DueRow[]
  const claim = db.prepare(
    'UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ? AND attempts = ? AND delivered_at IS NULL'
  )
  const report: DeliveryReport = { attempted: 0, delivered: 0, failed: [] }
  for (const d of due) {
    const attempt = d.attempts + 1
    // Claimed before sending: another sender finds it not due; a crash mid-send retries it at the claimed time.
    const claimed = db
      .transaction(() => claim.run(attempt >= maxAttempts ? null : nowMs + backoffMs(attempt, base, max), d.id, d.attempts).changes === 1)
      .immediate()
    if (!claimed) continue
    report.attempted++
    const out = await send(d.url, d.body, { [SIGNATURE_HEADER]: signBody(d.secret, d.body), [DELIVERY_HEADER]: `${d.webhook_id}:${d.id}` })
    if (out.ok && out.status >= 200 && out.status < 300) {
      db.prepare('UPDATE webhook_deliveries SET delivered_at = ?, next_attempt_at = NULL, last_error = NULL WHERE id = ?').run(
        new Date(nowMs).toISOString(),
        d.id
      )
      report.delivered++
      continue
    }
    const error = out.ok ? `the receiver answered HTTP ${out.status}` : out.error
    const gaveUp = attempt >= maxAttempts
    db.prepare('UPDATE webhook_deliveries SET last_error = ? WHERE id = ?').run(gaveUp ? `${error}; gave up after ${attempt} attempts` : error, d.id)
    report.failed.push({ deliveryId: d.id, webhookId: d.webhook_id, attempts: attempt, error, gaveUp })
  }
  return report
}
