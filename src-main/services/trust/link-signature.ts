/**
 * Links are officer acts. A linked PostgreSQL relation: at every use its password is read from the
 * environment of whoever runs Quiet Alarm (the server's, through the app) and sent to the host of the stored URL. The
 * stored link is in the workspace file, which the analyst can write: a URL rewritten to a listener of theirs (on this
 * machine too) would be sent the password in clear. So the privacy officer signs what the link is (URL without password,
 * password variable, relation, declared columns and privacy unit, dataset id) when it is made, and every use checks the
 * stored link against that signature before any connection: a link that differs is refused with one sentence.
 *
 * A linked file likewise (kind 'file'): otherwise a file writer could point a budgeted dataset at any file the account can
 * read (another population under the same budget). The officer signs the path, the format, the columns, the unit and the real path it
 * leads to; every use checks them, so a changed path, or a symbolic link in it redirected to another file, is refused.
 *
 * The signer must be a registered officer whose registration verifies (added by a registered officer, only the first
 * one by itself). Replacing the whole officer registry with keys of one's own is caught by a receipt
 * (trust/receipts.ts), which carries the officer's public keys.
 */
import type Database from 'better-sqlite3'
import { canonicalJson } from '../chain/canonical'
import { verifyText } from './officer-crypto'
import { type EntrySigner } from '../chain/ledger-chain'
import { verifiedOfficerRows } from './officer-registry'

/** A linked relation's column as signed: its name, its declared PostgreSQL type and the catalog type it was given. */
export interface SignedLinkColumn {
  name: string
  pgType: string
  type: string
}

/** What the officer signs: everything a use of the link reads from the workspace. */
export interface SignedLink {
  datasetId: number
  /** The dataset's uid (null: linked before datasets had one; then not in the signed text). */
  datasetUid: string | null
  url: string
  passwordEnv: string | null
  schema: string
  table: string
  /** 'table', 'view', ... */
  kind: string
  columns: SignedLinkColumn[]
  personColumn: string | null
}

export function linkSigningText(l: SignedLink): string {
  return linkFactsText('postgres', {
    datasetId: l.datasetId,
    ...uidFact(l.datasetUid),
    url: l.url,
    passwordEnv: l.passwordEnv,
    schema: l.schema,
    table: l.table,
    kind: l.kind,
    columns: l.columns.map((c) => ({ name: c.name, pgType: c.pgType, type: c.type })),
    personColumn: l.personColumn
  })
}

export function signLink(key: EntrySigner, l: SignedLink): { signer: string; signature: string } {
  return { signer: key.keyId, signature: key.sign(linkSigningText(l)) }
}

/** Whether the stored link is exactly what a registered officer signed. */
export function linkSignedByOfficer(db: Database.Database, l: SignedLink, signer: string | null, signature: string | null): boolean {
  return textSignedByOfficer(db, linkSigningText(l), signer, signature)
}

/** The kinds of signed links (each its own signed text, so a signature of one kind is never one of another). */
export type LinkKind = 'postgres' | 'clickhouse' | 'file'

/** The dataset uid as a signed fact: absent for a dataset without one, so the links signed before uids still verify. */
export function uidFact(datasetUid: string | null): { datasetUid?: string } {
  return datasetUid === null ? {} : { datasetUid }
}

/** The text an officer signs for a link of `kind`: a versioned header and the canonical JSON of what the link is. */
export function linkFactsText(kind: LinkKind, facts: Record<string, unknown>): string {
  return `quiet-alarm/${kind}-link/v1\n${canonicalJson(facts)}`
}

export function signLinkFacts(key: EntrySigner, kind: LinkKind, facts: Record<string, unknown>): { signer: string; signature: string } {
  return { signer: key.keyId, signature: key.sign(linkFactsText(kind, facts)) }
}

/** Whether `facts`, as stored, are exactly what a registered officer signed for a link of `kind`. */
export function linkFactsSignedByOfficer(
  db: Database.Database,
  kind: LinkKind,
  facts: Record<string, unknown>,
  signer: string | null,
  signature: string | null
): boolean {
  return textSignedByOfficer(db, linkFactsText(kind, facts), signer, signature)
}

function textSignedByOfficer(db: Database.Database, text: string, signer: string | null, signature: string | null): boolean {
  if (!signer || !signature) return false
  // Only an officer whose registration verifies by the rule `ledger verify` checks (officers.ts; review H10: the first
  // self-registration in creation order was trusted, so a key inserted with an earlier creation time signed links).
  const o = verifiedOfficerRows(db).find((r) => r.key_id === signer)
  return o !== undefined && verifyText(o.sign_public, text, signature)
}

// ---------------------------------------------------------------------------------------------------------------
// Linked files

/** What the officer signs when linking a file: where it is, what identifies it, and everything a use reads. */
export interface SignedFileLink {
  datasetId: number
  /** The dataset's uid (null: linked before datasets had one; then not in the signed text). */
  datasetUid: string | null
  /** The absolute path the link reads. */
  path: string
  format: string
  /** The columns as linked (name, DuckDB type, catalog type). */
  columns: Array<{ name: string; duckType: string; type: string }>
  personColumn: string | null
  /** The real path the path led to when linked (symbolic links resolved): a link redirected afterwards is refused. */
  identity: string
}

export function fileLinkSigningText(l: SignedFileLink): string {
  return linkFactsText('file', {
    datasetId: l.datasetId,
    ...uidFact(l.datasetUid),
    path: l.path,
    format: l.format,
    columns: l.columns.map((c) => ({ name: c.name, duckType: c.duckType, type: c.type })),
    personColumn: l.personColumn,
    identity: l.identity
  })
}

export function signFileLink(key: EntrySigner, l: SignedFileLink): { signer: string; signature: string } {
  return { signer: key.keyId, signature: key.sign(fileLinkSigningText(l)) }
}

/** Whether the stored file link is exactly what a verified officer signed. */
export function fileLinkSignedByOfficer(db: Database.Database, l: SignedFileLink, signer: string | null, signature: string | null): boolean {
  return textSignedByOfficer(db, fileLinkSigningText(l), signer, signature)
}
