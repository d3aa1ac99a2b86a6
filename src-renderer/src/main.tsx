import { StrictMode, useEffect, useMemo, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { type Client, createClient, headlessToken, httpTransport, ipcTransport } from './api/client'
import { ClientContext } from './api/hooks'
import { getSession, signOut, type SessionState } from './api/session'
import { WORKBENCH, type Who, WhoContext } from './api/who'
import { SignIn } from './SignIn'
import type { Principal } from '../../src-main/contract'
import './styles.css'

const root = createRoot(document.getElementById('root')!)

/** The app with its client, told who uses it (`accounts/whoami`: the workbench's user, or the account the desktop app connected as). */
function Connected(props: { client: Client; who?: Who }) {
  const [who, setWho] = useState<Who>(props.who ?? WORKBENCH)
  useEffect(() => {
    if (props.who) return
    let live = true
    props.client.call('accounts/whoami', {}).then(
      (w) => live && setWho({ kind: w.kind, name: w.name, roles: w.roles, expiresAt: w.expiresAt, expiry: w.expiresAt ? 'credential' : null }),
      () => undefined
    )
    return () => {
      live = false
    }
  }, [props.client, props.who])
  return (
    <ClientContext.Provider value={props.client}>
      <WhoContext.Provider value={props.who ?? who}>
        <App />
      </WhoContext.Provider>
    </ClientContext.Provider>
  )
}

/** A service in the browser: the sign-in screen until a session exists, then the app as that account. */
function ServiceRoot(props: { initial: SessionState }) {
  const [session, setSession] = useState<{ principal: Principal; expiresAt: string | null } | null>(
    props.initial.principal ? { principal: props.initial.principal, expiresAt: props.initial.expiresAt } : null
  )
  const [notice, setNotice] = useState<string | null>(null)
  const client = useMemo(
    () =>
      session
        ? createClient(
            httpTransport(null, '', (message) => {
              setNotice(message)
              setSession(null)
            })
          )
        : null,
    [session]
  )
  if (!session || !client) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(principal, expiresAt) => {
          setNotice(null)
          setSession({ principal, expiresAt })
        }}
      />
    )
  }
  const who: Who = {
    kind: 'account',
    name: session.principal.name,
    roles: [...session.principal.roles],
    expiresAt: session.expiresAt,
    expiry: session.expiresAt ? 'session' : null,
    signOut: () => {
      void signOut().then(() => {
        setNotice('You signed out.')
        setSession(null)
      })
    }
  }
  return <Connected client={client} who={who} />
}

function locked(text: React.ReactNode) {
  root.render(
    <main className="locked">
      <h1>Quiet Alarm</h1>
      <p>{text}</p>
    </main>
  )
}

async function boot() {
  if (window.quietAlarm) {
    root.render(
      <StrictMode>
        <Connected client={createClient(ipcTransport(window.quietAlarm))} />
      </StrictMode>
    )
    return
  }
  const token = headlessToken()
  if (token) {
    root.render(
      <StrictMode>
        <Connected client={createClient(httpTransport(token))} />
      </StrictMode>
    )
    return
  }
  const session = await getSession()
  if (session.ok && session.value.deployment === 'service') {
    root.render(
      <StrictMode>
        <ServiceRoot initial={session.value} />
      </StrictMode>
    )
    return
  }
  if (!session.ok && session.error.code === 'offline') return locked(session.error.message)
  locked(
    <>
      This page needs its session token. Open the full address printed by <code>npm run serve</code> (it ends with <code>#token=…</code>).
    </>
  )
}

void boot()
