/**
 * Account credentials: a per-account secret issued once and stored only as a hash.
 *
 * Why this and not passwords or client certificates: the secret is 256 random bits made by the service, so it cannot be
 * guessed, reused from another site or shared between accounts, and SHA-256 of it is enough at rest (a memory-hard KDF
 * protects low-entropy passwords; here it would only make every request slow). Client certificates would need a CA run
 * by the custodian and a certificate store in every browser; a credential file works the same from the CLI, the desktop
 * app and the browser's sign-in screen.
 *
 * Format: `qa1_<account id>_<43 base64url characters>`. The id only says which row to compare with; the comparison is
 * of hashes, in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

const CREDENTIAL = /^qa1_([1-9][0-9]{0,11})_([A-Za-z0-9_-]{43})$/
const SESSION = /^qas_([A-Za-z0-9_-]{43})$/

/** SHA-256 (hex) of a credential or session token, under a domain tag. */
export function secretHash(secret: string): string {
  return createHash('sha256').update('quiet-alarm/credential/v1\n').update(secret).digest('hex')
}

export function issueCredential(accountId: number): { credential: string; hash: string } {
  const credential = `qa1_${accountId}_${randomBytes(32).toString('base64url')}`
  return { credential, hash: secretHash(credential) }
}

export function issueSessionToken(): { token: string; hash: string } {
  const token = `qas_${randomBytes(32).toString('base64url')}`
  return { token, hash: secretHash(token) }
}

/** The account id a well-formed credential names, or null (anything else: not a credential). */
export function credentialAccountId(text: string): number | null {
  const m = CREDENTIAL.exec(text)
  return m ? Number(m[1]) : null
}

export function isSessionToken(text: string): boolean {
  return SESSION.test(text)
}

/** Whether `secret` hashes to `storedHash` (constant time in the secret). */
export function matchesHash(secret: string, storedHash: string): boolean {
  const a = Buffer.from(secretHash(secret), 'hex')
  const b = Buffer.from(storedHash, 'hex')
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * A credential file's content: its first non-empty line, trimmed. The file may hold the JSON printed by
 * `account add --json` too (its "credential" field), so that the holder can keep what they were given as it is.
 */
export function credentialFromFileText(text: string): string | null {
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) {
    try {
      const c = (JSON.parse(trimmed) as { credential?: unknown }).credential
      return typeof c === 'string' && credentialAccountId(c) !== null ? c : null
    } catch {
      return null
    }
  }
  const line = trimmed.split(/\r?\n/)[0]?.trim() ?? ''
  return credentialAccountId(line) !== null ? line : null
}
