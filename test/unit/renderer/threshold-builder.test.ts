/**
 * The threshold builder without React: its state transitions (thresholdBuilderState.ts) and the definition the form
 * stands for (thresholdDefinition.ts: buildThresholdDefinition, resolveThresholdForm). Every "not yet" is one sentence.
 */
import { describe, expect, it } from 'vitest'
import { buildThresholdDefinition, resolveThresholdForm, type ThresholdForm } from '../../../src-renderer/src/screens/queries/thresholdDefinition'
import { initialThresholdForm, thresholdFormReducer, type ThresholdFormAction } from '../../../src-renderer/src/screens/queries/thresholdBuilderState'
import { OCCUPANCY_COLUMNS, capacities, datasetInfo, rooms } from './dataset-fixtures'

const occupancy = datasetInfo(1, 'occupancy', OCCUPANCY_COLUMNS, false, { unit: { kind: 'person', column: 'person_id' } })
const badges = datasetInfo(
  5,
  'badges',
  [
    ['seen_at', 'timestamp'],
    ['badge', 'text'],
    ['room', 'text']
  ],
  false
)
const all = [occupancy, capacities, rooms, badges]
const order = occupancy.columns.map((c) => c.name)

function run(form: ThresholdForm, ...actions: ThresholdFormAction[]): ThresholdForm {
  return actions.reduce(thresholdFormReducer, form)
}

/** A fresh form for occupancy, grouped by building and room, with listed groups and a constant threshold. */
function ready(): ThresholdForm {
  return run(
    initialThresholdForm({ dataset: occupancy, datasets: all }),
    { type: 'groupBy', column: 'room', on: true, order },
    { type: 'groupBy', column: 'building', on: true, order },
    { type: 'groups', patch: { source: 'listed', listed: 'A, A-101\nB, "B, east"' } },
    { type: 'threshold', patch: { constant: '12' } }
  )
}

describe('threshold builder state', () => {
  it('starts empty, with groups from the first public dataset and the person unit as person column', () => {
    const f = initialThresholdForm({ dataset: occupancy, datasets: all })
    expect(f.groupBy).toEqual([])
    expect(f.groups).toMatchObject({ source: 'dataset', datasetId: '2' })
    expect(f.count.personColumn).toBe('person_id')
    expect(f.period.column).toBe('timestamp')
    expect(initialThresholdForm({ dataset: occupancy, datasets: [occupancy, badges] }).groups).toMatchObject({ source: 'listed', datasetId: '' })
  })

  it('keeps group-by columns in the dataset order, whatever the ticking order, and unticks', () => {
    const f = ready()
    expect(f.groupBy).toEqual(['building', 'room'])
    expect(run(f, { type: 'groupBy', column: 'building', on: false, order }).groupBy).toEqual(['room'])
  })

  it('adds, edits and removes filter conditions by position, leaving the others', () => {
    const f = run(
      ready(),
      { type: 'addFilter', column: 'timestamp' },
      { type: 'addFilter', column: 'timestamp' },
      { type: 'updateFilter', index: 1, patch: { column: 'minutes', op: '>' } },
      { type: 'updateFilter', index: 1, patch: { value: '30' } },
      { type: 'removeFilter', index: 0 }
    )
    expect(f.filters).toEqual([{ column: 'minutes', op: '>', value: '30' }])
  })

  it('changes one part of the period, count, threshold, reference or groups and nothing else', () => {
    const f = ready()
    const g = run(f, { type: 'reference', patch: { from: '2024-03-04' } })
    expect(g.threshold.reference).toEqual({ ...f.threshold.reference, from: '2024-03-04' })
    expect({ ...g, threshold: f.threshold }).toEqual(f)
    expect(run(f, { type: 'count', patch: { kind: 'persons' } }).count).toEqual({ ...f.count, kind: 'persons' })
    expect(run(f, { type: 'period', patch: { on: true } }).period).toEqual({ ...f.period, on: true })
  })

  it('switching the dataset keeps what still exists and resets columns and tables that no longer do', () => {
    const f = run(
      ready(),
      { type: 'addFilter', column: 'minutes' },
      { type: 'addFilter', column: 'room' },
      { type: 'period', patch: { on: true, column: 'timestamp' } },
      { type: 'count', patch: { kind: 'persons', personColumn: 'person_id' } },
      { type: 'threshold', patch: { kind: 'column', datasetId: '3', column: 'x', on: { building: 'bldg', room: 'room_name' } } },
      { type: 'groups', patch: { source: 'dataset', datasetId: '3', on: { building: 'bldg', room: 'room_name' } } }
    )
    const g = run(f, { type: 'dataset', dataset: badges, datasets: all })
    expect(g.groupBy).toEqual(['room'])
    expect(g.filters).toEqual([{ column: 'room', op: '=', value: '' }])
    expect(g.period).toEqual({ on: true, column: 'seen_at', from: '', to: '' })
    expect(g.count).toMatchObject({ kind: 'persons', personColumn: '' })
    expect(g.threshold).toMatchObject({ kind: 'column', datasetId: '3', column: 'x', on: { room: 'room_name' }, reference: { column: 'seen_at' } })
    expect(g.groups).toMatchObject({ source: 'dataset', datasetId: '3', on: { room: 'room_name' } })
    // A table that is no longer public is let go, with its column and mapping.
    const privateRooms = { ...rooms, public: false }
    const h = run(f, { type: 'dataset', dataset: badges, datasets: [capacities, privateRooms, badges] })
    expect(h.threshold).toMatchObject({ datasetId: '', column: '', on: {} })
    expect(h.groups).toMatchObject({ source: 'dataset', datasetId: '2', on: {} })
    expect(run(f, { type: 'dataset', dataset: badges, datasets: [privateRooms, badges] }).groups).toMatchObject({ source: 'listed', datasetId: '' })
  })
})

describe('buildThresholdDefinition', () => {
  it('listed groups, rows counted, a constant threshold', () => {
    expect(buildThresholdDefinition(ready(), occupancy, all)).toEqual({
      kind: 'threshold',
      groupBy: ['building', 'room'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 12 },
      groups: [
        ['A', 'A-101'],
        ['B', 'B, east']
      ]
    })
  })

  it('groups from a public table, mapped only when the names differ', () => {
    const same = run(ready(), { type: 'groups', patch: { source: 'dataset', datasetId: '2', on: { building: 'building', room: 'room' } } })
    const d = buildThresholdDefinition(same, occupancy, all)
    expect(d).toMatchObject({ groupsFrom: { datasetId: 2 } })
    expect(d).not.toHaveProperty('groups')
    expect(d).not.toHaveProperty('groupsFrom.on')
    const other = run(ready(), { type: 'groups', patch: { source: 'dataset', datasetId: '3', on: { building: 'bldg', room: 'room_name' } } })
    expect(buildThresholdDefinition(other, occupancy, all)).toMatchObject({
      groupsFrom: { datasetId: 3, on: { building: 'bldg', room: 'room_name' } }
    })
  })

  it('counts persons with a cap and an optional bound on groups per person', () => {
    const f = run(ready(), { type: 'count', patch: { kind: 'persons', personColumn: 'person_id', cap: '3', maxGroups: '2' } })
    expect(buildThresholdDefinition(f, occupancy, all)).toMatchObject({ count: { kind: 'persons', personColumn: 'person_id', cap: 3, maxGroups: 2 } })
    const unbounded = buildThresholdDefinition(run(f, { type: 'count', patch: { maxGroups: '' } }), occupancy, all)
    expect(unbounded).toMatchObject({ count: { kind: 'persons', cap: 3 } })
    expect(unbounded).not.toHaveProperty('count.maxGroups')
    expect(buildThresholdDefinition(run(f, { type: 'count', patch: { maxGroups: '1.5' } }), occupancy, all)).toBe(
      'The groups per person must be a whole number, 1 or more (or empty: no bound).'
    )
    expect(buildThresholdDefinition(run(f, { type: 'count', patch: { cap: '0' } }), occupancy, all)).toBe(
      'Say how many times each person may count at most (a whole number, 1 or more).'
    )
    expect(buildThresholdDefinition(run(f, { type: 'count', patch: { personColumn: '' } }), occupancy, all)).toBe(
      'Choose the column that identifies a person.'
    )
  })

  it('reference thresholds: factor, aggregate, bucket and period; the groups still come from public inputs', () => {
    const f = run(
      ready(),
      { type: 'threshold', patch: { kind: 'reference' } },
      { type: 'reference', patch: { factor: '1.5', aggregate: 'mean', bucket: 'hour', from: '2024-03-04', to: '2024-03-09' } }
    )
    expect(buildThresholdDefinition(f, occupancy, all)).toMatchObject({
      threshold: { kind: 'reference', factor: 1.5, aggregate: 'mean', bucket: 'hour', column: 'timestamp', from: '2024-03-04', to: '2024-03-09' },
      groups: [
        ['A', 'A-101'],
        ['B', 'B, east']
      ]
    })
    expect(buildThresholdDefinition(run(f, { type: 'reference', patch: { factor: '0' } }), occupancy, all)).toBe(
      'Give the factor (> 0) that multiplies the reference period.'
    )
    expect(buildThresholdDefinition(run(f, { type: 'reference', patch: { to: '' } }), occupancy, all)).toBe(
      'Give the reference period (from and to).'
    )
  })

  it('filters take numbers on numeric columns and lists for in; the period needs all three parts', () => {
    const f = run(
      ready(),
      { type: 'addFilter', column: 'minutes' },
      { type: 'updateFilter', index: 0, patch: { op: '>=', value: '30' } },
      { type: 'addFilter', column: 'room' },
      { type: 'updateFilter', index: 1, patch: { op: 'in', value: 'A-101, 7' } },
      { type: 'period', patch: { on: true, from: '2024-03-12 14:00:00' } }
    )
    expect(buildThresholdDefinition(f, occupancy, all)).toBe('Give the period: a timestamp column, from and to.')
    expect(buildThresholdDefinition(run(f, { type: 'period', patch: { to: '2024-03-12 15:00:00' } }), occupancy, all)).toMatchObject({
      filter: [
        { column: 'minutes', op: '>=', value: 30 },
        { column: 'room', op: 'in', value: ['A-101', 7] }
      ],
      period: { column: 'timestamp', from: '2024-03-12 14:00:00', to: '2024-03-12 15:00:00' }
    })
  })

  it('says what is missing, one sentence at a time', () => {
    expect(buildThresholdDefinition(initialThresholdForm({ dataset: occupancy, datasets: all }), occupancy, all)).toMatch(
      /^Choose at least one group-by column/
    )
    expect(buildThresholdDefinition(run(ready(), { type: 'threshold', patch: { constant: 'twelve' } }), occupancy, all)).toBe(
      'Give the threshold: the count above which a group is flagged.'
    )
    expect(buildThresholdDefinition(run(ready(), { type: 'groups', patch: { listed: 'A' } }), occupancy, all)).toBe(
      'Line 1 of the groups has 1 value; each group needs 2 (building, room), separated by commas.'
    )
    expect(buildThresholdDefinition(run(ready(), { type: 'groups', patch: { source: 'dataset', datasetId: '5' } }), occupancy, all)).toBe(
      'Choose the public dataset whose rows are the groups.'
    )
  })
})

describe('resolveThresholdForm', () => {
  it('fills in the preferred threshold table, the same-name mapping and its first numeric column for the group count', () => {
    const f = run(ready(), { type: 'threshold', patch: { kind: 'column' } })
    const r = resolveThresholdForm(f, occupancy, all)
    expect(r.thresholdTable?.name).toBe('capacities')
    expect(r.thresholdOn).toEqual({ building: 'building', room: 'room' })
    // No column chosen yet: the definition says so, the group count already knows the groups (the table's rows).
    expect(r.definition).toBe('Choose the column of “capacities” that holds the thresholds.')
    expect(r.groupsOnly).toEqual({
      kind: 'threshold',
      groupBy: ['building', 'room'],
      count: { kind: 'rows' },
      threshold: { kind: 'column', datasetId: 2, column: 'capacity' }
    })
    expect(resolveThresholdForm(run(f, { type: 'threshold', patch: { column: 'capacity' } }), occupancy, all).definition).toEqual(r.groupsOnly)
  })

  it('offers person columns outside the group-by and shows the chosen one while offered', () => {
    const f = run(ready(), { type: 'count', patch: { kind: 'persons', personColumn: 'room' } })
    const r = resolveThresholdForm(f, occupancy, all)
    expect(r.personOptions).toEqual(['timestamp', 'person_id', 'minutes'])
    expect(r.personColumn).toBe('person_id')
    expect(r.definition).toMatchObject({ count: { kind: 'persons', personColumn: 'person_id', cap: 1 } })
    expect(resolveThresholdForm(run(f, { type: 'count', patch: { personColumn: 'minutes' } }), occupancy, all).personColumn).toBe('minutes')
  })

  it('the groups-only definition ignores an unfinished count, filter and threshold', () => {
    const f = run(
      ready(),
      { type: 'threshold', patch: { constant: '' } },
      { type: 'count', patch: { kind: 'persons', cap: '' } },
      { type: 'addFilter', column: 'minutes' }
    )
    const r = resolveThresholdForm(f, occupancy, all)
    expect(typeof r.definition).toBe('string')
    expect(r.groupsOnly).toMatchObject({
      groups: [
        ['A', 'A-101'],
        ['B', 'B, east']
      ]
    })
  })
})
