import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { connect } from './api/client'
import { ClientContext } from './api/hooks'
import './styles.css'

const client = connect()
const root = createRoot(document.getElementById('root')!)
if (!client) {
  root.render(
    <main className="locked">
      <h1>Quiet Alarm</h1>
      <p>
        This page needs its session token. Open the full address printed by <code>npm run serve</code> (it ends with <code>#token=…</code>).
      </p>
    </main>
  )
} else {
  root.render(
    <StrictMode>
      <ClientContext.Provider value={client}>
        <App />
      </ClientContext.Provider>
    </StrictMode>
  )
}
