import { useReducer } from 'react'
import { notionName } from '../ledger/notions'
import type { ReleasePreview, ReleaseRecord, SavedQuery } from '../../../../src-main/contract'
import { useAction, useClient, useDebounced, useQuery } from '../../api/hooks'
import { ErrorText, NumberField, SelectField } from '../../components/Fields'
import { formatExact } from '../../format'
import { RaiseBudget } from '../ledger/RaiseBudget'
import { budgetAsk } from '../ledger/officerAdvice'
import { TradeoffChart } from './TradeoffChart'
import { AccuracyChart } from './AccuracyChart'
import { EPSILON_IN_WORDS } from './accuracyDefinition'
import { type AiqMechanism, type ReleaseFormText, initialReleaseForm, releaseFormReducer, resolveReleaseForm } from './releaseFormState'

const MECHANISMS = [
  { value: 'tslm', label: 'TSLM — one shot' },
  { value: 'ppwlm', label: 'PPWLM — in steps, usually spends less on clear cases' },
  { value: 'dppwlm', label: 'DPPWLM — in steps chosen from the data' }
] as const

/**
 * Accuracy first, then price: the analyst states the accuracy, the preview shows the ε it costs, the guarantee in words,
 * the remaining budget and why a run would be denied. Nothing is spent until Release.
 */
export function ReleasePanel(props: { query: SavedQuery; onReleased: (r: ReleaseRecord) => void }) {
  const client = useClient()
  const q = props.query
  const [form, dispatch] = useReducer(releaseFormReducer, initialReleaseForm)
  const text = (field: ReleaseFormText) => ({ value: form[field], onChange: (value: string) => dispatch({ type: 'text', field, value }) })
  const act = useAction()

  const resolved = resolveReleaseForm(q.kind, form)
  const params = resolved.params
  const debounced = useDebounced(params, 300)
  const preview = useQuery('releases/preview', debounced === null ? null : { queryId: q.id, params: debounced }, [q.id, JSON.stringify(debounced)])
  const pv = params === null ? null : preview.data
  const stale = JSON.stringify(params) !== JSON.stringify(debounced)
  // Accuracy against ε (anomaly identification and search; threshold questions state theirs as beta and alpha).
  const accuracy = useQuery('releases/accuracy', debounced === null || q.kind === 'threshold' ? null : { queryId: q.id, params: debounced }, [
    q.id,
    JSON.stringify(debounced)
  ])

  const release = () => {
    if (params === null) return
    void act.run(async () => {
      const r = await client.call('releases/run', { queryId: q.id, params })
      props.onReleased(r)
      preview.reload()
    })
  }

  return (
    <section className="panel release-band" aria-labelledby="release-title" data-testid="release-panel">
      <h2 id="release-title">Accuracy and price: {q.name}</h2>
      <form
        className="stack-tight"
        onSubmit={(e) => {
          e.preventDefault()
          if (pv?.allowed && !stale) release()
        }}
      >
        {q.kind === 'threshold' && (
          <>
            <div className="row">
              <NumberField
                label="Miss a true violation at most (beta)"
                {...text('beta')}
                testId="release-beta"
                width="normal"
                hint="0.05 = 5% of the groups over their threshold"
              />
              <NumberField
                label="Tolerance below the threshold (alpha)"
                {...text('alpha')}
                testId="release-alpha"
                width="normal"
                hint="groups within 2 × alpha under it may be flagged"
              />
              <NumberField label="Deny above ε (optional)" {...text('epsMax')} hint="per unit of sensitivity; default 4" width="normal" />
            </div>
            <fieldset>
              <legend>Mechanism</legend>
              <div className="radios">
                {MECHANISMS.map((m) => (
                  <label key={m.value} className="check">
                    <input
                      type="radio"
                      name="mechanism"
                      value={m.value}
                      checked={form.mechanism === m.value}
                      onChange={() => dispatch({ type: 'mechanism', mechanism: m.value })}
                      data-testid={`mechanism-${m.value}`}
                    />
                    {m.label}
                  </label>
                ))}
              </div>
              {form.mechanism !== 'tslm' && (
                <p className="hint" data-testid="mechanism-why-price">
                  Why it may cost more here: the ledger charges every release its worst case before it runs.{' '}
                  {form.mechanism === 'ppwlm' ? 'PPWLM' : 'DPPWLM'} asks in up to 4 steps of rising ε and stops for a group as soon as its answer is
                  clear; a group that stays unclear to the last step needs ln(m/(2β))/α with m steps, more than TSLM’s one-shot ln(1/(2β))/α, and that
                  worst case is what is charged. In practice most groups are clear far from their threshold and stop early, so what is actually spent
                  (sealed; the privacy officer can read it) is usually less than TSLM’s charge — but the budget must cover the worst case.
                </p>
              )}
            </fieldset>
          </>
        )}
        {q.kind === 'anomaly-identification' && (
          <div className="row">
            <SelectField
              label="Mechanism"
              value={form.aiqMechanism}
              onChange={(mechanism: AiqMechanism) => dispatch({ type: 'aiqMechanism', mechanism })}
              options={[
                { value: 'sp', label: 'Sensitive privacy — more accurate; anomalies are not hidden' },
                { value: 'dp', label: 'Optimal ε-DP — hides everyone, less accurate' }
              ]}
            />
            <NumberField
              label="Wrong answer at most (optional)"
              {...text('aiqError')}
              testId="aiq-error"
              width="normal"
              hint="e.g. 0.05: each answer is wrong with probability at most 5%…"
            />
            <NumberField
              label="…for records at least this many changes from the other answer"
              {...text('aiqMargin')}
              testId="aiq-margin"
              width="normal"
              hint="1 = every record (the worst case); 3 = records 3 additions or removals away from flipping"
            />
            {form.aiqError.trim() === '' ? (
              <NumberField label="ε per record asked" {...text('epsilon')} testId="release-epsilon" />
            ) : (
              <p className="field hint" data-testid="aiq-derived-epsilon">
                {resolved.derivedEpsilon === null
                  ? '—'
                  : `ε per record asked: ${resolved.derivedEpsilon} (from Construction 1: error ≤ e^(−ε(m−1)) / (1 + e^ε) for records at least m = ${form.aiqMargin} changes from the other answer)`}
              </p>
            )}
          </div>
        )}
        {q.kind === 'anomaly-search' && (
          <p className="hint">
            The search's ε per question, budget and stopping rule were fixed when the query was saved; to change them, edit the query (Edit, in the
            list above): it is saved as a new version.
          </p>
        )}

        {resolved.why !== null && <p className="hint todo">{resolved.why}</p>}
        <details className="hint" data-testid="epsilon-in-words">
          <summary>What ε means</summary>
          <p>{EPSILON_IN_WORDS}</p>
        </details>
        {q.kind !== 'threshold' && (
          <div data-testid="accuracy-preview" aria-busy={accuracy.loading || stale}>
            {accuracy.data ? (
              <AccuracyChart accuracy={accuracy.data} remaining={pv?.remaining ?? null} />
            ) : accuracy.loading ? (
              <p className="hint">
                {q.kind === 'anomaly-search' ? 'Simulating how often this search finds the anomaly…' : 'Working out the accuracy…'}
              </p>
            ) : null}
          </div>
        )}
        <PreviewBox
          preview={pv}
          error={params === null ? null : preview.error}
          loading={preview.loading || stale}
          onUse={(param, value) => dispatch({ type: 'useFit', param, value })}
        />

        <div className="button-row">
          <button
            type="submit"
            disabled={!pv?.allowed || stale || act.busy}
            aria-busy={act.busy}
            data-testid="release-run"
            aria-describedby={pv && !pv.allowed ? 'preview-denial' : undefined}
            title={pv && !pv.allowed ? 'Denied: see why above' : undefined}
          >
            {/* The rest of the app stays live meanwhile: the release runs on a thread of its own. */}
            {act.busy ? 'Releasing… (charged first, then answered)' : pv ? `Release and spend ε ${formatExact(pv.epsilonExact)}` : 'Release'}
          </button>
        </div>
        <ErrorText error={act.error} testId="release-error" />
      </form>
    </section>
  )
}

function PreviewBox(props: {
  preview: ReleasePreview | null | undefined
  error: string | null
  loading: boolean
  onUse: (param: 'alpha' | 'beta' | 'epsilon', value: number) => void
}) {
  const p = props.preview
  if (props.error) return <ErrorText error={props.error} testId="preview-error" />
  if (!p) return <p className="hint">{props.loading ? 'Working out the price…' : ''}</p>
  return (
    <div className={`price ${p.allowed ? '' : 'denied'}`} data-testid="release-preview" aria-live="polite" aria-busy={props.loading}>
      <p className="price-line">
        <strong data-testid="preview-epsilon">Costs ε {formatExact(p.epsilonExact)}</strong>{' '}
        <span className="hint">
          ({notionName(p.notion)}
          {p.cellCount > 0 ? `, charged to ${p.cellCount} partition cells` : ', charged to the whole dataset'})
        </span>
      </p>
      <p className="hint" data-testid="preview-explained">
        {p.chargeExplained}
      </p>
      <TradeoffChart preview={p} />
      <p className="guarantee" data-testid="preview-guarantee">
        {p.guarantee}
      </p>
      {(p.warnings ?? []).map((w, i) => (
        <p key={i} className="notice warn" role="alert" data-testid="preview-warning">
          {w}
        </p>
      ))}
      <p data-testid="preview-budget">
        {p.budgetExact === null ? (
          <>
            No budget is set on “{p.datasetName}” (neither a budget per person nor one for {notionName(p.notion)}).
          </>
        ) : (
          <>
            Budget ε {formatExact(p.budgetExact)}: spent {formatExact(p.spentBeforeExact)}, {formatExact(p.remainingExact, 'down')} left; after this
            release {formatExact(p.spentAfterExact)} spent.{' '}
            <span className="hint">(What one person, or row on a row-level dataset, has spent, summed over every privacy notion.)</span>
          </>
        )}
      </p>
      {!p.allowed && (
        <p className="error" role="alert" data-testid="preview-denial" id="preview-denial">
          Would be denied: {p.denial?.replace(/^Denied:\s*/, '')}
          {budgetAsk(p.denial) && (
            <>
              {' '}
              <RaiseBudget verb={budgetAsk(p.denial)!} />
            </>
          )}
        </p>
      )}
      {!p.allowed && p.fit && (
        <div className="fit-suggestion" data-testid="preview-fit">
          <p>{p.fit.sentence}</p>
          <div className="button-row">
            {p.fit.fits.map((f) => (
              <button
                key={f.param}
                type="button"
                className="secondary small"
                onClick={() => props.onUse(f.param, f.value)}
                data-testid={`use-fit-${f.param}`}
              >
                Use {f.param === 'epsilon' ? 'ε per record' : f.param} {f.value}
              </button>
            ))}
          </div>
        </div>
      )}
    </div>
  )
}
