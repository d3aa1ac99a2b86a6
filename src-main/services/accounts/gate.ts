/**
 * The service's gate: who is calling (a credential or a sign-in session), and may they call this method.
 *
 * - `authenticate(secret, peer)`: a credential (`qa1_...`) or a session token (`qas_...`) -> the account's principal, or
 *   one sentence with code `unauthorized` (or `throttled` after repeated failures from the same address). A revoked,
 *   expired or untrusted account is refused at every call, sessions included.
 * - `signIn(credential, peer)`: a session for the browser (kept in memory only: a restart signs everyone out), ended by
 *   `signOut`, by `sessionIdleMs` without use, after `sessionMaxMs`, at the account's expiry, or by its revocation.
 * - `authorize(principal, method)`: the role table (roles.ts).
 *
 * The workbench has no gate: its caller is `LOCAL_PRINCIPAL`, who holds every role.
 */
import type Database from 'better-sqlite3'
import type { EventName } from '../../contract'
import type { Principal } from '../../contract/accounts'
import { recordAudit } from '../chain/ledger-chain'
import { type AccountRow, accountProblem, accountRow } from './account-store'
import { credentialAccountId, isSessionToken, issueSessionToken, matchesHash, secretHash } from './credentials'
import { type Authorization, authorize, mayReadJob, ownRecordsOnly } from './roles'
import { DEFAULT_THROTTLE, FailureThrottle, type ThrottlePolicy } from './throttle'

type Db = Database.Database

export type AuthFailure = { ok: false; error: { message: string; code: 'unauthorized' | 'throttled' }; retryAfterMs?: number }
/** `expiresAt`: for a credential, when it expires; for a session, when the session ends at the latest. */
export type AuthResult = { ok: true; principal: Principal; expiresAt: string } | AuthFailure
export type SignInResult = { ok: true; session: string; principal: Principal; expiresAt: string } | AuthFailure

export interface GateOptions {
  throttle?: ThrottlePolicy
  /** A session ends after this long without a call (default 30 minutes). */
  sessionIdleMs?: number
  /** ... and this long after sign-in whatever happens (default 12 hours). */
  sessionMaxMs?: number
  maxSessions?: number
  now?: () => number
}

interface Session {
  accountId: number
  startedMs: number
  lastUsedMs: number
}

const NOT_VALID = 'The credential is not valid: check the credential file, or ask the privacy officer for an account'

export class AccountGate {
  private readonly throttle: FailureThrottle
  private readonly policy: ThrottlePolicy
  private readonly sessions = new Map<string, Session>()
  private readonly idleMs: number
  private readonly maxMs: number
  private readonly maxSessions: number
  private readonly now: () => number

  constructor(
    private readonly db: Db,
    options: GateOptions = {},
    /** Who started a job (JobRegistry.ownerOf), for the event stream's filter. */
    private readonly jobOwner: (jobId: string) => number | null | undefined = () => undefined
  ) {
    this.policy = options.throttle ?? DEFAULT_THROTTLE
    this.throttle = new FailureThrottle(this.policy)
    this.idleMs = options.sessionIdleMs ?? 30 * 60_000
    this.maxMs = options.sessionMaxMs ?? 12 * 3_600_000
    this.maxSessions = options.maxSessions ?? 10_000
    this.now = options.now ?? Date.now
  }

  authorize(principal: Principal, method: Parameters<typeof authorize>[1]): Authorization {
    return authorize(principal, method)
  }

  authenticate(secret: unknown, peer: string): AuthResult {
    const nowMs = this.now()
    const peerKey = `peer:${peer}`
    // A locked address still signs in a valid credential or live session (each a 256-bit random secret: the lock is
    // against floods of guesses, and must not let one party behind an address lock out every other); every failure
    // while locked is refused as throttled and lengthens the lock.
    const wait = this.throttle.waitMs(peerKey, nowMs)
    const fail = (message: string): AuthFailure => {
      this.throttle.failed(peerKey, nowMs)
      if (this.throttle.failures(peerKey) === this.policy.free + 1) this.recordLockout(peer)
      if (wait > 0) {
        return {
          ok: false,
          error: { message: `Too many failed sign-ins from this address; try again in ${Math.ceil(wait / 1000)} s`, code: 'throttled' },
          retryAfterMs: wait
        }
      }
      return { ok: false, error: { message, code: 'unauthorized' } }
    }
    if (typeof secret !== 'string' || secret === '') return fail('Sign in first: this service needs an account credential')
    let row: AccountRow | null
    /** A session's end (the session's own limit, or the account's expiry if sooner): what GET /api/session reports, as sign-in did. */
    let sessionEndsMs: number | null = null
    if (isSessionToken(secret)) {
      const key = secretHash(secret)
      const s = this.sessions.get(key)
      if (!s || nowMs - s.lastUsedMs > this.idleMs || nowMs - s.startedMs > this.maxMs) {
        if (s) this.sessions.delete(key)
        return fail('The session has ended; sign in again')
      }
      row = accountRow(this.db, s.accountId)
      if (row) s.lastUsedMs = nowMs
      sessionEndsMs = s.startedMs + this.maxMs
    } else {
      const id = credentialAccountId(secret)
      row = id === null ? null : accountRow(this.db, id)
      if (!row || !matchesHash(secret, row.secret_hash)) return fail(NOT_VALID)
    }
    if (!row) return fail(NOT_VALID)
    const problem = accountProblem(this.db, row, nowMs)
    if (problem === 'revoked') return fail(`Account "${row.name}" was revoked; ask the privacy officer`)
    if (problem === 'expired')
      return fail(`The credential of account "${row.name}" expired on ${row.expires_at.slice(0, 10)}; ask the privacy officer for a new one`)
    if (problem === 'unsigned') return fail(`Account "${row.name}" is not one a registered privacy officer signed; ask the privacy officer`)
    if (wait === 0) this.throttle.succeeded(peerKey)
    const expiresAt = sessionEndsMs === null ? row.expires_at : new Date(Math.min(sessionEndsMs, Date.parse(row.expires_at))).toISOString()
    return { ok: true, principal: principalOf(row), expiresAt }
  }

  /**
   * Whether an event may go to `principal`'s stream: a job's events go to the account that started it (and to the
   * custodian, and in the workbench to the local user); an alarm's events go to the analyst it was signed for and to
   * officers and the custodian; other events of no job the registry knows go to nobody's account.
   */
  mayReceive(principal: Principal, name: EventName, payload: unknown): boolean {
    if (name === 'alarm:evaluated' || name === 'alarm:fired') {
      const alarmId = (payload as { alarmId?: unknown } | null)?.alarmId
      const only = ownRecordsOnly(principal)
      if (only === null) return true
      return typeof alarmId === 'number' && this.alarmOwner(alarmId) === only
    }
    const jobId = (payload as { jobId?: unknown } | null)?.jobId
    if (typeof jobId !== 'string') return principal.accountId === null
    return mayReadJob(principal, this.jobOwner(jobId))
  }

  /** Whose an alarm is: the analyst account it was signed for (alarms.account_id), or null for the workbench's or an officer's. */
  private alarmOwner(alarmId: number): number | null | undefined {
    const row = this.db.prepare('SELECT account_id FROM alarms WHERE id = ?').get(alarmId) as { account_id: number | null } | undefined
    return row?.account_id
  }

  signIn(credential: unknown, peer: string): SignInResult {
    if (typeof credential === 'string' && isSessionToken(credential)) {
      return { ok: false, error: { message: 'Sign in with the account credential, not a session', code: 'unauthorized' } }
    }
    const auth = this.authenticate(credential, peer)
    if (!auth.ok) return auth
    const nowMs = this.now()
    for (const [k, s] of this.sessions) if (nowMs - s.lastUsedMs > this.idleMs || nowMs - s.startedMs > this.maxMs) this.sessions.delete(k)
    while (this.sessions.size >= this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string)
    const { token, hash } = issueSessionToken()
    this.sessions.set(hash, { accountId: auth.principal.accountId!, startedMs: nowMs, lastUsedMs: nowMs })
    const ends = Math.min(nowMs + this.maxMs, Date.parse(auth.expiresAt))
    return { ok: true, session: token, principal: auth.principal, expiresAt: new Date(ends).toISOString() }
  }

  signOut(session: unknown): void {
    if (typeof session === 'string' && isSessionToken(session)) this.sessions.delete(secretHash(session))
  }

  private readonly endedListeners = new Set<(accountId: number) => void>()

  /** Calls `listener` when an account's access ends (its revocation): the doors end its open event streams. */
  onAccountEnded(listener: (accountId: number) => void): () => void {
    this.endedListeners.add(listener)
    return () => this.endedListeners.delete(listener)
  }

  /** Sessions of one account end now (its revocation), and so does everything a door holds open for it. */
  endSessionsOf(accountId: number): void {
    for (const [k, s] of this.sessions) if (s.accountId === accountId) this.sessions.delete(k)
    for (const f of this.endedListeners) f(accountId)
  }

  private recordLockout(peer: string): void {
    try {
      recordAudit(this.db, 'account/sign-in-throttled', 'service', null, { peer: peer.slice(0, 64), failures: this.policy.free + 1 })
    } catch (e) {
      process.stderr.write(`could not record a throttled sign-in: ${(e as Error)?.message ?? String(e)}\n`)
    }
  }
}

export function principalOf(row: Pick<AccountRow, 'id' | 'name' | 'role'>): Principal {
  return { accountId: row.id, name: row.name, roles: [row.role] }
}
