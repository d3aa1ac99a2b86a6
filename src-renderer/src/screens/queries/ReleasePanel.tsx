import { useState } from 'react'
import { aiqEpsilonForError } from './aiqAccuracyDefinition'
import { notionName } from '../ledger/notions'
import type { ReleaseParams, ReleasePreview, ReleaseRecord, SavedQuery } from '../../../../src-main/contract'
import { useAction, useClient, useDebounced, useQuery } from '../../api/hooks'
import { ErrorText, NumberField, SelectField, parseNumber } from '../../components/Fields'
import { formatExact } from '../../format'
import { href } from '../../sections'
import { TradeoffChart } from './TradeoffChart'
import { AccuracyChart } from './AccuracyChart'
import { EPSILON_IN_WORDS } from './accuracyDefinition'
import { RELEASE_PARAMS, inRange } from '../../../../src-main/contract/release-params'

const T = RELEASE_PARAMS.threshold
const A = RELEASE_PARAMS.anomalyIdentification

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
  const [mechanism, setMechanism] = useState<'tslm' | 'ppwlm' | 'dppwlm'>(T.mechanism.default)
  const [beta, setBeta] = useState(String(T.beta.start))
  const [alpha, setAlpha] = useState(String(T.alpha.start))
  const [epsMax, setEpsMax] = useState('')
  const [aiqMechanism, setAiqMechanism] = useState<'dp' | 'sp'>(A.mechanism.default)
  const [epsilon, setEpsilon] = useState(String(A.epsilon.start))
  // Accuracy first: the error rate accepted, for records at least `margin` changes from the other answer.
  const [aiqError, setAiqError] = useState('')
  const [aiqMargin, setAiqMargin] = useState('1')
  const act = useAction()

  const params: ReleaseParams | string = (() => {
    if (q.kind === 'threshold') {
      const b = parseNumber(beta)
      const a = parseNumber(alpha)
      if (!inRange(b, T.beta.range)) return 'Beta must be between 0 and 0.5 (e.g. 0.05 for 5%).'
      if (!inRange(a, T.alpha.range)) return 'Alpha must be > 0 (the tolerance around the threshold).'
      const p: ReleaseParams = { kind: 'threshold', mechanism, beta: b, alpha: a }
      const em = parseNumber(epsMax)
      if (epsMax.trim() !== '') {
        if (!inRange(em, T.epsMax.range)) return 'The ε limit must be > 0.'
        p.epsMax = em
      }
      return p
    }
    if (q.kind === 'anomaly-identification') {
      if (aiqError.trim() !== '') {
        const err = parseNumber(aiqError)
        const m = parseNumber(aiqMargin)
        if (m === null || !Number.isInteger(m) || m < 1) return 'The margin is a whole number of record changes, 1 or more.'
        const derived = err === null ? null : aiqEpsilonForError(err, m)
        if (derived === null) return 'The error rate must be between 0 and 0.5 (an answer by coin toss is wrong half the time).'
        return { kind: 'anomaly-identification', mechanism: aiqMechanism, epsilon: derived }
      }
      const e = parseNumber(epsilon)
      if (!inRange(e, A.epsilon.range)) return 'ε per record must be > 0 (at most 1,000,000).'
      return { kind: 'anomaly-identification', mechanism: aiqMechanism, epsilon: e }
    }
    return { kind: 'anomaly-search' }
  })()
  const debounced = useDebounced(params, 300)
  const preview = useQuery('releases/preview', typeof debounced === 'string' ? null : { queryId: q.id, params: debounced }, [
    q.id,
    JSON.stringify(debounced)
  ])
  const pv = typeof params === 'string' ? null : preview.data
  const stale = JSON.stringify(params) !== JSON.stringify(debounced)
  // Accuracy against ε (anomaly identification and search; threshold questions state theirs as beta and alpha).
  const accuracy = useQuery(
    'releases/accuracy',
    typeof debounced === 'string' || q.kind === 'threshold' ? null : { queryId: q.id, params: debounced },
    [q.id, JSON.stringify(debounced)]
  )

  const release = () => {
    if (typeof params === 'string') return
    void act.run(async () => {
      const r = await client.call('releases/run', { queryId: q.id, params, actor: 'analyst' })
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
                value={beta}
                onChange={setBeta}
                testId="release-beta"
                width="normal"
                hint="0.05 = 5% of the groups over their threshold"
              />
              <NumberField
                label="Tolerance below the threshold (alpha)"
                value={alpha}
                onChange={setAlpha}
                testId="release-alpha"
                width="normal"
                hint="groups within 2 × alpha under it may be flagged"
              />
              <NumberField
                label="Deny above ε (optional)"
                value={epsMax}
                onChange={setEpsMax}
                hint="per unit of sensitivity; default 4"
                width="normal"
              />
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
                      checked={mechanism === m.value}
                      onChange={() => setMechanism(m.value)}
                      data-testid={`mechanism-${m.value}`}
                    />
                    {m.label}
                  </label>
                ))}
              </div>
              {mechanism !== 'tslm' && (
                <p className="hint" data-testid="mechanism-why-price">
                  Why it may cost more here: the ledger charges every release its worst case before it runs.{' '}
                  {mechanism === 'ppwlm' ? 'PPWLM' : 'DPPWLM'} asks in up to 4 steps of rising ε and stops for a group as soon as its answer is clear;
                  a group that stays unclear to the last step needs ln(m/(2β))/α with m steps, more than TSLM’s one-shot ln(1/(2β))/α, and that worst
                  case is what is charged. In practice most groups are clear far from their threshold and stop early, so what is actually spent
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
              value={aiqMechanism}
              onChange={setAiqMechanism}
              options={[
                { value: 'sp', label: 'Sensitive privacy — more accurate; anomalies are not hidden' },
                { value: 'dp', label: 'Optimal ε-DP — hides everyone, less accurate' }
              ]}
            />
            <NumberField
              label="Wrong answer at most (optional)"
              value={aiqError}
              onChange={setAiqError}
              testId="aiq-error"
              width="normal"
              hint="e.g. 0.05: each answer is wrong with probability at most 5%…"
            />
            <NumberField
              label="…for records at least this many changes from the other answer"
              value={aiqMargin}
              onChange={setAiqMargin}
              testId="aiq-margin"
              width="normal"
              hint="1 = every record (the worst case); 3 = records 3 additions or removals away from flipping"
            />
            {aiqError.trim() === '' ? (
              <NumberField label="ε per record asked" value={epsilon} onChange={setEpsilon} testId="release-epsilon" />
            ) : (
              <p className="field hint" data-testid="aiq-derived-epsilon">
                {typeof params === 'string'
                  ? '—'
                  : `ε per record asked: ${params.kind === 'anomaly-identification' ? params.epsilon : ''} (from Construction 1: error ≤ e^(−ε(m−1)) / (1 + e^ε) for records at least m = ${aiqMargin} changes from the other answer)`}
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

        {typeof params === 'string' && <p className="hint todo">{params}</p>}
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
          error={typeof params === 'string' ? null : preview.error}
          loading={preview.loading || stale}
          onUse={(param, value) => (param === 'alpha' ? setAlpha : param === 'beta' ? setBeta : setEpsilon)(String(value))}
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
          {p.budgetExact === null && (
            <>
              {' '}
              A privacy officer can set a budget in the <a href={href('ledger')}>Ledger</a>.
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
