import { useState } from 'react'
import type { AnomalyIdentificationDefinition, DatasetInfo } from '../../../../src-main/contract'
import { NumberField, SelectField } from '../../components/Fields'
import { type AiqForm, BLANK_AIQ_FORM, aiqColumns, aiqFormFromDefinition, buildAiqDefinition } from './aiqDefinition'
import { useHandUp } from './useHandUp'

/**
 * Anomaly identification: columns and bins, radius, beta, k, and the records to ask about. `initial`: a saved query
 * being edited (its next version starts from it). `buildAiqDefinition` (aiqDefinition.ts, pure) does the work.
 */
export function AnomalyIdBuilder(props: {
  dataset: DatasetInfo
  initial?: AnomalyIdentificationDefinition
  onChange: (d: AnomalyIdentificationDefinition | string) => void
}) {
  const cols = aiqColumns(props.dataset)
  const [form, setForm] = useState<AiqForm>(() => (props.initial ? aiqFormFromDefinition(props.initial) : BLANK_AIQ_FORM))
  const set = (p: Partial<AiqForm>) => setForm({ ...form, ...p })
  const { chosen, bins, metric, radius, beta, k, records } = form
  const built = buildAiqDefinition(form, props.dataset)
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
                onChange={(e) => set({ chosen: e.target.checked ? [...chosen, c.name] : chosen.filter((x) => x !== c.name) })}
                data-testid={`aiq-column-${c.name}`}
              />
              {c.name} <span className="hint">({c.type === 'text' ? 'categories' : 'numbers'})</span>
            </label>
            {chosen.includes(c.name) && c.type !== 'text' && (
              <NumberField
                label={`Bin width of ${c.name}`}
                value={bins[c.name] ?? ''}
                onChange={(v) => set({ bins: { ...bins, [c.name]: v } })}
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
          onChange={(m) => set({ metric: m })}
          options={[
            { value: 'l1', label: 'L1 (sum of bin differences)' },
            { value: 'linf', label: 'L∞ (largest bin difference)' },
            { value: 'l2', label: 'L2 (Euclidean)' },
            { value: 'hamming', label: 'Hamming (columns that differ)' }
          ]}
        />
        <NumberField label="Radius (bins)" value={radius} onChange={(v) => set({ radius: v })} testId="aiq-radius" />
        <NumberField
          label="Beta (neighbours)"
          value={beta}
          onChange={(v) => set({ beta: v })}
          testId="aiq-beta"
          hint="At most beta neighbours: an anomaly."
        />
        <NumberField label="k" value={k} onChange={(v) => set({ k: v })} testId="aiq-k" hint="For sensitive privacy." />
      </div>
      <div className="field">
        <label htmlFor="aiq-records">Records to ask about (one per line, values in the order of the columns, comma separated)</label>
        <textarea id="aiq-records" rows={4} value={records} onChange={(e) => set({ records: e.target.value })} data-testid="aiq-records" />
      </div>
      {props.dataset.unit.kind === 'person' && (
        <NumberField
          label="Most rows per person"
          value={form.maxRowsPerPerson}
          onChange={(v) => set({ maxRowsPerPerson: v })}
          testId="aiq-max-rows"
          hint="The charge is multiplied by it; empty: 1."
        />
      )}
    </div>
  )
}
