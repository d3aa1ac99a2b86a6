/**
 * `webhook add|list|remove|deliver`: the HTTPS receivers that hear every alarm's fires (the custodian's; services/webhooks/).
 * `add` prints the signing secret once. `deliver` queues the fires evaluated since the last pass and sends what is due
 * (for a cron job or timer after `alarm run-due`; the service sends on its own clock).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { type WebhookInfo, addWebhook, deliverDue, httpsSender, listWebhooks, queueFires, removeWebhook } from '../../services/local'
import { type CliCommand, type CliValues, UsageError, optString, reqNumber, reqString } from '../command'
import { openWorkspace } from '../workspace'

function line(w: WebhookInfo): string {
  const state = w.active ? 'active' : 'removed'
  const counts = `${w.delivered}/${w.deliveries} delivered${w.pending ? `, ${w.pending} waiting` : ''}`
  return `${String(w.id).padStart(3)}  ${w.url}  ${state}  ${counts}  (added ${w.createdAt.slice(0, 10)} by ${w.createdBy})${w.lastError ? `  last failure: ${w.lastError}` : ''}`
}

function caOf(values: CliValues, cwd: string): string | undefined {
  const f = optString(values, 'ca-file')
  if (f === undefined) return undefined
  try {
    return readFileSync(resolve(cwd, f), 'utf8')
  } catch (e) {
    throw new UsageError(`--ca-file: cannot read ${f} (${(e as NodeJS.ErrnoException).code ?? 'unreadable'})`)
  }
}

export const webhookCommand: CliCommand = {
  name: 'webhook',
  summary: "HTTPS receivers of every alarm's fires: add one (its signing secret is shown once), list, remove, deliver what is due",
  usage:
    'webhook add --db PATH --url https://... | webhook list --db PATH | webhook remove --db PATH --id N | webhook deliver --db PATH [--ca-file CA]',
  subcommands: ['add', 'list', 'remove', 'deliver'],
  required: (_v, pos) => (pos[0] === 'add' ? ['url'] : pos[0] === 'remove' ? ['id'] : []),
  options: {
    db: { type: 'string', description: 'workspace database file', defaultText: '$QUIET_ALARM_DB or the user data directory' },
    url: { type: 'string', description: 'add: the receiver, https:// only (no user or password in it)' },
    id: { type: 'string', description: 'remove: the webhook id (webhook list)' },
    'ca-file': {
      type: 'string',
      description: "deliver: the certificate (PEM) of the authority that signed the receivers' certificates",
      defaultText: "the system's authorities (and NODE_EXTRA_CA_CERTS)"
    }
  },
  async run(values, positionals, ctx) {
    const sub = positionals[0] ?? 'list'
    if (!['add', 'list', 'remove', 'deliver'].includes(sub))
      throw new UsageError(`webhook takes add, list, remove or deliver (got "${sub.slice(0, 40)}")`)
    const ca = sub === 'deliver' ? caOf(values, ctx.cwd) : undefined
    const store = openWorkspace(values, ctx.cwd, { create: false })
    try {
      const db = store.db
      if (sub === 'add') {
        const w = addWebhook(db, { url: reqString(values, 'url'), createdBy: 'local user' })
        return {
          json: { webhook: w },
          text: [
            `Webhook ${w.id} added: every fire from now on is POSTed to ${w.url}.`,
            `Signing secret (shown once): ${w.secret}`,
            'The receiver checks X-Quiet-Alarm-Signature: sha256=<hex HMAC-SHA256 of the body with this secret>.'
          ].join('\n')
        }
      }
      if (sub === 'remove') {
        const w = removeWebhook(db, reqNumber(values, 'id', { integer: true, ge: 1 }), 'local user')
        return { json: { webhook: w }, text: `Webhook ${w.id} removed: nothing more is sent to ${w.url}.` }
      }
      if (sub === 'deliver') {
        const now = Date.now()
        const queued = queueFires(db, now)
        const r = await deliverDue(db, now, { send: httpsSender({ ca }) })
        const failed = r.failed.map((f) => `  webhook ${f.webhookId}, delivery ${f.deliveryId}: ${f.error}${f.gaveUp ? ' (given up)' : ''}`)
        return {
          json: { queued, ...r },
          text: [`Queued ${queued} fire${queued === 1 ? '' : 's'}; sent ${r.attempted}, delivered ${r.delivered}.`, ...failed].join('\n')
        }
      }
      const hooks = listWebhooks(db)
      return {
        json: { webhooks: hooks },
        text: hooks.length ? hooks.map(line).join('\n') : 'No webhooks; add one with "quiet-alarm webhook add --url https://...".'
      }
    } finally {
      store.close()
    }
  }
}
