import { useEffect, useState } from 'react'
import { StatusPanel } from './components/StatusPanel'
import { sectionFromHash, sections, type SectionId } from './sections'
import { screens } from './screens'

export function App() {
  const [section, setSection] = useState<SectionId>(() => sectionFromHash(window.location.hash))
  useEffect(() => {
    const onHash = () => setSection(sectionFromHash(window.location.hash))
    window.addEventListener('hashchange', onHash)
    return () => window.removeEventListener('hashchange', onHash)
  }, [])
  const current = sections.find((s) => s.id === section)!
  const Screen = screens[section]
  return (
    <div className="shell">
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
                <a href={`#/${s.id}`} aria-current={s.id === section ? 'page' : undefined} data-testid={`nav-${s.id}`}>
                  {s.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <StatusPanel />
      </aside>
      <main className="content" aria-labelledby="section-title">
        <header className="content-head">
          <h1 id="section-title">{current.title}</h1>
          <p className="blurb">{current.blurb}</p>
        </header>
        <Screen />
      </main>
    </div>
  )
}
