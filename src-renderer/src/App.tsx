import { useEffect, useState } from 'react'
import { ConnectionPanel } from './components/ConnectionPanel'
import { SignedInAs } from './components/SignedInAs'
import { StatusPanel } from './components/StatusPanel'
import { routeFromHash, sectionsFor, type Route } from './sections'
import { useWho } from './api/who'
import { screens } from './screens'

export function App() {
  const [route, setRoute] = useState<Route>(() => routeFromHash(window.location.hash))
  const sections = sectionsFor(useWho().roles)
  useEffect(() => {
    const onHash = () => setRoute(routeFromHash(window.location.hash))
    window.addEventListener('hashchange', onHash)
    return () => window.removeEventListener('hashchange', onHash)
  }, [])
  const current = sections.find((s) => s.id === route.section) ?? sections[0]
  const Screen = screens[current.id]
  useEffect(() => {
    document.title = `${current.title} · Quiet Alarm`
  }, [current.title])
  return (
    <div className="shell">
      {/* The address holds the route, so the link moves the focus itself instead of following "#content". */}
      <a
        className="skip-link"
        href="#content"
        onClick={(e) => {
          e.preventDefault()
          const main = document.getElementById('content')
          main?.focus()
          main?.scrollIntoView({ block: 'start' })
        }}
      >
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand" aria-label="Quiet Alarm">
          <span className="brand-mark" aria-hidden="true">
            ◉
          </span>{' '}
          Quiet Alarm
        </div>
        <nav aria-label="Sections">
          <ul>
            {sections.map((s) => (
              <li key={s.id}>
                <a href={`#/${s.id}`} aria-current={s.id === route.section ? 'page' : undefined} data-testid={`nav-${s.id}`}>
                  {s.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <ConnectionPanel />
        <SignedInAs />
        <StatusPanel />
      </aside>
      <main id="content" tabIndex={-1} className="content" aria-labelledby="section-title">
        <header className="content-head">
          <h1 id="section-title">{current.title}</h1>
          <p className="blurb">{current.blurb}</p>
        </header>
        <Screen param={route.param} />
      </main>
    </div>
  )
}
