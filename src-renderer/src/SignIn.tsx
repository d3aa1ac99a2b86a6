import { useState } from 'react'
import { credentialIn, signIn } from './api/session'
import type { Principal } from '../../src-main/contract'

/**
 * The service's sign-in screen: the account's credential (the file the privacy officer handed over, or its text pasted)
 * is sent once; the service answers with a session cookie the page never sees. Nothing is kept in the page.
 */
export function SignIn(props: { notice?: string | null; onSignedIn: (p: Principal, expiresAt: string) => void }) {
  const [text, setText] = useState('')
  const [fileName, setFileName] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const credential = credentialIn(text)

  async function readFile(file: File | undefined) {
    setError(null)
    if (!file) return
    if (file.size > 64 * 1024) {
      setError(`${file.name} is not a credential file (it is larger than 64 KiB).`)
      return
    }
    const content = await file.text()
    setFileName(file.name)
    setText(content)
    if (credentialIn(content) === null) setError(`${file.name} does not hold a Quiet Alarm credential (a line starting "qa1_").`)
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault()
    if (!credential) return
    setBusy(true)
    setError(null)
    const out = await signIn(credential)
    setBusy(false)
    if (out.ok) {
      setText('')
      props.onSignedIn(out.value.principal, out.value.expiresAt)
    } else setError(out.error.message)
  }

  return (
    <main className="locked sign-in" aria-labelledby="sign-in-title" data-testid="sign-in">
      <h1 id="sign-in-title">Sign in to Quiet Alarm</h1>
      <p>
        This is your organisation&apos;s Quiet Alarm service. Sign in with the credential the privacy officer gave you for your account: a file (or a
        line of text) starting with <code>qa1_</code>.
      </p>
      {props.notice && (
        <p className="notice" role="status" data-testid="sign-in-notice">
          {props.notice}
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} className="stack-tight">
        <label>
          Credential file
          <input type="file" data-testid="sign-in-file" onChange={(e) => void readFile(e.currentTarget.files?.[0])} />
        </label>
        <label>
          or paste the credential
          <input
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={fileName ? '' : text}
            placeholder={fileName ? `from ${fileName}` : 'qa1_…'}
            onChange={(e) => {
              setFileName(null)
              setError(null)
              setText(e.currentTarget.value)
            }}
            data-testid="sign-in-text"
          />
        </label>
        <div>
          <button type="submit" disabled={!credential || busy} data-testid="sign-in-submit">
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
        {error && (
          <p className="error" role="alert" data-testid="sign-in-error">
            {error}
          </p>
        )}
        <p className="hint">
          Lost the credential, or it expired? Ask the privacy officer for a new account; credentials cannot be recovered (only their fingerprint is
          kept).
        </p>
      </form>
    </main>
  )
}
