import { useReducer } from 'react'
import { useHandUp } from './useHandUp'
import type { DatasetInfo, FilterOperator, ThresholdQueryDefinition } from '../../../../src-main/contract'
import { NumberField, SelectField, TextField } from '../../components/Fields'
import { href } from '../../sections'
import {
  type ThresholdForm,
  exactTimeHint,
  groupNames,
  groupedByTime,
  listBuckets,
  noPublicSourceReason,
  publicSources,
  resolveThresholdForm
} from './thresholdDefinition'
import { initialThresholdForm, thresholdFormReducer } from './thresholdBuilderState'
import { useGroupCount } from './useGroupCount'

const OPS: FilterOperator[] = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'is null', 'is not null']

/**
 * Threshold query: group by, the groups (public: from a public dataset or listed), filter, period, count (with "count
 * each person at most N times"), thresholds. Returns the definition (or a sentence saying what is missing) to its parent
 * on every change. The state is one `ThresholdForm` changed by `thresholdFormReducer` (thresholdBuilderState.ts);
 * `resolveThresholdForm` and `buildThresholdDefinition` (thresholdDefinition.ts, pure) do the rest.
 */
export function ThresholdBuilder(props: {
  dataset: DatasetInfo
  datasets: DatasetInfo[]
  /** A saved query being edited: its next version starts from it. */
  initial?: ThresholdQueryDefinition
  onChange: (d: ThresholdQueryDefinition | string) => void
}) {
  const cols = props.dataset.columns
  const timeCols = cols.filter((c) => c.type === 'timestamp')
  const sources = publicSources(props.dataset, props.datasets)
  const privateOthers = props.datasets.filter((d) => !d.public && d.id !== props.dataset.id)
  const [form, dispatch] = useReducer(
    thresholdFormReducer,
    { dataset: props.dataset, datasets: props.datasets, initial: props.initial },
    initialThresholdForm
  )
  const { groupBy, filters, period, groups } = form
  const thr = form.threshold
  const ref = thr.reference
  const setPeriod = (patch: Partial<ThresholdForm['period']>) => dispatch({ type: 'period', patch })
  const setCount = (patch: Partial<ThresholdForm['count']>) => dispatch({ type: 'count', patch })
  const setThr = (patch: Partial<ThresholdForm['threshold']>) => dispatch({ type: 'threshold', patch })
  const setRef = (patch: Partial<ThresholdForm['threshold']['reference']>) => dispatch({ type: 'reference', patch })
  const setGroups = (patch: Partial<ThresholdForm['groups']>) => dispatch({ type: 'groups', patch })

  const resolved = resolveThresholdForm(form, props.dataset, props.datasets)
  const {
    thresholdTable: thrDs,
    numericThresholdColumns: numericThrCols,
    groupsTable: groupDs,
    thresholdOn: thrOn,
    groupsOn,
    personColumn
  } = resolved
  const personOptions = resolved.personOptions.map((c) => ({ value: c, label: c }))
  useHandUp(resolved.definition, props.onChange)
  const groupCount = useGroupCount(resolved.groupsOnly, props.datasets)
  const byTime = groupedByTime(form)
  const names = groupNames(form)
  const timeHint = exactTimeHint(form, props.dataset)
  const timeGrouped = groupBy.filter((g) => timeCols.some((c) => c.name === g))
  const buckets = byTime ? listBuckets(form) : null

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
                onChange={(e) => dispatch({ type: 'groupBy', column: c.name, on: e.target.checked, order: cols.map((x) => x.name) })}
                data-testid={`groupby-${c.name}`}
              />
              {c.name}
            </label>
          ))}
        </div>
        {timeGrouped.map((g) => (
          <div className="row" key={g}>
            <SelectField
              label={`Group “${g}” by`}
              value={form.byTime?.column === g ? form.byTime.per : ''}
              onChange={(per) => dispatch({ type: 'byTime', patch: { column: g, per } })}
              options={[
                { value: '', label: 'its exact time' },
                { value: 'hour', label: 'hour' },
                { value: 'day', label: 'day' },
                { value: 'week', label: 'week (from Monday)' }
              ]}
              testId={`time-bucket-${g}`}
              hint="Hours, days and weeks of the times as the file writes them; each is named by its start."
            />
          </div>
        ))}
        {timeHint && (
          <p className="hint" data-testid="exact-time-hint">
            {timeHint}
          </p>
        )}
      </fieldset>

      <fieldset data-testid="groups-section">
        <legend>Groups (which ones are asked about)</legend>
        {thr.kind === 'column' ? (
          <p className="hint" data-testid="groups-from-threshold-table">
            With thresholds from a table, the groups are that table’s rows{thrDs ? <> (“{thrDs.name}”)</> : null}: one predicate per row, see
            Thresholds below.
          </p>
        ) : (
          <>
            <p className="hint">
              The list of groups is released with the answer, so it must be public: it cannot be read from “{props.dataset.name}” (that would reveal
              which {groupBy.length > 0 ? `${groupBy.join(' × ')} values` : 'keys'} occur in it). Groups with no row are asked about too and count 0.
            </p>
            <div className="radios" role="radiogroup" aria-label="Groups come from">
              <label className="check">
                <input
                  type="radio"
                  name="groups-source"
                  checked={groups.source === 'dataset'}
                  onChange={() => setGroups({ source: 'dataset' })}
                  data-testid="groups-source-dataset"
                />
                From a public dataset
              </label>
              <label className="check">
                <input
                  type="radio"
                  name="groups-source"
                  checked={groups.source === 'listed'}
                  onChange={() => setGroups({ source: 'listed' })}
                  data-testid="groups-source-listed"
                />
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
                    hint={
                      <>
                        Each distinct row of its matching columns is one group.{privateOthers.length > 0 ? ' Private datasets are not offered.' : ''}
                      </>
                    }
                  />
                  {groupDs &&
                    groupBy.map((g) => (
                      <SelectField
                        key={g}
                        label={`Column matching ${g}`}
                        value={groupsOn[g] ?? ''}
                        onChange={(c) => setGroups({ on: { ...groupsOn, [g]: c } })}
                        options={[
                          ...(groupsOn[g] ? [] : [{ value: '', label: 'Choose…' }]),
                          ...groupDs.columns.map((c) => ({ value: c.name, label: c.name }))
                        ]}
                        testId={`groups-on-${g}`}
                      />
                    ))}
                </div>
              ))}
            {groups.source === 'listed' && byTime && (
              <div className="row" data-testid="bucket-range">
                <TextField
                  label={`${byTime.per[0].toUpperCase()}${byTime.per.slice(1)}s from`}
                  value={form.byTime?.from ?? ''}
                  onChange={(from) => dispatch({ type: 'byTime', patch: { from } })}
                  placeholder="2014-07-01"
                  testId="bucket-from"
                />
                <TextField
                  label="To (not included)"
                  value={form.byTime?.to ?? ''}
                  onChange={(to) => dispatch({ type: 'byTime', patch: { to } })}
                  placeholder="2014-08-01"
                  testId="bucket-to"
                />
                <div className="field actions">
                  <button
                    type="button"
                    className="secondary"
                    disabled={!Array.isArray(buckets)}
                    onClick={() => Array.isArray(buckets) && dispatch({ type: 'listGroups', lines: buckets.join('\n') })}
                    data-testid="bucket-list"
                  >
                    List every {byTime.per}
                  </button>
                </div>
                {typeof buckets === 'string' && (form.byTime?.from || form.byTime?.to || groupBy.length > 1) && (
                  <p className="hint" data-testid="bucket-range-why">
                    {buckets}
                  </p>
                )}
                {Array.isArray(buckets) && (
                  <p className="hint" data-testid="bucket-range-count">
                    {buckets.length.toLocaleString('en-US')} {byTime.per}
                    {buckets.length === 1 ? '' : 's'}, from {buckets[0]} to {buckets[buckets.length - 1]}: each is one group.
                  </p>
                )}
              </div>
            )}
            {groups.source === 'listed' && (
              <div className="field wide">
                <label htmlFor="groups-listed">
                  Groups, one per line{groupBy.length > 0 ? <> ({names.join(', ')}, separated by commas)</> : null}
                </label>
                <textarea
                  id="groups-listed"
                  rows={5}
                  value={groups.listed}
                  onChange={(e) => setGroups({ listed: e.target.value })}
                  placeholder={
                    groupBy.length > 0
                      ? names.map((g) => (g === names[groupBy.indexOf(byTime?.column ?? '')] ? '2014-07-01 00:00:00' : `${g} value`)).join(', ')
                      : 'Choose the group-by columns first'
                  }
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
              onChange={(column) => dispatch({ type: 'updateFilter', index: i, patch: { column } })}
              options={cols.map((c) => ({ value: c.name, label: c.name }))}
            />
            <SelectField
              label="Condition"
              value={f.op}
              onChange={(op) => dispatch({ type: 'updateFilter', index: i, patch: { op } })}
              options={OPS.map((o) => ({ value: o, label: o }))}
            />
            {f.op !== 'is null' && f.op !== 'is not null' && (
              <TextField
                label={f.op === 'in' || f.op === 'not in' ? 'Values (comma separated)' : 'Value'}
                value={f.value}
                onChange={(value) => dispatch({ type: 'updateFilter', index: i, patch: { value } })}
              />
            )}
            <div className="field actions">
              <button type="button" className="secondary" onClick={() => dispatch({ type: 'removeFilter', index: i })}>
                Remove condition
              </button>
            </div>
          </div>
        ))}
        <button type="button" className="secondary small" onClick={() => dispatch({ type: 'addFilter', column: cols[0]?.name ?? '' })}>
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
              <TextField
                label="From (inclusive)"
                value={period.from}
                onChange={(from) => setPeriod({ from })}
                placeholder="2024-03-12 14:00:00"
                testId="period-from"
              />
              <TextField
                label="To (exclusive)"
                value={period.to}
                onChange={(to) => setPeriod({ to })}
                placeholder="2024-03-12 15:00:00"
                testId="period-to"
              />
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
          {thr.kind === 'constant' && (
            <NumberField label="Threshold" value={thr.constant} onChange={(constant) => setThr({ constant })} testId="threshold-constant" />
          )}
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
                      options={[
                        ...(thrOn[g] ? [] : [{ value: '', label: 'Choose…' }]),
                        ...thrDs.columns.map((c) => ({ value: c.name, label: c.name }))
                      ]}
                      testId={`threshold-on-${g}`}
                    />
                  ))}
              </>
            ))}
          {thr.kind === 'reference' && (
            <>
              <NumberField label="Factor" value={ref.factor} onChange={(factor) => setRef({ factor })} />
              <SelectField
                label="Of the"
                value={ref.aggregate}
                onChange={(aggregate) => setRef({ aggregate })}
                options={[
                  { value: 'max', label: 'maximum' },
                  { value: 'mean', label: 'mean' }
                ]}
              />
              <SelectField
                label="Per"
                value={ref.bucket}
                onChange={(bucket) => setRef({ bucket })}
                options={[
                  { value: 'hour', label: 'hour' },
                  { value: 'day', label: 'day' }
                ]}
              />
              <TextField label="Reference from" value={ref.from} onChange={(from) => setRef({ from })} placeholder="2024-03-04" />
              <TextField label="Reference to" value={ref.to} onChange={(to) => setRef({ to })} placeholder="2024-03-09" />
            </>
          )}
        </div>
      </fieldset>
    </div>
  )
}
