/**
 * The webhooks the custodian configured (migration 021): add (an HTTPS URL; a fresh secret shown once), list (never
 * the secret), remove (inactive: its deliveries stay as history and no more are made or sent). Every fire an alarm
 * makes after a webhook was added is delivered to it (delivery.ts).
 */
import { randomBytes } from 'node:crypto'
import type Database from 'better-sqlite3'
import { UserError } from '../platform/errors'
import { recordAudit } from '../chain/ledger-chain'

type Db = Database.Database

export const MAX_URL_LENGTH = 2000

export interface WebhookInfo {
  id: number
  url: string
  createdBy: string
  createdAt: string
  active: boolean
  /** Deliveries made to it, delivered, and waiting (to be sent or retried). */
  deliveries: number
  delivered: number
  pending: number
  /** The last failure's sentence (status or connection error; never a body), or null. */
  lastError: string | null
}

export interface AddedWebhook extends WebhookInfo {
  /** The signing secret: shown once, here (the receiver verifies `X-Quiet-Alarm-Signature` with it). */
  secret: string
}

/** An https URL without credentials in it, or one sentence. */
export function checkWebhookUrl(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new UserError('A webhook needs a URL (https://...)', 'bad-input')
  const text = raw.trim()
  if (text.length > MAX_URL_LENGTH) throw new UserError(`A webhook URL may be at most ${MAX_URL_LENGTH} characters`, 'bad-input')
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UserError(`"${text.slice(0, 80)}" is not a URL; give the receiver's address, e.g. https://alerts.example.org/quiet-alarm`, 'bad-input')
  }
  if (url.protocol !== 'https:')
    throw new UserError(`A webhook URL must use https:// (got ${url.protocol.replace(/:$/, '')}): fires are sent only over TLS`, 'bad-input')
  if (url.username !== '' || url.password !== '')
    throw new UserError('A webhook URL may not hold a user name or password: the receiver checks the signature instead', 'bad-input')
  if (url.hash !== '') throw new UserError('A webhook URL may not have a #fragment', 'bad-input')
  return url.toString()
}

/** A fresh signing secret: 32 random bytes, base64url, with a prefix that names it. */
function freshSecret(): string {
  return `qa_whsec_${randomBytes(32).toString('base64url')}`
}

interface WebhookRow {
  id: number
  url: string
  secret: string
  created_by: string
  created_at: string
  active: number
}

function infoOf(db: Db, w: WebhookRow): WebhookInfo {
  const s = db
    .prepare(
      `SELECT COUNT(*) AS n, SUM(delivered_at IS NOT NULL) AS done, SUM(delivered_at IS NULL AND next_attempt_at IS NOT NULL) AS pending,
              (SELECT last_error FROM webhook_deliveries WHERE webhook_id = @w AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1) AS err
         FROM webhook_deliveries WHERE webhook_id = @w`
    )
    .get({ w: w.id }) as { n: number; done: number | null; pending: number | null; err: string | null }
  return {
    id: w.id,
    url: w.url,
    createdBy: w.created_by,
    createdAt: w.created_at,
    active: w.active === 1,
    deliveries: s.n,
    delivered: s.done ?? 0,
    pending: w.active === 1 ? (s.pending ?? 0) : 0,
    lastError: s.err
  }
}

export function addWebhook(db: Db, req: { url: unknown; createdBy: string; now?: Date }): AddedWebhook {
  const url = checkWebhookUrl(req.url)
  const secret = freshSecret()
  const createdAt = (req.now ?? new Date()).toISOString()
  const id = db
    .transaction(() => {
      const dup = db.prepare('SELECT id FROM webhooks WHERE url = ? AND active = 1').get(url) as { id: number } | undefined
      if (dup) throw new UserError(`Webhook ${dup.id} already sends to ${url}; remove it first to change its secret`, 'conflict')
      const r = db
        .prepare('INSERT INTO webhooks (url, secret, created_by, created_at) VALUES (?, ?, ?, ?)')
        .run(url, secret, req.createdBy, createdAt)
      const webhookId = Number(r.lastInsertRowid)
      // The act in the audit chain: which URL hears the fires, never the secret.
      recordAudit(db, 'webhook/add', req.createdBy, `webhook:${webhookId}`, { url })
      return webhookId
    })
    .immediate()
  return { ...infoOf(db, getRow(db, id)), secret }
}

function getRow(db: Db, id: number): WebhookRow {
  const row = db.prepare('SELECT * FROM webhooks WHERE id = ?').get(id) as WebhookRow | undefined
  if (!row) throw new UserError(`There is no webhook ${id}; list them with "quiet-alarm webhook list"`, 'not-found')
  return row
}

export function listWebhooks(db: Db): WebhookInfo[] {
  const rows = db.prepare('SELECT * FROM webhooks ORDER BY id').all() as WebhookRow[]
  return rows.map((w) => infoOf(db, w))
}

/** Makes the webhook inactive: nothing more is queued for it or sent to it; its deliveries stay as history. */
export function removeWebhook(db: Db, id: number, actor: string): WebhookInfo {
  db.transaction(() => {
    const w = getRow(db, id)
    if (w.active === 0) throw new UserError(`Webhook ${id} was already removed`, 'conflict')
    db.prepare('UPDATE webhooks SET active = 0 WHERE id = ?').run(id)
    db.prepare('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND delivered_at IS NULL').run(id)
    recordAudit(db, 'webhook/remove', actor, `webhook:${id}`, { url: w.url })
  }).immediate()
  return infoOf(db, getRow(db, id))
}

/** The active webhooks with their secrets: for the sender only. */
export function activeWebhooks(db: Db): Array<{ id: number; url: string; secret: string; createdAt: string }> {
  return (db.prepare('SELECT id, url, secret, created_at FROM webhooks WHERE active = 1 ORDER BY id').all() as WebhookRow[]).map((w) => ({
    id: w.id,
    url: w.url,
    secret: w.secret,
    createdAt: w.created_at
  }))
}
