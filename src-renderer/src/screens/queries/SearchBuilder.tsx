import { useState } from 'react'
import type { AnomalySearchDefinition, DatasetInfo } from '../../../../src-main/contract'
import { NumberField, SelectField } from '../../components/Fields'
import { href } from '../../sections'
import { type SearchForm, buildSearchDefinition, parseIndividuals, searchFormFromDefinition } from './searchDefinition'
import { noPublicSourceReason, publicSources } from './thresholdDefinition'
import { useHandUp } from './useHandUp'
import { preferredIdColumn } from './columnDefaultsDefinition'

/**
 * Anomaly search: score column, the id column and the public list of individuals, the score floor L, thresholds,
 * epsilon per query, budget, oracle and stopping rule. `buildSearchDefinition` (pure) does the work.
 */
/** A new search form on `dataset`. */
function blankSearchForm(dataset: DatasetInfo, datasets: readonly DatasetInfo[]): SearchForm {
  const cols = dataset.columns
  const numeric = cols.filter((c) => c.type === 'integer' || c.type === 'real')
  const sources = publicSources(dataset, datasets)
  const personColumn = dataset.unit.kind === 'person' ? dataset.unit.column : ''
  return {
    score: numeric[0]?.name ?? '',
    // A person-level dataset names its individuals by its person column; else a column named like an id; else the analyst chooses.
    idColumn: preferredIdColumn(cols, personColumn || null) ?? '',
    individuals: { source: sources.length > 0 ? 'dataset' : 'listed', listed: '', datasetId: sources[0] ? String(sources[0].id) : '', column: '' },
    scoreFloor: '',
    tLow: '',
    tHigh: '',
    eps: '1',
    budget: '20',
    oracle: 'direct',
    stop: 'tau',
    tau: '0.5',
    delta: '0.05',
    top: '4'
  }
}

/** `initial`: a saved search being edited (its next version starts from it). */
export function SearchBuilder(props: {
  dataset: DatasetInfo
  datasets: DatasetInfo[]
  initial?: AnomalySearchDefinition
  onChange: (d: AnomalySearchDefinition | string) => void
}) {
  const cols = props.dataset.columns
  const numeric = cols.filter((c) => c.type === 'integer' || c.type === 'real')
  const sources = publicSources(props.dataset, props.datasets)
  const [form, setForm] = useState<SearchForm>(() => {
    const blank = blankSearchForm(props.dataset, props.datasets)
    return props.initial ? searchFormFromDefinition(props.initial, blank) : blank
  })
  const set = (p: Partial<SearchForm>) => setForm({ ...form, ...p })
  const ind = form.individuals
  const setInd = (p: Partial<SearchForm['individuals']>) => set({ individuals: { ...ind, ...p } })
  const src = sources.find((d) => String(d.id) === ind.datasetId)
  // The list's column: the chosen one, else the one named like the id column, else none.
  const srcColumn = src?.columns.some((c) => c.name === ind.column)
    ? ind.column
    : src?.columns.some((c) => c.name === form.idColumn)
      ? form.idColumn
      : ''
  const built = buildSearchDefinition({ ...form, individuals: { ...ind, column: srcColumn } }, props.dataset, props.datasets)
  useHandUp(built, props.onChange)
  const listed = ind.source === 'listed' ? parseIndividuals(ind.listed) : null
  const floorShown = form.scoreFloor.trim() === '' ? '0' : form.scoreFloor.trim()

  return (
    <div className="stack-tight" data-testid="search-builder">
      <div className="row">
        <SelectField
          label="Score column"
          value={form.score}
          onChange={(score) => set({ score })}
          options={numeric.map((c) => ({ value: c.name, label: c.name }))}
          testId="search-score"
        />
        <SelectField
          label="Individuals are named by"
          value={form.idColumn}
          onChange={(idColumn) => set({ idColumn })}
          options={[
            ...(form.idColumn ? [] : [{ value: '', label: 'Choose the id column…' }]),
            ...cols.map((c) => ({ value: c.name, label: c.name }))
          ]}
          testId="search-id-column"
          hint={
            form.idColumn
              ? 'The column holding each individual’s id.'
              : 'No column is named like an id: choose the one holding each individual’s id (rows are not individuals).'
          }
        />
      </div>

      <fieldset data-testid="individuals-section">
        <legend>Individuals searched</legend>
        <p className="hint">
          The search looks for the anomaly among a public list of individuals (at least two), which is part of the question: it cannot be read from “
          {props.dataset.name}” itself, as that would reveal who is in it. An id with no row scores L; an id with several rows, its largest score.
        </p>
        <div className="radios" role="radiogroup" aria-label="Individuals come from">
          <label className="check">
            <input
              type="radio"
              name="individuals-source"
              checked={ind.source === 'dataset'}
              onChange={() => setInd({ source: 'dataset' })}
              data-testid="individuals-source-dataset"
            />
            From a public dataset’s column
          </label>
          <label className="check">
            <input
              type="radio"
              name="individuals-source"
              checked={ind.source === 'listed'}
              onChange={() => setInd({ source: 'listed' })}
              data-testid="individuals-source-listed"
            />
            Listed here
          </label>
        </div>
        {ind.source === 'dataset' &&
          (sources.length === 0 ? (
            <p className="hint" data-testid="individuals-no-public">
              {noPublicSourceReason(props.dataset, props.datasets, 'A list of individuals from a dataset')} <a href={href('datasets')}>Datasets</a>
            </p>
          ) : (
            <div className="row">
              <SelectField
                label="List of individuals"
                value={ind.datasetId}
                onChange={(datasetId) => setInd({ datasetId, column: '' })}
                options={[...(src ? [] : [{ value: '', label: 'Choose…' }]), ...sources.map((d) => ({ value: String(d.id), label: d.name }))]}
                testId="individuals-dataset"
                hint="Only public datasets other than this one are offered."
              />
              {src && (
                <SelectField
                  label="Id column of the list"
                  value={srcColumn}
                  onChange={(column) => setInd({ column })}
                  options={[...(srcColumn ? [] : [{ value: '', label: 'Choose…' }]), ...src.columns.map((c) => ({ value: c.name, label: c.name }))]}
                  testId="individuals-column"
                  hint={form.idColumn ? `Its distinct values are matched on “${form.idColumn}”.` : 'Its distinct values are the individuals.'}
                />
              )}
            </div>
          ))}
        {ind.source === 'listed' && (
          <div className="field wide">
            <label htmlFor="individuals-listed">Ids, one per line{form.idColumn ? <> (values of {form.idColumn})</> : null}</label>
            <textarea
              id="individuals-listed"
              rows={5}
              value={ind.listed}
              onChange={(e) => setInd({ listed: e.target.value })}
              data-testid="individuals-listed"
              aria-describedby="individuals-listed-count"
            />
            <span className="field-hint" id="individuals-listed-count" data-testid="individuals-listed-count">
              {Array.isArray(listed) ? `${listed.length.toLocaleString('en-US')} individuals` : 'At least 2, at most 100,000.'}
            </span>
          </div>
        )}
      </fieldset>

      <div className="row">
        <NumberField
          label="Score floor L (optional)"
          value={form.scoreFloor}
          onChange={(scoreFloor) => set({ scoreFloor })}
          testId="search-floor"
          width="normal"
          hint={`Scores below L are raised to L; the noise scale is (t-low − L)/ε. Empty: L = 0.`}
        />
        <NumberField
          label="t-low (protected at or below)"
          value={form.tLow}
          onChange={(tLow) => set({ tLow })}
          testId="search-tlow"
          hint={`Must be above L = ${floorShown}.`}
        />
        <NumberField label="t-high (the anomaly is above)" value={form.tHigh} onChange={(tHigh) => set({ tHigh })} testId="search-thigh" />
      </div>
      <div className="row">
        <NumberField label="ε per question" value={form.eps} onChange={(eps) => set({ eps })} testId="search-eps" />
        <NumberField label="Budget ε (total at most)" value={form.budget} onChange={(budget) => set({ budget })} testId="search-budget" />
        <SelectField
          label="Oracle"
          value={form.oracle}
          onChange={(oracle) => set({ oracle })}
          options={[
            { value: 'direct', label: 'direct (Laplace on the count)' },
            { value: 'binary', label: 'binary (noisy yes/no)' },
            { value: 'rr', label: 'rr (randomized response)' }
          ]}
        />
        <NumberField label="Show the top" value={form.top} onChange={(top) => set({ top })} hint="candidates" />
      </div>
      <div className="row">
        <SelectField
          label="Stop when"
          value={form.stop}
          onChange={(stop) => set({ stop })}
          options={[
            { value: 'tau', label: 'the best candidate is likely enough (tau)' },
            { value: 'delta', label: 'the log-odds exceed log(1/delta)' }
          ]}
        />
        {form.stop === 'tau' ? (
          <NumberField label="tau" value={form.tau} onChange={(tau) => set({ tau })} />
        ) : (
          <NumberField label="delta" value={form.delta} onChange={(delta) => set({ delta })} />
        )}
      </div>
    </div>
  )
}
