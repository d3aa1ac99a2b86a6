/**
 * A linked source's fingerprint (file size, mtime and a content hash; for PostgreSQL the relation's identity
 * and row estimate) as a release records it: sealed to the privacy officers, as ex-post costs are. In clear, the ledger
 * and reports would tell every reader, at each release and uncharged, a private file's size or a live table's row
 * estimate, and whether it changed since the last release. The analyst sees that a linked source was
 * read; the officer opens the fingerprint with their key (the officer edition of a report does).
 */
import type Database from 'better-sqlite3'
import { canonicalJson } from '../chain/canonical'
import { type Sealed, seal, unseal } from './officer-crypto'
import { type OfficerKey } from './officers'
import { verifiedOfficerRows } from './officer-registry'

export const SEALED_TEXT = 'sealed to the privacy officers'

/** The sealing context: binds the ciphertext to the dataset it fingerprints. */
function context(datasetId: number): string {
  return `source-fingerprint:dataset:${datasetId}`
}

/** What the release's parameters record for a linked source. */
export function sealSourceFingerprint(db: Database.Database, datasetId: number, fingerprint: object): Record<string, unknown> {
  const recipients = verifiedOfficerRows(db).map((o) => ({ keyId: o.key_id, sealPublic: o.seal_public }))
  if (recipients.length === 0) return { linked: true, fingerprint: 'not kept: no privacy officer was registered to seal it to' }
  return { linked: true, fingerprint: SEALED_TEXT, sealed: seal(canonicalJson(fingerprint), context(datasetId), recipients) }
}

/** The fingerprint a release recorded, opened with an officer's key; null when there is none this officer can open. */
export function openSourceFingerprint(recorded: unknown, datasetId: number, key: OfficerKey): Record<string, unknown> | null {
  const sealed = (recorded as { sealed?: Sealed } | null)?.sealed
  if (!sealed || !Array.isArray(sealed.recipients)) return null
  const plain = unseal(sealed, context(datasetId), key.keyId, key.sealPublic, key.sealKey)
  return plain === null ? null : (JSON.parse(plain) as Record<string, unknown>)
}

/** The recorded source in words, without what is sealed: for the analyst's views. */
export function sourceText(recorded: unknown): string {
  const r = recorded as { linked?: unknown; fingerprint?: unknown } | null
  if (!r || r.linked !== true) return 'linked source'
  return `linked source (fingerprint ${typeof r.fingerprint === 'string' ? r.fingerprint : SEALED_TEXT})`
}
