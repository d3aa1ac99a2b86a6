import { useState } from 'react'
import type { AnomalyIdentificationDefinition, DatasetInfo } from '../../../../src-main/contract'
import { NumberField, SelectField } from '../../components/Fields'
import { type AiqForm, BIN_WIDTH_HINT, BLANK_AIQ_FORM, aiqColumns, aiqFormFromDefinition, buildAiqDefinition, timeColumnsHint } from './aiqDefinition'
import { useHandUp } from './useHandUp'

/**
 * Anomaly identification: columns and bins, radius, the neighbour limit, k, the records to ask about, and on a
 * person-level dataset what one person counts near each record (rows per bin, bins per person: the charge's factor).
 * `initial`: a saved query being edited (its next version starts from it). `buildAiqDefinition` (aiqDefinition.ts,
 * pure) does the work.
 */
export function AnomalyIdBuilder(props: {
  dataset: DatasetInfo
  initial?: AnomalyIdentificationDefinition
  onChange: (d: AnomalyIdentificationDefinition | string) => void
}) {
  const cols = aiqColumns(props.dataset)
  const [form, setForm] = useState<AiqForm>(() => (props.initial ? aiqFormFromDefinition(props.initial) : BLANK_AIQ_FORM))
  const set = (p: Partial<AiqForm>) => setForm({ ...form, ...p })
  const { chosen, bins, metric, radius, maxNeighbours, k, records } = form
  const personLevel = props.dataset.unit.kind === 'person'
  const built = buildAiqDefinition(form, props.dataset)
  const timeHint = timeColumnsHint(props.dataset)
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
                hint={BIN_WIDTH_HINT}
              />
            )}
          </div>
        ))}
        {timeHint && (
          <p className="hint" data-testid="aiq-time-columns">
            {timeHint}
          </p>
        )}
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
          label="Max neighbours"
          value={maxNeighbours}
          onChange={(v) => set({ maxNeighbours: v })}
          testId="aiq-max-neighbours"
          hint={`At most this many ${personLevel ? 'persons' : 'records'} within the radius (itself included): an anomaly.`}
        />
        <NumberField label="k" value={k} onChange={(v) => set({ k: v })} testId="aiq-k" hint="For sensitive privacy." />
      </div>
      {personLevel && (
        <fieldset data-testid="aiq-person-bound">
          <legend>What one person counts near a record asked</legend>
          <div className="row">
            <NumberField
              label="Rows per bin"
              value={form.rowsPerBin}
              onChange={(v) => set({ rowsPerBin: v })}
              testId="aiq-rows-per-bin"
              hint="A person's rows in one bin count at most this often."
            />
            <NumberField
              label="Bins per person"
              value={form.binsPerPerson}
              onChange={(v) => set({ binsPerPerson: v })}
              testId="aiq-bins-per-person"
              hint="In at most this many bins within the radius (the record's own bin first)."
            />
          </div>
          <p className="hint" data-testid="aiq-person-bound-why">
            “{props.dataset.unit.kind === 'person' ? props.dataset.unit.column : ''}” has many rows per person. Near each record asked, a person
            counts at most rows per bin × bins per person rows, and the price is that many times ε per record. At 1 and 1 (the default) every person
            near a record counts once, so the neighbour limit counts persons and the price is what each row alone would cost; a record whose rows are
            anomalous stays anomalous (its own bin is counted first). Raise them to count frequent visitors more, at that factor’s price.
          </p>
        </fieldset>
      )}
      <div className="field">
        <label htmlFor="aiq-records">Records to ask about (one per line, values in the order of the columns, comma separated)</label>
        <textarea id="aiq-records" rows={4} value={records} onChange={(e) => set({ records: e.target.value })} data-testid="aiq-records" />
      </div>
    </div>
  )
}
