import { createHash } from 'node:crypto'
import type { Migration } from '../migration'

/**
 * The seal epoch recorded in the audit log: a `ledger/seal-epoch` event holding the last release whose sealed costs may
 * be unbound (`ledger_seal_epoch` as migration 013 set it). The kernel reads the epoch from the first such event only,
 * which the next checkpoint covers like every event; the plain row is no longer read.
 *
 * The event is appended by the audit chain's definition (chain/audit-chain.ts, migration 007): hash = SHA-256( prev_hash
 * || "\n" || canonical JSON of {id, at, kind, actor, subject, detail} ), keys sorted. A migration is frozen history, so
 * it carries its own copy instead of importing live code.
 */
export const migration016: Migration | null = {
  version: 16,
  name: 'seal epoch in the audit log',
  up: (db) => {
    const through =
      (db.prepare('SELECT sealed_through_release_id AS id FROM ledger_seal_epoch WHERE id = 1').get() as { id: number } | undefined)?.id ?? 0
    const head = (db.prepare('SELECT id, hash FROM audit_events WHERE hash IS NOT NULL ORDER BY id DESC LIMIT 1').get() as
      { id: number; hash: string } | undefined) ?? { id: 0, hash: '0'.repeat(64) }
    const last = (db.prepare('SELECT max(id) AS id FROM audit_events').get() as { id: number | null }).id ?? 0
    const row = {
      id: Math.max(head.id, last) + 1,
      at: new Date().toISOString(),
      kind: 'ledger/seal-epoch',
      actor: 'quiet-alarm',
      subject: null,
      detail: JSON.stringify({ throughReleaseId: through })
    }
    const text = `{"actor":${JSON.stringify(row.actor)},"at":${JSON.stringify(row.at)},"detail":${JSON.stringify(row.detail)},"id":${row.id},"kind":${JSON.stringify(row.kind)},"subject":null}`
    const hash = createHash('sha256').update(head.hash).update('\n').update(text).digest('hex')
    db.prepare('INSERT INTO audit_events (id, at, kind, actor, subject, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      row.id,
      row.at,
      row.kind,
      row.actor,
      row.subject,
      row.detail,
      head.hash,
      hash
    )
  }
}
