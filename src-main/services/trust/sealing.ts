/**
 * A release's ex-post costs (data-dependent: what the release really spent per predicate) as stored: encrypted to every
 * verified officer's X25519 key (officer-crypto.ts `seal`), never in clear, and bound into the audit log: the blob's
 * SHA-256 is the detail of a `release/sealed-costs` audit event written in the same transaction, so that a blob sealed
 * later by anyone holding the officers' public keys (a forged, smaller cost) no longer matches what the chain holds
 * and what the next checkpoint signs. The kernel (kernel.ts) checks every blob; the officer's unlock opens only a blob
 * the kernel accepts.
 */
import type Database from 'better-sqlite3'
import { canonicalJson } from '../chain/canonical'
import { recordAudit } from '../chain/ledger-chain'
import { SEALED_COSTS_EVENT, inspectWorkspace, sealedHash } from './kernel'
import { type Sealed, seal, unseal } from './officer-crypto'
import { verifiedOfficerRows } from './officer-registry'
import type { OfficerKey } from './officers'

type Db = Database.Database

const context = (releaseId: number) => `release:${releaseId}`

/**
 * Seals a release's ex-post costs to the verified officers and stores them with their binding event. Inside the
 * caller's transaction (the one that stores the answer). With no officer registered (a workspace whose budgets predate
 * officer keys) the costs are discarded rather than written in clear.
 */
export function storeSealedCosts(db: Db, releaseId: number, exPost: unknown): void {
  if (!db.inTransaction) throw new Error('sealed costs are stored inside the answer transaction')
  const recipients = verifiedOfficerRows(db).map((o) => ({ keyId: o.key_id, sealPublic: o.seal_public }))
  const blob =
    recipients.length === 0
      ? canonicalJson({ v: 1, recipients: [], discarded: 'no privacy officer was registered to seal to' })
      : JSON.stringify(seal(canonicalJson(exPost), context(releaseId), recipients))
  db.prepare('INSERT INTO release_ex_post (release_id, sealed) VALUES (?, ?)').run(releaseId, blob)
  recordAudit(db, SEALED_COSTS_EVENT, 'quiet-alarm', `release:${releaseId}`, { releaseId, sha256: sealedHash(blob) })
}

/** What a release's stored costs hold for this officer: the plaintext, or one sentence saying why there is none. */
export function openSealedCosts(
  db: Db,
  releaseId: number,
  statusText: string,
  officer: OfficerKey
): { plain: string; problem: null } | { plain: null; problem: string } {
  const row = db.prepare('SELECT sealed FROM release_ex_post WHERE release_id = ?').get(releaseId) as { sealed: string } | undefined
  if (row === undefined) return { plain: null, problem: `Release ${releaseId} has no sealed costs (${statusText})` }
  const refused = inspectWorkspace(db).sealedCostsProblem(releaseId)
  if (refused !== null) {
    return { plain: null, problem: `Release ${releaseId}'s stored costs are not opened: ${refused}. Run "quiet-alarm ledger verify"` }
  }
  let stored: Partial<Sealed> & { spentMax?: unknown; discarded?: string }
  try {
    stored = JSON.parse(row.sealed) as typeof stored
  } catch {
    return { plain: null, problem: `Release ${releaseId}'s sealed costs cannot be read` }
  }
  // Written in clear before officer keys existed; the kernel accepts that only for releases from then.
  if (stored.spentMax !== undefined) return { plain: row.sealed, problem: null }
  if (stored.discarded !== undefined) return { plain: null, problem: `Release ${releaseId}'s costs were not kept: ${stored.discarded} when it ran` }
  const plain = unseal(stored as Sealed, context(releaseId), officer.keyId, officer.sealPublic, officer.sealKey)
  if (plain === null) {
    return {
      plain: null,
      problem: `Release ${releaseId}'s costs were not sealed to officer "${officer.name}" (sealed to the officers registered when it ran), or were altered`
    }
  }
  return { plain, problem: null }
}
