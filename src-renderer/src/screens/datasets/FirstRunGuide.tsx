/**
 * "Getting started": the first run's steps for the privacy officer and the analyst, each ticked when done, the next one
 * marked. Shown until every step is done (or hidden for this browser).
 */
import { useState } from 'react'
import { useChanges } from '../../api/changes'
import { useQuery } from '../../api/hooks'
import { Loading } from '../../components/Loading'
import { type FirstRunStep, firstRunSteps, nextStep } from './firstRunDefinition'

const HIDDEN_KEY = 'quiet-alarm.first-run.hidden'

/** The first run's steps from what the workspace holds now ('loading' until every fact is read; 'unknown' if one failed). */
export function useFirstRun(version: number): { steps: FirstRunStep[]; next: FirstRunStep | null } | 'loading' | 'unknown' {
  const officersVersion = useChanges('officers')
  const officers = useQuery('officer/list', {}, [officersVersion])
  const datasets = useQuery('datasets/list', {}, [version])
  const summary = useQuery('ledger/summary', { cellLimit: 1 }, [version])
  const queries = useQuery('queries/list', {}, [version])
  const releases = useQuery('releases/list', {}, [version])
  const all = [officers, datasets, summary, queries, releases]
  if (all.some((q) => q.data === null)) return all.some((q) => q.error) ? 'unknown' : 'loading'
  const steps = firstRunSteps({
    officers: officers.data!.length,
    datasets: datasets.data!.length,
    budgeted: summary.data!.datasets.filter((d) => d.exists && d.budgetPerUnitSource !== 'none').length,
    queries: queries.data!.length,
    releases: releases.data!.length
  })
  return { steps, next: nextStep(steps) }
}

export function FirstRunGuide(props: { version: number }) {
  const run = useFirstRun(props.version)
  const [hidden, setHidden] = useState(() => sessionStorage.getItem(HIDDEN_KEY) === '1')
  if (hidden || run === 'unknown') return null
  if (run === 'loading') {
    return (
      <section className="panel" aria-label="Getting started" data-testid="first-run-loading">
        <Loading what="what this workspace holds" />
      </section>
    )
  }
  const { steps, next } = run
  if (next === null) return null
  return (
    <section className="panel first-run" aria-labelledby="first-run-title" data-testid="first-run">
      <div className="panel-head">
        <h2 id="first-run-title">Getting started</h2>
        <button
          type="button"
          className="secondary small"
          onClick={() => {
            sessionStorage.setItem(HIDDEN_KEY, '1')
            setHidden(true)
          }}
        >
          Hide
        </button>
      </div>
      <ol className="steps">
        {steps.map((s, i) => (
          <li key={s.id} className={s.done ? 'done' : s === next ? 'next' : undefined} data-testid={`first-run-${s.id}`} data-done={s.done}>
            <span className="step-mark" aria-hidden="true">
              {s.done ? '✓' : i + 1}
            </span>
            <span>
              {s === next ? (
                <a href={s.href}>
                  <strong>{s.title}</strong>
                </a>
              ) : (
                <strong>{s.title}</strong>
              )}{' '}
              <span className="hint">
                ({s.who}
                {s.done ? ', done' : s === next ? ', next' : ''}) {s.detail}
              </span>
            </span>
          </li>
        ))}
      </ol>
    </section>
  )
}
