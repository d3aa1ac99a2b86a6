import { useState } from 'react'
import type { AnomalySearchDefinition, DatasetInfo } from '../../../../src-main/contract'
import { NumberField, SelectField, parseNumber } from '../../components/Fields'
import { useHandUp } from './useHandUp'

/** Anomaly search: score column, thresholds, epsilon per query, budget, oracle and stopping rule. */
export function SearchBuilder(props: { dataset: DatasetInfo; onChange: (d: AnomalySearchDefinition | string) => void }) {
  const numeric = props.dataset.columns.filter((c) => c.type === 'integer' || c.type === 'real')
  const [score, setScore] = useState(numeric[0]?.name ?? '')
  const [idColumn, setIdColumn] = useState('')
  const [tLow, setTLow] = useState('')
  const [tHigh, setTHigh] = useState('')
  const [eps, setEps] = useState('1')
  const [budget, setBudget] = useState('20')
  const [oracle, setOracle] = useState<AnomalySearchDefinition['oracle']>('direct')
  const [stop, setStop] = useState<'tau' | 'delta'>('tau')
  const [tau, setTau] = useState('0.5')
  const [delta, setDelta] = useState('0.05')
  const [top, setTop] = useState('4')

  const build = (): AnomalySearchDefinition | string => {
    if (!score) return 'This dataset has no numeric column to search for an anomaly in.'
    const tl = parseNumber(tLow)
    const th = parseNumber(tHigh)
    const e = parseNumber(eps)
    const b = parseNumber(budget)
    const t = parseNumber(top)
    if (tl === null || tl <= 0) return 'Give t-low (> 0): every individual at or below it is protected.'
    if (th === null || th <= tl) return 'Give t-high (greater than t-low): the anomaly is above it.'
    if (e === null || e <= 0) return 'Give the ε of each noisy question (> 0).'
    if (b === null || b < e) return 'Give the budget (at least the ε per question): it bounds the total charge.'
    if (t === null || !Number.isInteger(t) || t < 1) return 'Give how many candidates to show (a whole number).'
    const d: AnomalySearchDefinition = { kind: 'anomaly-search', scoreColumn: score, tLow: tl, tHigh: th, epsilonPerQuery: e, budget: b, oracle, top: t }
    if (idColumn) d.idColumn = idColumn
    if (stop === 'tau') {
      const x = parseNumber(tau)
      if (x === null || x <= 0 || x >= 1) return 'Give tau between 0 and 1.'
      d.tau = x
    } else {
      const x = parseNumber(delta)
      if (x === null || x <= 0 || x >= 1) return 'Give delta between 0 and 1.'
      d.delta = x
    }
    return d
  }
  const built = build()
  useHandUp(built, props.onChange)

  return (
    <div className="stack-tight" data-testid="search-builder">
      <div className="row">
        <SelectField label="Score column" value={score} onChange={setScore} options={numeric.map((c) => ({ value: c.name, label: c.name }))} testId="search-score" />
        <SelectField
          label="Individuals are named by"
          value={idColumn}
          onChange={setIdColumn}
          options={[{ value: '', label: 'Row number' }, ...props.dataset.columns.map((c) => ({ value: c.name, label: c.name }))]}
        />
        <NumberField label="t-low (protected at or below)" value={tLow} onChange={setTLow} testId="search-tlow" />
        <NumberField label="t-high (the anomaly is above)" value={tHigh} onChange={setTHigh} testId="search-thigh" />
      </div>
      <div className="row">
        <NumberField label="ε per question" value={eps} onChange={setEps} testId="search-eps" />
        <NumberField label="Budget ε (total at most)" value={budget} onChange={setBudget} testId="search-budget" />
        <SelectField
          label="Oracle"
          value={oracle}
          onChange={setOracle}
          options={[
            { value: 'direct', label: 'direct (Laplace on the count)' },
            { value: 'binary', label: 'binary (noisy yes/no)' },
            { value: 'rr', label: 'rr (randomized response)' }
          ]}
        />
        <NumberField label="Show the top" value={top} onChange={setTop} hint="candidates" />
      </div>
      <div className="row">
        <SelectField
          label="Stop when"
          value={stop}
          onChange={setStop}
          options={[
            { value: 'tau', label: 'the best candidate is likely enough (tau)' },
            { value: 'delta', label: 'the log-odds exceed log(1/delta)' }
          ]}
        />
        {stop === 'tau' ? <NumberField label="tau" value={tau} onChange={setTau} /> : <NumberField label="delta" value={delta} onChange={setDelta} />}
      </div>
      {typeof built === 'string' && <p className="hint todo">{built}</p>}
    </div>
  )
}
