/**
 * Accounts of the service: registration and revocation (officer acts, signed with the officer's key and recorded in the
 * audit chain), listing, and the check made at every sign-in and call: an account is in force when its registration
 * carries a valid signature of a trusted officer, it has not expired, and neither its row nor the audit chain says it was
 * revoked. The credential itself is never stored (credentials.ts).
 */
import type Database from 'better-sqlite3'
import type { AccountInfo, AccountStatus, Role } from '../../contract/accounts'
import { ACCOUNT_NAME_PATTERN, DEFAULT_ACCOUNT_DAYS, MAX_ACCOUNT_DAYS } from '../../contract/schemas/requests'
import { canonicalJson } from '../chain/canonical'
import { recordAudit } from '../chain/ledger-chain'
import { nowIso } from '../platform/clock'
import { UserError } from '../platform/errors'
import { refuseUnlessVerifies, writeCheckpoint } from '../trust/checkpoints'
import { verifyText } from '../trust/officer-crypto'
import { type OfficerCredentials, unlockOfficer } from '../trust/officers'
import { verifiedOfficerRows } from '../trust/officer-registry'
import { issueCredential } from './credentials'

type Db = Database.Database

export interface AccountRow {
  id: number
  name: string
  role: Role
  created_at: string
  expires_at: string
  secret_hash: string
  signer: string
  signature: string
  revoked_at: string | null
  revoked_by: string | null
  revoke_reason: string | null
  revoke_signature: string | null
}

const DAY_MS = 86_400_000

export function registrationText(r: Pick<AccountRow, 'id' | 'name' | 'role' | 'created_at' | 'expires_at' | 'secret_hash' | 'signer'>): string {
  return `quiet-alarm/account/v1\n${canonicalJson({ id: r.id, name: r.name, role: r.role, createdAt: r.created_at, expiresAt: r.expires_at, secretHash: r.secret_hash, signer: r.signer })}`
}

export function revocationText(r: { id: number; name: string; revokedAt: string; reason: string; signer: string }): string {
  return `quiet-alarm/account-revocation/v1\n${canonicalJson({ id: r.id, name: r.name, revokedAt: r.revokedAt, reason: r.reason, signer: r.signer })}`
}

function hasAccountsTable(db: Db): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'accounts'`).get() !== undefined
}

export function accountRow(db: Db, id: number): AccountRow | null {
  return (db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined) ?? null
}

function accountByName(db: Db, name: string): AccountRow | null {
  return (db.prepare('SELECT * FROM accounts WHERE name = ?').get(name) as AccountRow | undefined) ?? null
}

/** Why an account cannot act now, or null when it is in force. */
export function accountProblem(db: Db, row: AccountRow, nowMs = Date.now()): 'revoked' | 'expired' | 'unsigned' | null {
  if (row.revoked_at !== null) return 'revoked'
  // The audit chain remembers a revocation even if the row's revocation columns were cleared around the app.
  const revokedInAudit = db.prepare(`SELECT 1 FROM audit_events WHERE kind = 'account/revoked' AND subject = ? LIMIT 1`).get(`account:${row.id}`)
  if (revokedInAudit) return 'revoked'
  const signer = verifiedOfficerRows(db).find((o) => o.key_id === row.signer)
  if (!signer || !verifyText(signer.sign_public, registrationText(row), row.signature)) return 'unsigned'
  if (!(Date.parse(row.expires_at) > nowMs)) return 'expired'
  return null
}

function statusOf(db: Db, row: AccountRow, nowMs: number): AccountStatus {
  const problem = accountProblem(db, row, nowMs)
  return problem === null ? 'active' : problem === 'unsigned' ? 'untrusted' : problem
}

function toInfo(db: Db, row: AccountRow, nowMs = Date.now()): AccountInfo {
  const officers = new Map(verifiedOfficerRows(db).map((o) => [o.key_id, o.name]))
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    createdAt: row.created_at,
    createdBy: officers.get(row.signer) ?? '(an officer that is not registered)',
    expiresAt: row.expires_at,
    status: statusOf(db, row, nowMs),
    revokedAt: row.revoked_at,
    revokedBy: row.revoked_by === null ? null : (officers.get(row.revoked_by) ?? row.revoked_by),
    revokeReason: row.revoke_reason
  }
}

export function listAccounts(db: Db): AccountInfo[] {
  if (!hasAccountsTable(db)) return []
  const now = Date.now()
  return (db.prepare('SELECT * FROM accounts ORDER BY id').all() as AccountRow[]).map((r) => toInfo(db, r, now))
}

export function accountInfo(db: Db, id: number): AccountInfo | null {
  const row = accountRow(db, id)
  return row ? toInfo(db, row) : null
}

export interface AddAccountInput {
  name: string
  role: Role
  /** Days the credential works (default 90, at most 730). */
  days?: number
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || !ACCOUNT_NAME_PATTERN.test(name)) {
    throw new UserError(
      'An account name is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit; nothing was written',
      'bad-input'
    )
  }
  return name
}

/** Add an account (an officer act): the credential is returned once and only its hash is kept. */
export function addAccount(db: Db, input: AddAccountInput, officer: OfficerCredentials): { account: AccountInfo; credential: string } {
  const name = checkName(input.name)
  if (input.role !== 'custodian' && input.role !== 'officer' && input.role !== 'analyst') {
    throw new UserError(`The role must be custodian, officer or analyst (got "${String(input.role).slice(0, 40)}"); nothing was written`, 'bad-input')
  }
  const days = input.days ?? DEFAULT_ACCOUNT_DAYS
  if (!Number.isInteger(days) || days < 1 || days > MAX_ACCOUNT_DAYS) {
    throw new UserError(
      `The validity must be a whole number of days from 1 to ${MAX_ACCOUNT_DAYS} (got ${String(days)}); nothing was written`,
      'bad-input'
    )
  }
  if (accountByName(db, name))
    throw new UserError(`An account named "${name}" exists already (names are never reused); nothing was written`, 'conflict')
  const key = unlockOfficer(db, officer)
  const issued = db
    .transaction(() => {
      refuseUnlessVerifies(db)
      if (accountByName(db, name)) throw new UserError(`An account named "${name}" exists already; nothing was written`, 'conflict')
      const id = ((db.prepare('SELECT max(id) AS id FROM accounts').get() as { id: number | null }).id ?? 0) + 1
      const { credential, hash } = issueCredential(id)
      const createdAt = nowIso()
      const row: AccountRow = {
        id,
        name,
        role: input.role,
        created_at: createdAt,
        expires_at: new Date(Date.parse(createdAt) + days * DAY_MS).toISOString(),
        secret_hash: hash,
        signer: key.keyId,
        signature: '',
        revoked_at: null,
        revoked_by: null,
        revoke_reason: null,
        revoke_signature: null
      }
      row.signature = key.sign(registrationText(row))
      db.prepare(
        `INSERT INTO accounts (id, name, role, created_at, expires_at, secret_hash, signer, signature)
         VALUES (@id, @name, @role, @created_at, @expires_at, @secret_hash, @signer, @signature)`
      ).run(row)
      recordAudit(db, 'account/added', key.name, `account:${id}`, { id, name, role: input.role, expiresAt: row.expires_at }, key)
      writeCheckpoint(db, key)
      return { id, credential }
    })
    .immediate()
  return { account: accountInfo(db, issued.id)!, credential: issued.credential }
}

/** Revoke an account (an officer act): its credential and sessions stop working at the next call. */
export function revokeAccount(db: Db, input: { name: string; reason: string }, officer: OfficerCredentials): AccountInfo {
  const name = checkName(input.name)
  const reason = typeof input.reason === 'string' ? input.reason.trim() : ''
  if (reason.length < 3) throw new UserError('A revocation needs a reason (a few words); it is recorded; nothing was written', 'bad-input')
  const found = accountByName(db, name)
  if (!found) throw new UserError(`There is no account named "${name}"; list them with "quiet-alarm account list"`, 'not-found')
  if (found.revoked_at !== null) throw new UserError(`Account "${name}" was revoked already (${found.revoked_at}); nothing was written`, 'conflict')
  const key = unlockOfficer(db, officer)
  db.transaction(() => {
    refuseUnlessVerifies(db)
    const revokedAt = nowIso()
    const signature = key.sign(revocationText({ id: found.id, name, revokedAt, reason, signer: key.keyId }))
    const changed = db
      .prepare('UPDATE accounts SET revoked_at = ?, revoked_by = ?, revoke_reason = ?, revoke_signature = ? WHERE id = ? AND revoked_at IS NULL')
      .run(revokedAt, key.keyId, reason, signature, found.id).changes
    if (changed !== 1) throw new UserError(`Account "${name}" was revoked meanwhile; nothing was written`, 'conflict')
    recordAudit(db, 'account/revoked', key.name, `account:${found.id}`, { id: found.id, name, reason }, key)
    writeCheckpoint(db, key)
  }).immediate()
  return accountInfo(db, found.id)!
}
