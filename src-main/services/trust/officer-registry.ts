/**
 * Which registered officers are trusted, by one rule that every use (unlocking a key, the acts in force, links, whom
 * sealed values are sealed to) and `ledger verify` apply:
 * - the key id is the hash of the officer's two public keys;
 * - exactly one officer registered itself (the first); every other one was added, with a valid signature over its
 *   registration, by an officer trusted this way (with more than one self-registration nobody is, since which one came
 *   first cannot be told from the file);
 * - the registration signature covers the wrapped private keys and their KDF parameters (registration v2). A
 *   registration signed before that (v1) is accepted only when its signed audit event says so (v2 registrations record
 *   `registration: 2` in it), so a v2 registration cannot pose as a v1 one to have its wrapped keys swapped;
 * - the KDF parameters are within bounds (officer-crypto.ts `kdfProblem`): a file asking for N = 2^30 is refused at
 *   unlock and reported, whatever the version.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { statement } from '../store/statements'
import { type AuditRow, auditHash, auditSigningText } from '../chain/audit-chain'
import { canonicalJson } from '../chain/canonical'
import { type WrappedKeys, kdfProblem, keyIdOf, verifyText } from './officer-crypto'

type Db = Database.Database

export interface OfficerRow {
  key_id: string
  name: string
  created_at: string
  sign_public: string
  seal_public: string
  wrapped: string
  added_by: string
  signature: string
}

/** The registration version new officers are signed with. */
export const REGISTRATION_VERSION = 2

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')

/** What the adding officer signs: who the officer is and, from v2 on, the wrapped private keys with their KDF parameters. */
export function registrationText(
  r: Pick<OfficerRow, 'key_id' | 'name' | 'created_at' | 'sign_public' | 'seal_public' | 'added_by' | 'wrapped'>,
  version: 1 | 2 = REGISTRATION_VERSION
): string {
  const who = { keyId: r.key_id, name: r.name, createdAt: r.created_at, signPublic: r.sign_public, sealPublic: r.seal_public, addedBy: r.added_by }
  if (version === 1) return `quiet-alarm/officer/v1\n${canonicalJson(who)}`
  return `quiet-alarm/officer/v2\n${canonicalJson({ ...who, wrapped: sha256(r.wrapped) })}`
}

export function officerRows(db: Db): OfficerRow[] {
  return statement(db, 'SELECT * FROM officers ORDER BY created_at, key_id').all() as OfficerRow[]
}

/** The audit events that recorded registrations, by the registered key id (the last one if several). */
export function registrationEvents(db: Db): Map<string, AuditRow> {
  const out = new Map<string, AuditRow>()
  for (const a of statement(db, `SELECT * FROM audit_events WHERE kind = 'officer/registered' ORDER BY id`).all() as AuditRow[]) {
    if (a.subject?.startsWith('officer:')) out.set(a.subject.slice('officer:'.length), a)
  }
  return out
}

export interface OfficerRegistry {
  /** Every row of the registry, in creation order. */
  all: OfficerRow[]
  /** The rows trusted by the rule above. */
  verified: OfficerRow[]
  byId: Map<string, OfficerRow>
  /** What is wrong with the registry, one clause each (what `ledger verify` reports). */
  problems: string[]
}

/** The version an officer's registration was signed with, as its own signed audit event says (1 when it says nothing). */
function declaredVersion(event: AuditRow | undefined, signer: OfficerRow | undefined): 1 | 2 | null {
  if (!event || !signer || event.hash === null) return null
  if (auditHash(event.prev_hash ?? '', event) !== event.hash) return null
  if (!event.signer || event.signer !== signer.key_id || !event.signature) return null
  if (!verifyText(signer.sign_public, auditSigningText(event.id, event.hash, event.signer), event.signature)) return null
  try {
    return (JSON.parse(event.detail) as { registration?: unknown }).registration === 2 ? 2 : 1
  } catch {
    return null
  }
}

/** Whether `adder` signed `o`'s registration: v2 always; v1 only when the registration's signed audit event predates v2. */
function registrationSigned(o: OfficerRow, adder: OfficerRow, events: Map<string, AuditRow>): boolean {
  if (verifyText(adder.sign_public, registrationText(o, 2), o.signature)) return true
  return declaredVersion(events.get(o.key_id), adder) === 1 && verifyText(adder.sign_public, registrationText(o, 1), o.signature)
}

function keyIdMatches(o: OfficerRow): boolean {
  try {
    return keyIdOf(o.sign_public, o.seal_public) === o.key_id
  } catch {
    return false
  }
}

/** The registry and which of its officers are trusted. `events`: the registration audit events, when the caller has them. */
export function officerRegistry(db: Db, events: Map<string, AuditRow> = registrationEvents(db)): OfficerRegistry {
  const all = officerRows(db)
  const byId = new Map(all.map((o) => [o.key_id, o]))
  const problems: string[] = []
  const selfRegistered = all.filter((o) => o.added_by === o.key_id)
  const candidates = all.filter(keyIdMatches)
  const ok = new Map<string, OfficerRow>()
  if (selfRegistered.length === 1) {
    let grew = true
    while (grew) {
      grew = false
      for (const o of candidates) {
        if (ok.has(o.key_id)) continue
        const adder = o.added_by === o.key_id ? o : ok.get(o.added_by)
        if (adder && registrationSigned(o, adder, events)) {
          ok.set(o.key_id, o)
          grew = true
        }
      }
    }
  }
  for (const o of all) {
    if (!keyIdMatches(o)) problems.push(`officer "${o.name}" has a key id that does not match its keys`)
    else if (!ok.has(o.key_id)) {
      const adder = byId.get(o.added_by)
      if (!adder) problems.push(`officer "${o.name}" was added by a key that is not a registered officer`)
      else if (selfRegistered.length <= 1)
        problems.push(
          `the registration of officer "${o.name}" does not carry a valid officer signature (its keys, wrapped keys or KDF parameters were changed)`
        )
    }
    let wrapped: WrappedKeys | null
    try {
      wrapped = JSON.parse(o.wrapped) as WrappedKeys
    } catch {
      wrapped = null
    }
    const kdf = wrapped === null ? 'they cannot be read' : kdfProblem(wrapped)
    if (kdf !== null) problems.push(`the wrapped keys of officer "${o.name}" are refused: ${kdf}`)
  }
  if (selfRegistered.length > 1)
    problems.push('more than one officer registered itself (only the first officer may; later ones are added by a registered officer)')
  return { all, verified: all.filter((o) => ok.has(o.key_id)), byId, problems }
}

/** The officers trusted by the rule above (every use-time check trusts these only). */
export function verifiedOfficerRows(db: Db): OfficerRow[] {
  return officerRegistry(db).verified
}
