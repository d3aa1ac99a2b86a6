/**
 * Privacy officers: registration, unlocking a key with its passphrase, signed checkpoints.
 *
 * An officer act (a budget, a public declaration, an unlock, a checkpoint, adding an officer) is made with credentials
 * `{ officer, passphrase }`: the officer's registered name (or key id; optional when only one officer is registered) and
 * the passphrase that unwraps the private keys. A wrong or missing passphrase is refused before anything is written. The
 * passphrase is never stored, logged or put in an error message.
 */
import type { KeyObject } from 'node:crypto'
import type Database from 'better-sqlite3'
import { UserError } from '../platform/errors'
import { type EntrySigner, recordAudit } from '../chain/ledger-chain'
import { nowIso } from '../platform/clock'
import { refuseUnlessVerifies, writeCheckpoint } from './checkpoints'
import { type LedgerReceipt, makeReceipt } from './receipts'
import { type WrappedKeys, beginUnwrapKeys, createKeyPair, kdfProblem, signText, unwrapKeys } from './officer-crypto'
import { type OfficerRow, REGISTRATION_VERSION, officerRows, registrationText, verifiedOfficerRows } from './officer-registry'

type Db = Database.Database

export const MIN_PASSPHRASE = 12

export interface OfficerCredentials {
  /** The officer's registered name or key id; may be left out when exactly one officer is registered. */
  officer?: string
  passphrase?: string
}

export interface OfficerInfo {
  keyId: string
  name: string
  createdAt: string
  addedBy: string
  addedByName: string
}

/** An officer whose passphrase was given: can sign and open sealed values. Lives in memory for one act. */
export interface OfficerKey extends EntrySigner {
  name: string
  sealPublic: string
  signPublic: string
  sealKey: KeyObject
}

export function listOfficers(db: Db): OfficerInfo[] {
  const rows = officerRows(db)
  const byId = new Map(rows.map((r) => [r.key_id, r.name]))
  return rows.map((r) => ({
    keyId: r.key_id,
    name: r.name,
    createdAt: r.created_at,
    addedBy: r.added_by,
    addedByName: byId.get(r.added_by) ?? '(unknown)'
  }))
}

function findOfficer(db: Db, ref: string | undefined): OfficerRow {
  const rows = officerRows(db)
  if (rows.length === 0) {
    throw new UserError(
      'No privacy officer is registered in this workspace, so no officer act can be made; create one first with "quiet-alarm officer init --name NAME"',
      'no-officer'
    )
  }
  const r = typeof ref === 'string' ? ref.trim() : ''
  if (r === '') {
    if (rows.length === 1) return rows[0]
    throw new UserError(`Say which officer acts (several are registered: ${rows.map((x) => `"${x.name}"`).join(', ')})`, 'forbidden')
  }
  const hit = rows.find((x) => x.name === r) ?? rows.find((x) => x.key_id === r.toLowerCase())
  if (!hit) {
    throw new UserError(
      `"${r.slice(0, 80)}" is not a registered privacy officer of this workspace (registered: ${rows.map((x) => `"${x.name}"`).join(', ')}); nothing was written`,
      'forbidden'
    )
  }
  return hit
}

function toKey(row: OfficerRow, keys: { signKey: KeyObject; sealKey: KeyObject }): OfficerKey {
  return {
    keyId: row.key_id,
    name: row.name,
    signPublic: row.sign_public,
    sealPublic: row.seal_public,
    sealKey: keys.sealKey,
    sign: (text: string) => signText(keys.signKey, text)
  }
}

/** Check the credentials and unwrap the officer's keys; one sentence (and nothing written) when they are not right. */
export function unlockOfficer(db: Db, cred: OfficerCredentials | undefined): OfficerKey {
  const { row, wrapped, pass } = unlockable(db, cred)
  return opened(row, unwrapKeys(row.key_id, wrapped, pass, publicKeysOf(row)))
}

/**
 * `unlockOfficer` in two steps: the checks that need no key derivation now (an unknown or unverified officer, no
 * passphrase, unreadable wrapped keys: refused here), and the passphrase's key derivation (scrypt) begun on the KDF
 * worker (kdf-worker.ts), so that this thread works meanwhile. `wait()` unwraps the keys (a wrong passphrase refused
 * then); it can be called once.
 */
export function beginOfficerUnlock(db: Db, cred: OfficerCredentials | undefined): { wait(): OfficerKey } {
  const { row, wrapped, pass } = unlockable(db, cred)
  const pending = beginUnwrapKeys(row.key_id, wrapped, pass, publicKeysOf(row))
  return { wait: () => opened(row, pending.wait()) }
}

function publicKeysOf(row: OfficerRow): { signPublic: string; sealPublic: string } {
  return { signPublic: row.sign_public, sealPublic: row.seal_public }
}

function opened(row: OfficerRow, keys: { signKey: KeyObject; sealKey: KeyObject } | null): OfficerKey {
  if (keys === null) throw new UserError(`The passphrase of officer "${row.name}" is wrong; nothing was written`, 'forbidden')
  return toKey(row, keys)
}

/** The officer, wrapped keys and passphrase of `cred`, refused in one sentence unless a key derivation could open them. */
function unlockable(db: Db, cred: OfficerCredentials | undefined): { row: OfficerRow; wrapped: WrappedKeys; pass: string } {
  const row = findOfficer(db, cred?.officer)
  const pass = cred?.passphrase
  if (typeof pass !== 'string' || pass === '') {
    throw new UserError(`This is an officer act: it needs the passphrase of officer "${row.name}"; nothing was written`, 'forbidden')
  }
  if (!verifiedOfficerRows(db).some((o) => o.key_id === row.key_id)) {
    throw new UserError(
      `The registration of officer "${row.name}" does not verify (the workspace's officer registry was changed outside the app), so it cannot act; nothing was written. Run "quiet-alarm ledger verify"`,
      'forbidden'
    )
  }
  let wrapped: WrappedKeys
  try {
    wrapped = JSON.parse(row.wrapped) as WrappedKeys
  } catch {
    throw new UserError(
      `The wrapped keys of officer "${row.name}" cannot be read (changed outside the app); nothing was written. Run "quiet-alarm ledger verify"`,
      'forbidden'
    )
  }
  const kdf = kdfProblem(wrapped)
  if (kdf !== null) {
    throw new UserError(
      `The wrapped keys of officer "${row.name}" are refused (${kdf}: changed outside the app); nothing was written. Run "quiet-alarm ledger verify"`,
      'forbidden'
    )
  }
  return { row, wrapped, pass }
}

/** `ledger checkpoint`: the officer signs both heads now; the result carries them as a receipt to keep elsewhere. */
export function checkpoint(
  db: Db,
  cred: OfficerCredentials
): { id: number; ledgerSeq: number; ledgerHash: string; auditId: number; auditHash: string; at: string; officer: string; receipt: LedgerReceipt } {
  const key = unlockOfficer(db, cred)
  const cp = db.transaction(() => writeCheckpoint(db, key)).immediate()
  return { ...cp, officer: key.name, receipt: makeReceipt(cp, key) }
}

export interface RegisterInput {
  name: string
  /** The new officer's passphrase (at least MIN_PASSPHRASE characters). */
  passphrase: string
  /** An officer already registered, who adds this one (required unless none is registered yet). */
  by?: OfficerCredentials
}

/** Register a privacy officer: the first one alone, every later one signed by an officer already registered. */
export function registerOfficer(db: Db, input: RegisterInput): OfficerInfo & { fingerprint: string } {
  const name = typeof input.name === 'string' ? input.name.trim() : ''
  if (name === '' || name.length > 100) throw new UserError('An officer needs a name (at most 100 characters); it is recorded with every act')
  if (typeof input.passphrase !== 'string' || [...input.passphrase].length < MIN_PASSPHRASE) {
    throw new UserError(`The new officer's passphrase must have at least ${MIN_PASSPHRASE} characters; nothing was written`)
  }
  const existing = officerRows(db)
  if (existing.some((r) => r.name === name)) throw new UserError(`An officer named "${name}" is already registered`, 'conflict')
  const adder = existing.length === 0 ? null : unlockOfficer(db, input.by)
  const kp = createKeyPair(input.passphrase)
  const row: OfficerRow = {
    key_id: kp.keyId,
    name,
    created_at: nowIso(),
    sign_public: kp.signPublic,
    seal_public: kp.sealPublic,
    wrapped: JSON.stringify(kp.wrapped),
    added_by: adder?.keyId ?? kp.keyId,
    signature: ''
  }
  const self = toKey(row, { signKey: kp.signKey, sealKey: kp.sealKey })
  const signer = adder ?? self
  row.signature = signer.sign(registrationText(row))
  db.transaction(() => {
    refuseUnlessVerifies(db)
    // Checked again inside the transaction: two first officers cannot both be added without a signature.
    if (adder === null && (db.prepare('SELECT count(*) AS n FROM officers').get() as { n: number }).n > 0) {
      throw new UserError('Another officer was registered meanwhile: a new officer must now be added by a registered one', 'conflict')
    }
    db.prepare(
      'INSERT INTO officers (key_id, name, created_at, sign_public, seal_public, wrapped, added_by, signature) VALUES (@key_id, @name, @created_at, @sign_public, @seal_public, @wrapped, @added_by, @signature)'
    ).run(row)
    recordAudit(
      db,
      'officer/registered',
      signer.name,
      `officer:${row.key_id}`,
      { keyId: row.key_id, name, addedBy: row.added_by, registration: REGISTRATION_VERSION },
      signer
    )
    writeCheckpoint(db, signer)
  }).immediate()
  return { keyId: row.key_id, name, createdAt: row.created_at, addedBy: row.added_by, addedByName: signer.name, fingerprint: fingerprint(row.key_id) }
}

/** The key id in groups of four, as printed for the officer to keep. */
export function fingerprint(keyId: string): string {
  return keyId.match(/.{1,4}/g)!.join(' ')
}
