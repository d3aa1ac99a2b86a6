/**
 * The browser's sign-in to a service (the custodian's deployment): the account's credential is sent once to
 * `POST /api/session`, which answers with who is signed in and sets an HttpOnly session cookie that the page never reads;
 * every call, upload and the event stream then carry that cookie. `GET /api/session` says, before any call, whether this
 * is a service and who is signed in. The credential is never stored by the page.
 */
import type { CallOutcome, Principal } from '../../../src-main/contract'

export interface SessionState {
  deployment: 'workbench' | 'service'
  /** The account signed in by this browser's cookie, or null. */
  principal: Principal | null
  /** When the session ends at the latest. */
  expiresAt: string | null
}

async function outcome<T>(res: Response): Promise<CallOutcome<T>> {
  const body = (await res.json().catch(() => null)) as CallOutcome<T> | null
  return body ?? { ok: false, error: { message: `The service answered ${res.status} without a readable body`, code: 'bad-response' } }
}

const OFFLINE = {
  ok: false as const,
  error: { message: 'Cannot reach the Quiet Alarm service; check the address and your connection.', code: 'offline' as const }
}

export async function getSession(base = ''): Promise<CallOutcome<SessionState>> {
  try {
    return await outcome<SessionState>(await fetch(`${base}/api/session`, { method: 'GET', credentials: 'same-origin', cache: 'no-store' }))
  } catch {
    return OFFLINE
  }
}

export async function signIn(credential: string, base = ''): Promise<CallOutcome<{ principal: Principal; expiresAt: string }>> {
  try {
    return await outcome(
      await fetch(`${base}/api/session`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ credential: credential.trim() })
      })
    )
  } catch {
    return OFFLINE
  }
}

export async function signOut(base = ''): Promise<void> {
  await fetch(`${base}/api/session`, { method: 'DELETE', credentials: 'same-origin' }).catch(() => undefined)
}

/**
 * The credential in what the user chose or pasted: a line starting "qa1_", or the JSON printed by
 * `quiet-alarm account add --json` (its "credential" field). null when there is none.
 */
export function credentialIn(text: string): string | null {
  const t = text.trim()
  if (t.startsWith('{')) {
    try {
      const c = (JSON.parse(t) as { credential?: unknown }).credential
      return typeof c === 'string' && /^qa1_[1-9][0-9]{0,11}_[A-Za-z0-9_-]{43}$/.test(c) ? c : null
    } catch {
      return null
    }
  }
  const line = t.split(/\r?\n/)[0]?.trim() ?? ''
  return /^qa1_[1-9][0-9]{0,11}_[A-Za-z0-9_-]{43}$/.test(line) ? line : null
}
