import { useEffect, useRef, useState } from 'react'
import type { QueryDefinition, QueryKind, ReleaseRecord, SavedQuery } from '../../../src-main/contract'
import { useAction, useClient, useQuery } from '../api/hooks'
import { ErrorText, SelectField, TextField } from '../components/Fields'
import { Loading } from '../components/Loading'
import { formatDate } from '../format'
import { href } from '../sections'
import { useMay } from '../api/who'
import { watchHref } from './alarms/alarmsAddress'
import { AnomalyIdBuilder } from './queries/AnomalyIdBuilder'
import { QueryVersions } from './queries/QueryVersions'
import { ReleasePanel } from './queries/ReleasePanel'
import { SearchBuilder } from './queries/SearchBuilder'
import { ThresholdBuilder } from './queries/ThresholdBuilder'
import { queriesHref, queriesPlace } from './queries/queriesAddress'
import { useAddressChanges } from '../components/useAddressChanges'
import { ReleaseResult } from './releases/ReleaseResult'
import type { ScreenProps } from '.'
import { QUERY_KIND_SPECS } from '../../../src-main/contract/release-kinds'

const KINDS = (Object.keys(QUERY_KIND_SPECS) as QueryKind[]).map((value) => ({
  value,
  label: QUERY_KIND_SPECS[value].title,
  blurb: QUERY_KIND_SPECS[value].blurb
}))

/**
 * `#/queries/<datasetId>` opens the screen on one dataset; `?query=<id>&release=<id>` (queriesAddress.ts) reopens a
 * question's accuracy panel and the answer last released under it, so a reload loses neither. A changed address while
 * the screen is open shows the place it names: the question shown, priced and released is always the address's.
 */
export function QueriesScreen(props: ScreenProps) {
  const client = useClient()
  const datasets = useQuery('datasets/list', {})
  const list = datasets.data ?? []
  const [opened] = useState(() => queriesPlace(window.location.hash))
  const [datasetChoice, setDatasetChoice] = useState<string>(props.param ?? '')
  const dataset = list.find((d) => String(d.id) === datasetChoice) ?? list[0] ?? null
  const queries = useQuery('queries/list', dataset ? { datasetId: dataset.id } : null, [dataset?.id])
  const [kind, setKind] = useState<QueryKind>('threshold')
  const [name, setName] = useState('')
  const [definition, setDefinition] = useState<QueryDefinition | string>('')
  const [selectedQuery, setSelectedQuery] = useState<number | null>(opened.queryId)
  /** The answer last released under the selected question: the record just returned, or read again after a reload. */
  const [releaseId, setReleaseId] = useState<number | null>(opened.queryId === null ? null : opened.releaseId)
  const [justReleased, setJustReleased] = useState<ReleaseRecord | null>(null)
  const setReleased = (r: ReleaseRecord | null) => {
    setJustReleased(r)
    setReleaseId(r?.releaseId ?? null)
  }
  const reread = useQuery('releases/get', releaseId !== null && justReleased?.releaseId !== releaseId ? { releaseId } : null, [releaseId])
  const lastReleased = justReleased !== null && justReleased.releaseId === releaseId ? justReleased : releaseId !== null ? reread.data : null
  // Only under the question it answered (an address may name any release).
  const released = lastReleased !== null && lastReleased.queryId === selectedQuery ? lastReleased : null
  /** The saved query being edited: the builder starts from it, and saving writes its next version. */
  const [editing, setEditing] = useState<SavedQuery | null>(null)
  const save = useAction()

  // Another dataset chosen: its questions start unselected. (The first dataset shown keeps what the address reopened,
  // and a dataset the address names keeps the question the address names.)
  const shownDataset = useRef<number | null>(null)
  const addressedDataset = useRef<number | null>(null)
  useEffect(() => {
    const before = shownDataset.current
    shownDataset.current = dataset?.id ?? null
    if (before === null || before === dataset?.id) return
    if (addressedDataset.current === dataset?.id) {
      addressedDataset.current = null
      return
    }
    setSelectedQuery(null)
    setJustReleased(null)
    setReleaseId(null)
    setEditing(null)
  }, [dataset?.id])
  const datasetId = dataset?.id ?? null
  // The address changed while open (edited, back, a link): show the place it names. An address without a dataset (the
  // sidebar's link) keeps the place shown, and names it again.
  useAddressChanges((hash) => {
    const place = queriesPlace(hash)
    if (!hash.startsWith('#/queries')) return
    if (place.datasetId === null) {
      if (datasetId !== null) window.history.replaceState(null, '', queriesHref({ datasetId, queryId: selectedQuery, releaseId }))
      return
    }
    const releaseNamed = place.queryId === null ? null : place.releaseId
    if (place.datasetId === dataset?.id && place.queryId === selectedQuery && releaseNamed === releaseId) return
    if (place.datasetId !== dataset?.id) addressedDataset.current = place.datasetId
    setDatasetChoice(String(place.datasetId))
    setSelectedQuery(place.queryId)
    setJustReleased(null)
    setReleaseId(releaseNamed)
    setEditing(null)
    // A question saved elsewhere since the list was read (another window) is listed.
    if (place.datasetId === dataset?.id) queries.reload()
  })
  // The address follows the place, without a new history entry (a reload or a copied address comes back here).
  useEffect(() => {
    if (datasetId === null || !window.location.hash.startsWith('#/queries')) return
    const next = queriesHref({ datasetId, queryId: selectedQuery, releaseId })
    if (window.location.hash !== next) window.history.replaceState(null, '', next)
  }, [datasetId, selectedQuery, releaseId])
  // An old Save error belongs to the question it was about: it goes when the dataset, the question type or the definition changes.
  const { setError: setSaveError } = save
  const definitionKey = JSON.stringify(definition)
  useEffect(() => {
    setSaveError(null)
  }, [dataset?.id, kind, definitionKey, setSaveError])

  const saved = queries.data ?? []
  const mayWatch = useMay('alarms/create')
  const query = saved.find((q) => q.id === selectedQuery) ?? null

  if (datasets.data && list.length === 0) {
    return (
      <section className="panel empty-state" data-testid="screen-queries">
        <p>
          No datasets yet. <a href={href('datasets')}>Import a file</a> first; then ask threshold and anomaly questions about it here, with the
          accuracy and its price shown before anything is spent.
        </p>
      </section>
    )
  }

  // Why the save button is disabled, in one sentence (the builders hand up a sentence while the definition is incomplete).
  const whyNot =
    typeof definition === 'string' ? definition || 'Define the question above.' : name.trim() === '' ? 'Give the question a name to save it.' : null

  const doSave = () => {
    if (!dataset || typeof definition === 'string') return
    void save.run(async () => {
      const q = await client.call('queries/save', {
        datasetId: dataset.id,
        name: name.trim(),
        definition,
        ...(editing ? { replaces: editing.id } : {})
      })
      queries.reload()
      setEditing(null)
      setSelectedQuery(q.id)
      setReleased(null)
    })
  }

  const startEditing = (q: SavedQuery) => {
    setEditing(q)
    setKind(q.kind)
    setName(q.name)
    setDefinition(q.definition)
    setReleased(null)
    document.getElementById('new-query-title')?.scrollIntoView({ block: 'start' })
  }
  const stopEditing = () => {
    setEditing(null)
    setName('')
    setDefinition('')
  }
  // The builders start from the query being edited; a new key gives a fresh builder when editing starts or stops.
  const builderKey = `${dataset?.id ?? ''}-${editing?.id ?? 'new'}`

  return (
    <div className="stack" data-testid="screen-queries">
      <ErrorText error={datasets.error} />
      {datasets.data === null && datasets.loading && (
        <section className="panel">
          <Loading what="the datasets" />
        </section>
      )}
      {dataset && (
        <section className="panel" aria-labelledby="new-query-title" data-testid="query-builder">
          <div className="panel-head">
            <h2 id="new-query-title">
              {editing ? (
                <>
                  Edit “{editing.name}”: version {editing.version + 1}
                </>
              ) : (
                'New question'
              )}
            </h2>
            {editing ? (
              <button type="button" className="secondary" onClick={stopEditing} data-testid="query-edit-cancel">
                Stop editing
              </button>
            ) : (
              <SelectField
                label="Dataset"
                value={String(dataset.id)}
                onChange={setDatasetChoice}
                options={list.map((d) => ({ value: String(d.id), label: d.name }))}
                testId="query-dataset"
              />
            )}
          </div>
          {editing && (
            <p className="hint" data-testid="query-editing">
              Saving writes version {editing.version + 1} of this question on {dataset.name}, as a new question; version {editing.version} stays as it
              is, and every release keeps the version it ran.
            </p>
          )}
          <div className="segmented" role="radiogroup" aria-label="Question type">
            {KINDS.map((k) => (
              <label key={k.value} className={`segment ${kind === k.value ? 'on' : ''}`}>
                <input
                  type="radio"
                  name="query-kind"
                  value={k.value}
                  checked={kind === k.value}
                  disabled={editing !== null && editing.kind !== k.value}
                  onChange={() => {
                    setKind(k.value)
                    // Another kind is another question: the previous one's name does not carry over.
                    if (editing === null) setName('')
                  }}
                  data-testid={`kind-${k.value}`}
                />
                <span className="segment-title">{k.label}</span>
                <span className="segment-blurb">{k.blurb}</span>
              </label>
            ))}
          </div>
          <form
            className="stack-tight"
            onSubmit={(e) => {
              e.preventDefault()
              doSave()
            }}
          >
            {kind === 'threshold' && (
              <ThresholdBuilder
                key={`t${builderKey}`}
                dataset={dataset}
                datasets={list}
                initial={editing?.definition.kind === 'threshold' ? editing.definition : undefined}
                onChange={setDefinition}
              />
            )}
            {kind === 'anomaly-identification' && (
              <AnomalyIdBuilder
                key={`a${builderKey}`}
                dataset={dataset}
                initial={editing?.definition.kind === 'anomaly-identification' ? editing.definition : undefined}
                onChange={setDefinition}
              />
            )}
            {kind === 'anomaly-search' && (
              <SearchBuilder
                key={`s${builderKey}`}
                dataset={dataset}
                datasets={list}
                initial={editing?.definition.kind === 'anomaly-search' ? editing.definition : undefined}
                onChange={setDefinition}
              />
            )}
            <div className="row">
              <TextField
                label="Name of the question"
                value={name}
                onChange={setName}
                testId="query-name"
                width="wide"
                placeholder="e.g. rooms over capacity, 12 March 14:00"
              />
              <div className="field actions">
                <button
                  type="submit"
                  disabled={save.busy || whyNot !== null}
                  data-testid="query-save"
                  aria-describedby={whyNot ? 'query-save-why' : undefined}
                  title={whyNot ?? undefined}
                >
                  {save.busy ? 'Saving…' : editing ? `Save version ${editing.version + 1}` : 'Save question'}
                </button>
              </div>
            </div>
            {whyNot && (
              <p className="hint todo" id="query-save-why" data-testid="query-save-why">
                {whyNot}
              </p>
            )}
            <p className="hint">
              Saving spends nothing. A saved question is never changed in place: editing it saves a new version, so every release can be traced to
              exactly what was asked.
            </p>
            <ErrorText error={save.error} testId="query-save-error" />
          </form>
        </section>
      )}

      {dataset && (
        <section className="panel" aria-labelledby="saved-title" data-testid="saved-queries">
          <h2 id="saved-title">Saved questions on {dataset.name}</h2>
          <ErrorText error={queries.error} />
          {queries.data === null && queries.loading && <Loading what="the saved questions" />}
          {queries.data && saved.length === 0 && (
            <p className="empty-state">None yet. Define one above and save it; then choose its accuracy and release it.</p>
          )}
          {saved.length > 0 && (
            <ul className="query-list">
              {saved.map((q) => (
                <li key={q.id}>
                  <button
                    type="button"
                    className={`query-item ${q.id === selectedQuery ? 'on' : ''}`}
                    aria-pressed={q.id === selectedQuery}
                    onClick={() => {
                      setSelectedQuery(q.id)
                      setReleased(null)
                    }}
                    data-testid={`saved-query-${q.name}`}
                  >
                    <strong>{q.name}</strong>{' '}
                    <span className="hint">
                      {QUERY_KIND_SPECS[q.kind].words}
                      {q.version > 1 ? ` · version ${q.version}` : ''} · {formatDate(q.createdAt)}
                    </span>
                  </button>
                  {q.id === selectedQuery && (
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => startEditing(q)}
                      disabled={editing?.id === q.id}
                      data-testid={`edit-query-${q.name}`}
                    >
                      {editing?.id === q.id ? 'Editing above' : 'Edit'}
                    </button>
                  )}
                  {q.id === selectedQuery && q.kind === 'threshold' && mayWatch && (
                    <a href={watchHref(q.id)} data-testid={`watch-query-${q.name}`}>
                      Watch it as an alarm
                    </a>
                  )}
                </li>
              ))}
            </ul>
          )}
          {query && <QueryVersions key={`${query.id}-${released?.releaseId ?? ''}`} query={query} />}
        </section>
      )}

      {query && <ReleasePanel key={query.id} query={query} onReleased={setReleased} />}
      {released && (
        <>
          <p className="hint" data-testid="release-kept">
            This answer is kept under Releases: <a href={href('releases', released.releaseId)}>Release {released.releaseId}</a>.
          </p>
          <ReleaseResult release={released} />
        </>
      )}
    </div>
  )
}
