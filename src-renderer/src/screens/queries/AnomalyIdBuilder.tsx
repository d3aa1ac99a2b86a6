import { useState } from 'react'
import type { AnomalyIdentificationDefinition, DatasetInfo } from '../../../../src-main/contract'
import { NumberField, SelectField, parseNumber } from '../../components/Fields'
import { useHandUp } from './useHandUp'

/** Anomaly identification: columns and bins, radius, beta, k, and the records to ask about. */
export function AnomalyIdBuilder(props: { dataset: DatasetInfo; onChange: (d: AnomalyIdentificationDefinition | string) => void }) {
  const cols = props.dataset.columns.filter((c) => c.type !== 'timestamp')
  const [chosen, setChosen] = useState<string[]>([])
  const [bins, setBins] = useState<Record<string, string>>({})
  const [metric, setMetric] = useState<AnomalyIdentificationDefinition['metric']>('l1')
  const [radius, setRadius] = useState('1')
  const [beta, setBeta] = useState('')
  const [k, setK] = useState('5')
  const [records, setRecords] = useState('')

  const build = (): AnomalyIdentificationDefinition | string => {
    if (chosen.length === 0) return 'Choose the columns that describe a record.'
    const binWidths: Array<number | null> = []
    for (const name of chosen) {
      const c = cols.find((x) => x.name === name)!
      if (c.type === 'text') binWidths.push(null)
      else {
        const b = parseNumber(bins[name] ?? '')
        if (b === null || b <= 0) return `Give the bin width of "${name}" (> 0): values in one bin count as equal.`
        binWidths.push(b)
      }
    }
    const r = parseNumber(radius)
    const bt = parseNumber(beta)
    const kk = parseNumber(k)
    if (r === null || r < 0) return 'Give the radius (in bins): records within it are neighbours.'
    if (bt === null) return 'Give beta: a record with at most beta neighbours is an anomaly.'
    if (kk === null || !Number.isInteger(kk) || kk < 1) return 'Give k (a whole number): how many added records a sensitive record tolerates.'
    const recs = records
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .map((l) =>
        l.split(',').map((v, j) => {
          const c = cols.find((x) => x.name === chosen[j])
          const n = Number(v.trim())
          return c && c.type !== 'text' && v.trim() !== '' && Number.isFinite(n) ? n : v.trim()
        })
      )
    if (recs.length === 0) return 'List at least one record to ask about, one per line.'
    return { kind: 'anomaly-identification', columns: chosen, binWidths, metric, radius: r, beta: bt, k: kk, records: recs }
  }
  const built = build()
  useHandUp(built, props.onChange)

  return (
    <div className="stack-tight" data-testid="aiq-builder">
      <fieldset>
        <legend>Columns of a record, and their bins</legend>
        {cols.map((c) => (
          <div className="row" key={c.name}>
            <label className="check">
              <input
                type="checkbox"
                checked={chosen.includes(c.name)}
                onChange={(e) => setChosen(e.target.checked ? [...chosen, c.name] : chosen.filter((x) => x !== c.name))}
                data-testid={`aiq-column-${c.name}`}
              />
              {c.name} <span className="hint">({c.type === 'text' ? 'categories' : 'numbers'})</span>
            </label>
            {chosen.includes(c.name) && c.type !== 'text' && (
              <NumberField
                label={`Bin width of ${c.name}`}
                value={bins[c.name] ?? ''}
                onChange={(v) => setBins({ ...bins, [c.name]: v })}
                testId={`aiq-bin-${c.name}`}
              />
            )}
          </div>
        ))}
      </fieldset>
      <div className="row">
        <SelectField
          label="Distance"
          value={metric}
          onChange={setMetric}
          options={[
            { value: 'l1', label: 'L1 (sum of bin differences)' },
            { value: 'linf', label: 'L∞ (largest bin difference)' },
            { value: 'l2', label: 'L2 (Euclidean)' },
            { value: 'hamming', label: 'Hamming (columns that differ)' }
          ]}
        />
        <NumberField label="Radius (bins)" value={radius} onChange={setRadius} testId="aiq-radius" />
        <NumberField label="Beta (neighbours)" value={beta} onChange={setBeta} testId="aiq-beta" hint="At most beta neighbours: an anomaly." />
        <NumberField label="k" value={k} onChange={setK} testId="aiq-k" hint="For sensitive privacy." />
      </div>
      <div className="field">
        <label htmlFor="aiq-records">Records to ask about (one per line, values in the order of the columns, comma separated)</label>
        <textarea id="aiq-records" rows={4} value={records} onChange={(e) => setRecords(e.target.value)} data-testid="aiq-records" />
      </div>
    </div>
  )
}
