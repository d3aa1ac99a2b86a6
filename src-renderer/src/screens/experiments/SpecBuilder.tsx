import { useEffect, useId, useMemo, useState } from 'react'
import type { ExperimentPreset, ExperimentSpec } from '../../../../src-main/contract'
import { useAction, useClient, useDebounced, useQuery } from '../../api/hooks'
import { SimulationBadge } from '../../components/Badges'
import { ErrorText, SelectField, TextField } from '../../components/Fields'
import { Loading } from '../../components/Loading'
import { formatCount } from '../../format'
import { formFromSpec, specFromForm, type SpecForm, type SweepForm } from './specForm'

/** Presets of the papers' figures, a grid editor, live validation (cells and trials), and Start. */
export function SpecBuilder(props: { onStarted: (experimentId: string) => void }) {
  const client = useClient()
  const presets = useQuery('experiments/presets', {})
  const [presetName, setPresetName] = useState('')
  const [form, setForm] = useState<SpecForm | null>(null)
  const [json, setJson] = useState<string | null>(null)
  const [jsonError, setJsonError] = useState<string | null>(null)
  const start = useAction()
  const jsonId = useId()
  const list = presets.data?.presets ?? []
  const preset: ExperimentPreset | undefined = list.find((p) => p.name === presetName)

  useEffect(() => {
    if (!presetName && list.length > 0) choose(list.find((p) => p.name === 'mide-fig8')?.name ?? list[0].name)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [list.length])

  function choose(name: string) {
    setPresetName(name)
    const p = list.find((x) => x.name === name)
    if (p) {
      setForm(formFromSpec(p.spec))
      setJson(null)
      setJsonError(null)
    }
  }

  const spec: ExperimentSpec | null = useMemo(() => (form ? specFromForm(form) : null), [form])
  const debouncedSpec = useDebounced(spec, 400)
  const validation = useQuery('experiments/validate', debouncedSpec ? { spec: debouncedSpec } : null, [JSON.stringify(debouncedSpec)])
  const v = validation.data

  const setSweep = (i: number, s: Partial<SweepForm>) =>
    form && setForm({ ...form, sweeps: form.sweeps.map((x, j) => (j === i ? { ...x, ...s } : x)) })

  const applyJson = () => {
    if (json === null) return
    try {
      const parsed = JSON.parse(json) as ExperimentSpec
      setForm(formFromSpec(parsed))
      setJson(null)
      setJsonError(null)
    } catch (e) {
      setJsonError(`The spec is not valid JSON: ${(e as Error).message}`)
    }
  }

  const submit = () => {
    if (!spec) return
    void start.run(async () => {
      const r = await client.call('experiments/start', { spec })
      props.onStarted(r.experimentId)
    })
  }

  return (
    <section className="panel sim-band" aria-labelledby="builder-title" data-testid="spec-builder">
      <div className="panel-head">
        <h2 id="builder-title">New experiment</h2>
        <SimulationBadge />
      </div>
      <p className="hint">Simulations run on the ground truth with a seeded generator. They are never charged and never released.</p>
      <ErrorText error={presets.error} />
      {presets.data === null && presets.loading && <Loading what="the paper figures" />}
      {list.length > 0 && (
        <SelectField
          label="Start from a paper figure"
          value={presetName}
          onChange={choose}
          options={list.map((p) => ({ value: p.name, label: p.title.startsWith(p.figure) ? p.title : `${p.figure} — ${p.title}` }))}
          testId="preset"
          width="full"
        />
      )}
      {preset && <p className="hint preset-description">{preset.description}</p>}
      {form && (
        <form
          className="stack-tight"
          onSubmit={(e) => {
            e.preventDefault()
            submit()
          }}
        >
          <div className="row">
            <TextField label="Name" value={form.name} onChange={(name) => setForm({ ...form, name })} testId="spec-name" width="wide" />
            <TextField
              label="Trials per cell"
              value={form.trials}
              onChange={(trials) => setForm({ ...form, trials })}
              testId="spec-trials"
              width="narrow"
              hint="The papers use 100."
            />
            <TextField label="Seed" value={form.seed} onChange={(seed) => setForm({ ...form, seed })} testId="spec-seed" width="narrow" />
          </div>
          <p className="hint">
            Workloads: {form.base.workloads.map((w) => w.label ?? ('path' in w ? w.path : w.queryId)).join(', ')} (change them in the JSON below).
          </p>
          {form.sweeps.map((s, i) => (
            <fieldset key={i} className="sweep-box">
              <legend>Sweep {form.sweeps.length > 1 ? i + 1 : ''}</legend>
              <div className="row">
                <TextField label="Label" value={s.label} onChange={(label) => setSweep(i, { label })} width="narrow" />
                <TextField
                  label="Mechanisms"
                  value={s.mechanisms}
                  onChange={(mechanisms) => setSweep(i, { mechanisms })}
                  hint="Comma separated."
                  testId={`sweep-${i}-mechanisms`}
                />
                <TextField
                  label="Fixed parameters"
                  value={s.params}
                  onChange={(params) => setSweep(i, { params })}
                  placeholder="eps_max = 8; beta = 0.05"
                  hint="name = value, separated by ;"
                />
              </div>
              {s.grid.map((g, j) => (
                <div className="row grid-row" key={j}>
                  <TextField
                    label="Swept parameter"
                    value={g.key}
                    onChange={(key) => setSweep(i, { grid: s.grid.map((x, k) => (k === j ? { ...x, key } : x)) })}
                    width="narrow"
                  />
                  <TextField
                    label={`Values of ${g.key || 'the parameter'}`}
                    value={g.values}
                    onChange={(values) => setSweep(i, { grid: s.grid.map((x, k) => (k === j ? { ...x, values } : x)) })}
                    testId={`sweep-${i}-grid-${g.key}`}
                    width="wide"
                  />
                  <div className="field actions">
                    <button type="button" className="secondary" onClick={() => setSweep(i, { grid: s.grid.filter((_, k) => k !== j) })}>
                      Remove {g.key || 'row'}
                    </button>
                  </div>
                </div>
              ))}
              <button type="button" className="secondary small" onClick={() => setSweep(i, { grid: [...s.grid, { key: '', values: '' }] })}>
                Add a swept parameter
              </button>
            </fieldset>
          ))}
          <details className="json-box" onToggle={(e) => (e.currentTarget.open ? setJson(JSON.stringify(spec, null, 2)) : setJson(null))}>
            <summary>Edit the whole spec as JSON (workloads, several sweeps)</summary>
            <label htmlFor={jsonId}>Spec (JSON)</label>
            <textarea id={jsonId} rows={14} value={json ?? ''} onChange={(e) => setJson(e.target.value)} spellCheck={false} />
            <button type="button" className="secondary" onClick={applyJson}>
              Apply JSON
            </button>
            <ErrorText error={jsonError} />
          </details>
          <div className="validation" data-testid="spec-validation" aria-live="polite">
            {validation.loading && !v && <span className="hint">Checking the spec…</span>}
            {v?.ok === true && (
              <span className="ok">
                Valid: {formatCount(v.cells)} cells ({formatCount(v.distinctCells)} distinct), {formatCount(v.trials)} trials in all.
              </span>
            )}
            {v?.ok === false && (
              <ul className="error">
                {v.errors.map((e, i) => (
                  <li key={i}>{e}</li>
                ))}
              </ul>
            )}
            <ErrorText error={validation.error} />
          </div>
          <div className="button-row">
            <button type="submit" disabled={start.busy || v?.ok === false} data-testid="spec-start">
              {start.busy ? 'Starting…' : 'Start simulation'}
            </button>
          </div>
          <ErrorText error={start.error} testId="spec-start-error" />
        </form>
      )}
    </section>
  )
}
