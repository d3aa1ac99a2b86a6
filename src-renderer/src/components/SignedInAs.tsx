import { useWho } from '../api/who'
import { formatDate } from '../format'

const ROLE_WORDS = { custodian: 'custodian', officer: 'privacy officer', analyst: 'analyst' } as const

/**
 * The sidebar's "signed in as": which service account, with which role, and when it ends, saying which end it is (the
 * browser session's, the same after a reload, or the credential's); nothing in the workbench.
 */
export function SignedInAs() {
  const who = useWho()
  if (who.kind === 'workbench') return null
  return (
    <section className="signed-in" aria-label="Account" data-testid="signed-in">
      <p>
        Signed in as <strong data-testid="signed-in-name">{who.name}</strong>
        <br />
        <span className="hint" data-testid="signed-in-role">
          {who.roles.map((r) => ROLE_WORDS[r]).join(', ')}
          {who.expiresAt ? ` · ${who.expiry === 'session' ? 'session ends' : 'credential expires'} ${formatDate(who.expiresAt)}` : ''}
        </span>
      </p>
      {who.signOut && (
        <button type="button" className="button-link" onClick={who.signOut} data-testid="sign-out">
          Sign out
        </button>
      )}
    </section>
  )
}
