import { useState } from 'react'
import { useHandUp } from './useHandUp'
import type { DatasetInfo, FilterOperator, ThresholdQueryDefinition } from '../../../../src-main/contract'
import { NumberField, SelectField, TextField } from '../../components/Fields'
import { href } from '../../sections'
import { type ThresholdForm, buildThresholdDefinition, defaultMapping, noPublicSourceReason, publicSources } from './thresholdDefinition'
import { preferredPersonColumn, preferredThresholdTable } from './columnDefaultsDefinition'
import { useGroupCount } from './useGroupCount'

const OPS: FilterOperator[] = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'is null', 'is not null']

/**
 * Threshold query: group by, the groups (public: from a public dataset or listed), filter, period, count (with "count
 * each person at most N times"), thresholds. Returns the definition (or a sentence saying what is missing) to its parent
 * on every change; `buildThresholdDefinition` (pure) does the work.
 */
export function ThresholdBuilder(props: {
  dataset: DatasetInfo
  datasets: DatasetInfo[]
  onChange: (d: ThresholdQueryDefinition | string) => void
}) {
  const cols = props.dataset.columns
  const timeCols = cols.filter((c) => c.type === 'timestamp')
  const sources = publicSources(props.dataset, props.datasets)
  const privateOthers = props.datasets.filter((d) => !d.public && d.id !== props.dataset.id)
  const [form, setForm] = useState<ThresholdForm>(() => ({
    groupBy: [],
    filters: [],
    period: { on: false, column: timeCols[0]?.name ?? '', from: '', to: '' },
    count: { kind: 'rows', personColumn: props.dataset.unit.kind === 'person' ? props.dataset.unit.column : '', cap: '1' },
    threshold: {
      kind: 'constant',
      constant: '',
      // '' = the preferred table for the group-by columns (defaults.ts), until the user chooses one.
      datasetId: '',
      column: '',
      on: {},
      reference: { factor: '1', aggregate: 'max', bucket: 'day', column: timeCols[0]?.name ?? '', from: '', to: '' }
    },
    groups: { source: sources.length > 0 ? 'dataset' : 'listed', datasetId: sources[0] ? String(sources[0].id) : '', on: {}, listed: '' }
  }))
  const { groupBy, filters, period } = form
  const setFilters = (f: ThresholdForm['filters']) => setForm({ ...form, filters: f })
  const setPeriod = (p: Partial<ThresholdForm['period']>) => setForm({ ...form, period: { ...period, ...p } })
  const setCount = (c: Partial<ThresholdForm['count']>) => setForm({ ...form, count: { ...form.count, ...c } })
  const thr = form.threshold
  const setThr = (t: Partial<ThresholdForm['threshold']>) => setForm({ ...form, threshold: { ...thr, ...t } })
  const ref = thr.reference
  const setRef = (r: Partial<ThresholdForm['threshold']['reference']>) => setThr({ reference: { ...ref, ...r } })
  const groups = form.groups
  const setGroups = (g: Partial<ThresholdForm['groups']>) => setForm({ ...form, groups: { ...groups, ...g } })

  const thrDs = sources.find((d) => String(d.id) === thr.datasetId) ?? (thr.datasetId === '' ? (preferredThresholdTable(sources, groupBy) ?? undefined) : undefined)
  const numericThrCols = thrDs?.columns.filter((c) => c.type === 'integer' || c.type === 'real') ?? []
  const groupDs = sources.find((d) => String(d.id) === groups.datasetId)
  // The mappings follow the group-by columns and the chosen table: same name by default, the user's choice kept.
  const thrOn = defaultMapping(groupBy, thrDs, thr.on)
  const groupsOn = defaultMapping(groupBy, groupDs, groups.on)

  const personOptions = cols.filter((c) => !groupBy.includes(c.name)).map((c) => ({ value: c.name, label: c.name }))
  // The person column shown: the chosen one while it is offered, else the one whose name and type say it names a person.
  const personColumn = personOptions.some((o) => o.value === form.count.personColumn)
    ? form.count.personColumn
    : (preferredPersonColumn(cols.filter((c) => !groupBy.includes(c.name))) ?? personOptions[0]?.value ?? '')

  const built = buildThresholdDefinition(
    { ...form, count: { ...form.count, personColumn }, threshold: { ...thr, datasetId: thrDs ? String(thrDs.id) : thr.datasetId, on: thrOn }, groups: { ...groups, on: groupsOn } },
    props.dataset,
    props.datasets
  )
  useHandUp(built, props.onChange)
  // The groups asked about, counted from public inputs only, while the rest of the question may still be incomplete: the
  // same form with a placeholder count and threshold value (neither changes which groups are asked about).
  const groupsOnly = buildThresholdDefinition(
    {
      ...form,
      filters: [],
      period: { ...period, on: false },
      count: { kind: 'rows', personColumn: '', cap: '1' },
      threshold: { ...thr, constant: '0', column: thr.column || (numericThrCols[0]?.name ?? ''), datasetId: thrDs ? String(thrDs.id) : thr.datasetId, on: thrOn, reference: { ...ref, factor: '1', from: 'x', to: 'x' } },
      groups: { ...groups, on: groupsOn }
    },
    props.dataset,
    props.datasets
  )
  const groupCount = useGroupCount(groupsOnly, props.datasets)

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
                // Kept in the dataset's column order, whatever order they were ticked in ("building × room").
                onChange={(e) => setForm({ ...form, groupBy: cols.map((x) => x.name).filter((n) => (n === c.name ? e.target.checked : groupBy.includes(n))) })}
                data-testid={`groupby-${c.name}`}
              />
              {c.name}
            </label>
          ))}
        </div>
      </fieldset>

      <fieldset data-testid="groups-section">
        <legend>Groups (which ones are asked about)</legend>
        {thr.kind === 'column' ? (
          <p className="hint" data-testid="groups-from-threshold-table">
            With thresholds from a table, the groups are that table’s rows{thrDs ? <> (“{thrDs.name}”)</> : null}: one predicate per row, see Thresholds below.
          </p>
        ) : (
          <>
            <p className="hint">
              The list of groups is released with the answer, so it must be public: it cannot be read from “{props.dataset.name}” (that would
              reveal which {groupBy.length > 0 ? `${groupBy.join(' × ')} values` : 'keys'} occur in it). Groups with no row are asked about too and count 0.
            </p>
            <div className="radios" role="radiogroup" aria-label="Groups come from">
              <label className="check">
                <input type="radio" name="groups-source" checked={groups.source === 'dataset'} onChange={() => setGroups({ source: 'dataset' })} data-testid="groups-source-dataset" />
                From a public dataset
              </label>
              <label className="check">
                <input type="radio" name="groups-source" checked={groups.source === 'listed'} onChange={() => setGroups({ source: 'listed' })} data-testid="groups-source-listed" />
                Listed here
              </label>
            </div>
            {groups.source === 'dataset' &&
              (sources.length === 0 ? (
                <p className="hint" data-testid="groups-no-public">
                  {noPublicSourceReason(props.dataset, props.datasets, 'Groups from a dataset')} <a href={href('datasets')}>Datasets</a>
                </p>
              ) : (
                <div className="row">
                  <SelectField
                    label="Group list dataset"
                    value={groups.datasetId}
                    onChange={(datasetId) => setGroups({ datasetId })}
                    options={[...(groupDs ? [] : [{ value: '', label: 'Choose…' }]), ...sources.map((d) => ({ value: String(d.id), label: d.name }))]}
                    testId="groups-dataset"
                    hint={<>Each distinct row of its matching columns is one group.{privateOthers.length > 0 ? ' Private datasets are not offered.' : ''}</>}
                  />
                  {groupDs &&
                    groupBy.map((g) => (
                      <SelectField
                        key={g}
                        label={`Column matching ${g}`}
                        value={groupsOn[g] ?? ''}
                        onChange={(c) => setGroups({ on: { ...groupsOn, [g]: c } })}
                        options={[...(groupsOn[g] ? [] : [{ value: '', label: 'Choose…' }]), ...groupDs.columns.map((c) => ({ value: c.name, label: c.name }))]}
                        testId={`groups-on-${g}`}
                      />
                    ))}
                </div>
              ))}
            {groups.source === 'listed' && (
              <div className="field wide">
                <label htmlFor="groups-listed">
                  Groups, one per line{groupBy.length > 0 ? <> ({groupBy.join(', ')}, separated by commas)</> : null}
                </label>
                <textarea
                  id="groups-listed"
                  rows={5}
                  value={groups.listed}
                  onChange={(e) => setGroups({ listed: e.target.value })}
                  placeholder={groupBy.length > 0 ? groupBy.map((g) => `${g} value`).join(', ') : 'Choose the group-by columns first'}
                  data-testid="groups-listed"
                  aria-describedby="groups-listed-hint"
                />
                <span className="field-hint" id="groups-listed-hint">
                  Leave a value empty for an empty field; put a value holding a comma in double quotes.
                </span>
              </div>
            )}
          </>
        )}
      </fieldset>

      {groupCount && (
        <p className="hint group-count" data-testid="group-count" role="status">
          {groupCount}
        </p>
      )}

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
            <input type="checkbox" checked={period.on} onChange={(e) => setPeriod({ on: e.target.checked })} data-testid="period-on" />
            Only rows in a period
          </label>
          {period.on && (
            <div className="row">
              <SelectField
                label="Time column"
                value={period.column}
                onChange={(column) => setPeriod({ column })}
                options={timeCols.map((c) => ({ value: c.name, label: c.name }))}
              />
              <TextField label="From (inclusive)" value={period.from} onChange={(from) => setPeriod({ from })} placeholder="2024-03-12 14:00:00" testId="period-from" />
              <TextField label="To (exclusive)" value={period.to} onChange={(to) => setPeriod({ to })} placeholder="2024-03-12 15:00:00" testId="period-to" />
            </div>
          )}
        </fieldset>
      )}

      <fieldset>
        <legend>Count</legend>
        <div className="row">
          <SelectField
            label="What is counted"
            value={form.count.kind}
            onChange={(kind) => setCount({ kind })}
            options={[
              { value: 'rows', label: 'Rows (each row counts once)' },
              { value: 'persons', label: 'Persons (each person counts at most N times)' }
            ]}
            testId="count-kind"
          />
          {form.count.kind === 'persons' && (
            <>
              <SelectField
                label="Person column"
                value={personColumn}
                onChange={(c) => setCount({ personColumn: c })}
                options={personOptions}
                testId="count-person"
              />
              <NumberField
                label="Count each person at most"
                value={form.count.cap}
                onChange={(cap) => setCount({ cap })}
                testId="count-cap"
                hint="times per group. A larger cap costs proportionally more ε."
              />
              {props.dataset.unit.kind === 'person' && (
                <NumberField
                  label="Groups one person may add to"
                  value={form.count.maxGroups ?? ''}
                  onChange={(maxGroups) => setCount({ maxGroups })}
                  testId="count-max-groups"
                  hint="per release (empty: every group). The price is this many groups × the cap × ε per group; a person found in more groups keeps a random subset of this many."
                />
              )}
            </>
          )}
        </div>
      </fieldset>

      <fieldset>
        <legend>Thresholds</legend>
        <div className="row">
          <SelectField
            label="Threshold of each group"
            value={thr.kind}
            onChange={(kind) => setThr({ kind })}
            options={[
              { value: 'constant', label: 'The same number for every group' },
              { value: 'column', label: 'From a public table (e.g. capacities)' },
              { value: 'reference', label: 'Factor × a reference period' }
            ]}
            testId="threshold-kind"
          />
          {thr.kind === 'constant' && <NumberField label="Threshold" value={thr.constant} onChange={(constant) => setThr({ constant })} testId="threshold-constant" />}
          {thr.kind === 'column' &&
            (sources.length === 0 ? (
              <p className="hint" data-testid="threshold-no-public">
                {noPublicSourceReason(props.dataset, props.datasets, 'Thresholds from a table')} <a href={href('datasets')}>Datasets</a>
              </p>
            ) : (
              <>
                <SelectField
                  label="Threshold table"
                  value={thrDs ? String(thrDs.id) : ''}
                  onChange={(datasetId) => setThr({ datasetId, column: '' })}
                  options={[...(thrDs ? [] : [{ value: '', label: 'Choose…' }]), ...sources.map((d) => ({ value: String(d.id), label: d.name }))]}
                  testId="threshold-table"
                  hint={
                    privateOthers.length > 0
                      ? `Only public datasets are offered: each group's threshold is shown with its decision. Not offered (private): ${privateOthers.map((d) => d.name).join(', ')}.`
                      : "Only public datasets are offered: each group's threshold is shown with its decision."
                  }
                />
                <SelectField
                  label="Threshold column"
                  value={thr.column}
                  onChange={(column) => setThr({ column })}
                  options={[{ value: '', label: 'Choose…' }, ...numericThrCols.map((c) => ({ value: c.name, label: c.name }))]}
                  testId="threshold-column"
                  hint="One group per row of the table."
                />
                {thrDs &&
                  groupBy.map((g) => (
                    <SelectField
                      key={g}
                      label={`Table column matching ${g}`}
                      value={thrOn[g] ?? ''}
                      onChange={(c) => setThr({ on: { ...thrOn, [g]: c } })}
                      options={[...(thrOn[g] ? [] : [{ value: '', label: 'Choose…' }]), ...thrDs.columns.map((c) => ({ value: c.name, label: c.name }))]}
                      testId={`threshold-on-${g}`}
                    />
                  ))}
              </>
            ))}
          {thr.kind === 'reference' && (
            <>
              <NumberField label="Factor" value={ref.factor} onChange={(factor) => setRef({ factor })} />
              <SelectField label="Of the" value={ref.aggregate} onChange={(aggregate) => setRef({ aggregate })} options={[{ value: 'max', label: 'maximum' }, { value: 'mean', label: 'mean' }]} />
              <SelectField label="Per" value={ref.bucket} onChange={(bucket) => setRef({ bucket })} options={[{ value: 'hour', label: 'hour' }, { value: 'day', label: 'day' }]} />
              <TextField label="Reference from" value={ref.from} onChange={(from) => setRef({ from })} placeholder="2024-03-04" />
              <TextField label="Reference to" value={ref.to} onChange={(to) => setRef({ to })} placeholder="2024-03-09" />
            </>
          )}
        </div>
      </fieldset>
    </div>
  )
}
