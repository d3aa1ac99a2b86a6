import { useState } from 'react'
import { useHandUp } from './useHandUp'
import type { DatasetInfo, FilterCondition, FilterOperator, ThresholdQueryDefinition, ThresholdSpec } from '../../../../src-main/contract'
import { NumberField, SelectField, TextField, parseList, parseNumber } from '../../components/Fields'

const OPS: FilterOperator[] = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'is null', 'is not null']

interface FilterRow {
  column: string
  op: FilterOperator
  value: string
}

/**
 * Threshold query: filter, period, group by, count (with "count each person at most N times"), thresholds.
 * Returns the definition (or a sentence saying what is missing) to its parent on every change.
 */
export function ThresholdBuilder(props: {
  dataset: DatasetInfo
  datasets: DatasetInfo[]
  onChange: (d: ThresholdQueryDefinition | string) => void
}) {
  const cols = props.dataset.columns
  const timeCols = cols.filter((c) => c.type === 'timestamp')
  const [groupBy, setGroupBy] = useState<string[]>([])
  const [filters, setFilters] = useState<FilterRow[]>([])
  const [periodOn, setPeriodOn] = useState(false)
  const [period, setPeriod] = useState({ column: timeCols[0]?.name ?? '', from: '', to: '' })
  const [countKind, setCountKind] = useState<'rows' | 'persons'>('rows')
  const [personColumn, setPersonColumn] = useState(cols[0]?.name ?? '')
  const [cap, setCap] = useState('1')
  const [thrKind, setThrKind] = useState<ThresholdSpec['kind']>('constant')
  const [constant, setConstant] = useState('')
  const others = props.datasets.filter((d) => d.id !== props.dataset.id)
  const [thrDataset, setThrDataset] = useState<string>(others[0] ? String(others[0].id) : '')
  const [thrColumn, setThrColumn] = useState('')
  const [ref, setRef] = useState({ factor: '1', aggregate: 'max' as 'max' | 'mean', bucket: 'day' as 'hour' | 'day', column: timeCols[0]?.name ?? '', from: '', to: '' })

  const thrDs = others.find((d) => String(d.id) === thrDataset)
  const numericThrCols = thrDs?.columns.filter((c) => c.type === 'integer' || c.type === 'real') ?? []

  // Build the definition from the state on every render and hand it up.
  const build = (): ThresholdQueryDefinition | string => {
    if (groupBy.length === 0) return 'Choose at least one group-by column: each group is one predicate (for example each room).'
    const filter: FilterCondition[] = []
    for (const f of filters) {
      if (!f.column) continue
      if (f.op === 'is null' || f.op === 'is not null') filter.push({ column: f.column, op: f.op })
      else if (f.op === 'in' || f.op === 'not in') filter.push({ column: f.column, op: f.op, value: parseList(f.value) })
      else {
        const n = Number(f.value)
        const col = cols.find((c) => c.name === f.column)
        const numeric = col && (col.type === 'integer' || col.type === 'real')
        filter.push({ column: f.column, op: f.op, value: numeric && f.value.trim() !== '' && Number.isFinite(n) ? n : f.value })
      }
    }
    let count: ThresholdQueryDefinition['count'] = { kind: 'rows' }
    if (countKind === 'persons') {
      const c = parseNumber(cap)
      if (c === null || !Number.isInteger(c) || c < 1) return 'Say how many times each person may count at most (a whole number, 1 or more).'
      count = { kind: 'persons', personColumn, cap: c }
    }
    let threshold: ThresholdSpec
    if (thrKind === 'constant') {
      const v = parseNumber(constant)
      if (v === null) return 'Give the threshold: the count above which a group is flagged.'
      threshold = { kind: 'constant', value: v }
    } else if (thrKind === 'column') {
      if (!thrDs || !thrColumn) return 'Choose the table and the column that hold the thresholds.'
      threshold = { kind: 'column', datasetId: thrDs.id, column: thrColumn }
    } else {
      const factor = parseNumber(ref.factor)
      if (factor === null || factor <= 0) return 'Give the factor (> 0) that multiplies the reference period.'
      if (!ref.from || !ref.to) return 'Give the reference period (from and to).'
      threshold = { kind: 'reference', factor, aggregate: ref.aggregate, bucket: ref.bucket, column: ref.column || undefined, from: ref.from, to: ref.to }
    }
    const d: ThresholdQueryDefinition = { kind: 'threshold', groupBy, count, threshold }
    if (filter.length > 0) d.filter = filter
    if (periodOn) {
      if (!period.column || !period.from || !period.to) return 'Give the period: a timestamp column, from and to.'
      d.period = { ...period }
    }
    return d
  }
  const built = build()
  useHandUp(built, props.onChange)

  return (
    <div className="stack-tight" data-testid="threshold-builder">
      <fieldset>
        <legend>Group by (each group is one predicate)</legend>
        <div className="checks">
          {cols.map((c) => (
            <label key={c.name} className="check">
              <input
                type="checkbox"
                checked={groupBy.includes(c.name)}
                onChange={(e) => setGroupBy(e.target.checked ? [...groupBy, c.name] : groupBy.filter((x) => x !== c.name))}
                data-testid={`groupby-${c.name}`}
              />
              {c.name}
            </label>
          ))}
        </div>
      </fieldset>

      <fieldset>
        <legend>Filter (all conditions must hold)</legend>
        {filters.length === 0 && <p className="hint">No filter: every row counts.</p>}
        {filters.map((f, i) => (
          <div className="row" key={i}>
            <SelectField
              label="Column"
              value={f.column}
              onChange={(column) => setFilters(filters.map((x, j) => (j === i ? { ...x, column } : x)))}
              options={cols.map((c) => ({ value: c.name, label: c.name }))}
            />
            <SelectField
              label="Condition"
              value={f.op}
              onChange={(op) => setFilters(filters.map((x, j) => (j === i ? { ...x, op } : x)))}
              options={OPS.map((o) => ({ value: o, label: o }))}
            />
            {f.op !== 'is null' && f.op !== 'is not null' && (
              <TextField
                label={f.op === 'in' || f.op === 'not in' ? 'Values (comma separated)' : 'Value'}
                value={f.value}
                onChange={(value) => setFilters(filters.map((x, j) => (j === i ? { ...x, value } : x)))}
              />
            )}
            <div className="field actions">
              <button type="button" className="secondary" onClick={() => setFilters(filters.filter((_, j) => j !== i))}>
                Remove condition
              </button>
            </div>
          </div>
        ))}
        <button type="button" className="secondary small" onClick={() => setFilters([...filters, { column: cols[0]?.name ?? '', op: '=', value: '' }])}>
          Add a condition
        </button>
      </fieldset>

      {timeCols.length > 0 && (
        <fieldset>
          <legend>Period</legend>
          <label className="check">
            <input type="checkbox" checked={periodOn} onChange={(e) => setPeriodOn(e.target.checked)} data-testid="period-on" />
            Only rows in a period
          </label>
          {periodOn && (
            <div className="row">
              <SelectField
                label="Time column"
                value={period.column}
                onChange={(column) => setPeriod({ ...period, column })}
                options={timeCols.map((c) => ({ value: c.name, label: c.name }))}
              />
              <TextField label="From (inclusive)" value={period.from} onChange={(from) => setPeriod({ ...period, from })} placeholder="2024-03-12 14:00:00" testId="period-from" />
              <TextField label="To (exclusive)" value={period.to} onChange={(to) => setPeriod({ ...period, to })} placeholder="2024-03-12 15:00:00" testId="period-to" />
            </div>
          )}
        </fieldset>
      )}

      <fieldset>
        <legend>Count</legend>
        <div className="row">
          <SelectField
            label="What is counted"
            value={countKind}
            onChange={setCountKind}
            options={[
              { value: 'rows', label: 'Rows (each row counts once)' },
              { value: 'persons', label: 'Persons (each person counts at most N times)' }
            ]}
            testId="count-kind"
          />
          {countKind === 'persons' && (
            <>
              <SelectField
                label="Person column"
                value={personColumn}
                onChange={setPersonColumn}
                options={cols.filter((c) => !groupBy.includes(c.name)).map((c) => ({ value: c.name, label: c.name }))}
                testId="count-person"
              />
              <NumberField
                label="Count each person at most"
                value={cap}
                onChange={setCap}
                testId="count-cap"
                hint="times per group. A larger cap costs proportionally more ε."
              />
            </>
          )}
        </div>
      </fieldset>

      <fieldset>
        <legend>Thresholds</legend>
        <div className="row">
          <SelectField
            label="Threshold of each group"
            value={thrKind}
            onChange={setThrKind}
            options={[
              { value: 'constant', label: 'The same number for every group' },
              { value: 'column', label: 'From another table (e.g. capacities)' },
              { value: 'reference', label: 'Factor × a reference period' }
            ]}
            testId="threshold-kind"
          />
          {thrKind === 'constant' && <NumberField label="Threshold" value={constant} onChange={setConstant} testId="threshold-constant" />}
          {thrKind === 'column' &&
            (others.length === 0 ? (
              <p className="hint">Import the table of thresholds first (Datasets).</p>
            ) : (
              <>
                <SelectField
                  label="Threshold table"
                  value={thrDataset}
                  onChange={(v) => {
                    setThrDataset(v)
                    setThrColumn('')
                  }}
                  options={others.map((d) => ({ value: String(d.id), label: d.name }))}
                  testId="threshold-table"
                />
                <SelectField
                  label="Threshold column"
                  value={thrColumn}
                  onChange={setThrColumn}
                  options={[{ value: '', label: 'Choose…' }, ...numericThrCols.map((c) => ({ value: c.name, label: c.name }))]}
                  testId="threshold-column"
                  hint="Rows are matched on the group-by columns' names."
                />
              </>
            ))}
          {thrKind === 'reference' && (
            <>
              <NumberField label="Factor" value={ref.factor} onChange={(factor) => setRef({ ...ref, factor })} />
              <SelectField label="Of the" value={ref.aggregate} onChange={(aggregate) => setRef({ ...ref, aggregate })} options={[{ value: 'max', label: 'maximum' }, { value: 'mean', label: 'mean' }]} />
              <SelectField label="Per" value={ref.bucket} onChange={(bucket) => setRef({ ...ref, bucket })} options={[{ value: 'hour', label: 'hour' }, { value: 'day', label: 'day' }]} />
              <TextField label="Reference from" value={ref.from} onChange={(from) => setRef({ ...ref, from })} placeholder="2024-03-04" />
              <TextField label="Reference to" value={ref.to} onChange={(to) => setRef({ ...ref, to })} placeholder="2024-03-09" />
            </>
          )}
        </div>
      </fieldset>
      {typeof built === 'string' && <p className="hint todo">{built}</p>}
    </div>
  )
}
