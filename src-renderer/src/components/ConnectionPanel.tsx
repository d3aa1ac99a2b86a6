import { useEffect, useState } from 'react'
import type { ConnectionInfo } from '../../../src-main/contract'
import { useClient } from '../api/hooks'
import { credentialIn } from '../api/session'

/**
 * The desktop app's sidebar: what it works on (a workspace file of this computer's user, or a service as an account),
 * and the ways to change it: open or create a workspace file, or connect to a service with a credential. Shown in the
 * desktop app only (the browser is already connected to what served it). After a change the window starts over, so
 * every screen reads from the new place.
 */
export function ConnectionPanel() {
  const client = useClient()
  const [info, setInfo] = useState<ConnectionInfo | null>(null)
  const [form, setForm] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    if (!window.quietAlarm) return
    let live = true
    client.call('app/connection', {}).then(
      (c) => live && setInfo(c),
      () => undefined
    )
    return () => {
      live = false
    }
  }, [client])
  if (!window.quietAlarm || info === null) return null

  async function open(create: boolean) {
    setError(null)
    setBusy(true)
    try {
      const r = await client.call('app/open-workspace', { create })
      if (r.changed) window.location.reload()
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section className="connection" aria-label="Connection" data-testid="connection">
      {info.kind === 'workspace' && info.workspace && (
        <p>
          Workspace <strong title={info.workspace.path}>{info.workspace.fileName}</strong>
        </p>
      )}
      {info.kind === 'service' && info.service && (
        <p>
          Service <strong>{info.service.origin.replace(/^https:\/\//, '')}</strong>
        </p>
      )}
      {info.kind === 'none' && <p className="error">{info.problem}</p>}
      <div className="connection-actions">
        <button type="button" className="button-link" disabled={busy} onClick={() => void open(false)} data-testid="connection-open">
          Open workspace…
        </button>
        <button type="button" className="button-link" disabled={busy} onClick={() => void open(true)} data-testid="connection-new">
          New workspace…
        </button>
        <button
          type="button"
          className="button-link"
          disabled={busy}
          onClick={() => setForm(!form)}
          aria-expanded={form}
          data-testid="connection-service"
        >
          Connect to a service…
        </button>
      </div>
      {form && <ConnectForm onError={setError} />}
      {error && (
        <p className="error" role="alert" data-testid="connection-error">
          {error}
        </p>
      )}
    </section>
  )
}

async function fileText(file: File | undefined, maxBytes: number): Promise<string | null> {
  if (!file || file.size > maxBytes) return null
  return file.text()
}

/** The service's address, the account's credential file (or its text) and, for a private authority, its certificate. */
function ConnectForm(props: { onError: (message: string | null) => void }) {
  const client = useClient()
  const [url, setUrl] = useState('https://')
  const [credential, setCredential] = useState('')
  const [ca, setCa] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const ready = url.startsWith('https://') && url.length > 'https://'.length && credentialIn(credential) !== null
  async function submit(e: React.FormEvent) {
    e.preventDefault()
    props.onError(null)
    setBusy(true)
    try {
      await client.call('app/connect-service', { url, credential, ca })
      window.location.reload()
    } catch (err) {
      props.onError((err as Error).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <form className="stack-tight" onSubmit={(e) => void submit(e)} data-testid="connect-form">
      <label>
        Service address
        <input type="url" value={url} onChange={(e) => setUrl(e.currentTarget.value)} placeholder="https://quiet-alarm.example.org:8443" />
      </label>
      <label>
        Credential file
        <input
          type="file"
          onChange={async (e) => {
            const t = await fileText(e.currentTarget.files?.[0], 64 * 1024)
            props.onError(
              t !== null && credentialIn(t) !== null ? null : 'That file does not hold a Quiet Alarm credential (a line starting "qa1_").'
            )
            setCredential(t ?? '')
          }}
        />
      </label>
      <label>
        Certificate of the service&apos;s authority (PEM; only for an authority this computer does not trust)
        <input type="file" onChange={async (e) => setCa((await fileText(e.currentTarget.files?.[0], 256 * 1024)) ?? undefined)} />
      </label>
      <div>
        <button type="submit" disabled={!ready || busy}>
          {busy ? 'Connecting…' : 'Connect'}
        </button>
      </div>
    </form>
  )
}
