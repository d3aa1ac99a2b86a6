/**
 * The threshold builder's group by hour, day or week of a time column (thresholdDefinition.ts, thresholdBuilderState.ts),
 * the anomaly identification form's word on time columns, and the versions of a saved question with the releases that
 * ran each (queryVersionsDefinition.ts).
 */
import { describe, expect, it } from 'vitest'
import type { ReleaseRecord, SavedQuery, ThresholdQueryDefinition } from '../../../src-main/contract'
import { timeColumnsHint } from '../../../src-renderer/src/screens/queries/aiqDefinition'
import { queryVersionRows } from '../../../src-renderer/src/screens/queries/queryVersionsDefinition'
import { initialThresholdForm, thresholdFormReducer } from '../../../src-renderer/src/screens/queries/thresholdBuilderState'
import {
  buildThresholdDefinition,
  exactTimeHint,
  listBuckets,
  thresholdFormFromDefinition
} from '../../../src-renderer/src/screens/queries/thresholdDefinition'
import { datasetInfo } from './dataset-fixtures'

const taxi = datasetInfo(
  1,
  'nyc_taxi',
  [
    ['timestamp', 'timestamp'],
    ['value', 'integer']
  ],
  false
)
const all = [taxi]

function start() {
  let f = initialThresholdForm({ dataset: taxi, datasets: all })
  f = thresholdFormReducer(f, { type: 'groupBy', column: 'timestamp', on: true, order: ['timestamp', 'value'] })
  f = thresholdFormReducer(f, { type: 'threshold', patch: { kind: 'constant', constant: '10000' } })
  return f
}

describe('group by hour, day or week of a time column', () => {
  it('grouping by the exact time says what it gives in a time series, and how to bucket instead', () => {
    const f = start()
    expect(exactTimeHint(f, taxi)).toBe(
      'Grouping by the exact “timestamp” makes each distinct time one group: in a time series that is one row per group. ' +
        'To ask which hours, days or weeks exceed a count, group “timestamp” by hour, day or week, then list the buckets from a range.'
    )
    const byDay = thresholdFormReducer(f, { type: 'byTime', patch: { column: 'timestamp', per: 'day' } })
    expect(exactTimeHint(byDay, taxi)).toBeNull()
    expect(byDay.groups.source).toBe('listed')
  })

  it('lists the days of a range as the groups; the definition groups by day; editing it gives the same form back', () => {
    let f = thresholdFormReducer(start(), { type: 'byTime', patch: { column: 'timestamp', per: 'day' } })
    f = thresholdFormReducer(f, { type: 'byTime', patch: { from: '2014-07-01', to: '2014-07-04' } })
    const days = listBuckets(f)
    expect(days).toEqual(['2014-07-01 00:00:00', '2014-07-02 00:00:00', '2014-07-03 00:00:00'])
    f = thresholdFormReducer(f, { type: 'listGroups', lines: (days as string[]).join('\n') })
    const d = buildThresholdDefinition(f, taxi, all) as ThresholdQueryDefinition
    expect(d).toEqual({
      kind: 'threshold',
      groupBy: ['timestamp'],
      groupByTime: { column: 'timestamp', per: 'day' },
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 10000 },
      groups: [['2014-07-01 00:00:00'], ['2014-07-02 00:00:00'], ['2014-07-03 00:00:00']]
    })
    const again = thresholdFormFromDefinition(d, initialThresholdForm({ dataset: taxi, datasets: all }))
    expect(buildThresholdDefinition(again, taxi, all)).toEqual(d)
  })

  it('says what is wrong with a range, and refuses a reference threshold on buckets', () => {
    const f = thresholdFormReducer(start(), { type: 'byTime', patch: { column: 'timestamp', per: 'hour' } })
    expect(listBuckets({ ...f, byTime: { ...f.byTime!, from: 'July', to: '2014-07-02' } })).toMatch(/^Give the range as dates or times/)
    expect(listBuckets({ ...f, byTime: { ...f.byTime!, from: '2014-07-02', to: '2014-07-01' } })).toBe(
      'The range must end after it starts (to is not included).'
    )
    expect(listBuckets({ ...f, byTime: { ...f.byTime!, from: '1990-01-01', to: '2020-01-01' } })).toMatch(/more than 100,000 hours/)
    const ref = thresholdFormReducer(f, { type: 'threshold', patch: { kind: 'reference' } })
    expect(buildThresholdDefinition({ ...ref, groups: { ...ref.groups, listed: '2014-07-01 00:00:00' } }, taxi, all)).toMatch(
      /an hour of “timestamp” has no rows there: use a constant threshold\.$/
    )
  })
})

describe('anomaly identification on a time series', () => {
  it('says why the time column is not offered', () => {
    expect(timeColumnsHint(taxi)).toMatch(/^“timestamp” is not offered: a record is described by values compared in bins/)
    expect(timeColumnsHint(datasetInfo(2, 'rooms', [['room', 'text']], false))).toBeNull()
  })
})

describe('versions of a saved question', () => {
  const def = (value: number): ThresholdQueryDefinition => ({
    kind: 'threshold',
    groupBy: ['value'],
    count: { kind: 'rows' },
    threshold: { kind: 'constant', value },
    groups: [['1']]
  })
  const version = (id: number, v: number, value: number): SavedQuery =>
    ({
      id,
      datasetId: 1,
      name: 'q',
      kind: 'threshold',
      definition: def(value),
      createdAt: `2026-11-2${v}T00:00:00.000Z`,
      version: v,
      firstVersionId: 5
    }) as SavedQuery
  const release = (releaseId: number, queryId: number) =>
    ({ releaseId, queryId, createdAt: '2026-11-26T00:00:00.000Z', statusText: 'answered' }) as ReleaseRecord

  it('newest first, each with what it changed and the releases that ran exactly that version', () => {
    const rows = queryVersionRows(
      [version(9, 2, 20), version(5, 1, 10), version(12, 3, 20)],
      [release(1, 5), release(2, 9), release(3, 5), release(4, 77)]
    )
    expect(rows.map((r) => [r.version, r.id, r.changed, r.releases.map((x) => x.releaseId)])).toEqual([
      [3, 12, 'the same definition', []],
      [2, 9, 'changed threshold', [2]],
      [1, 5, '', [3, 1]]
    ])
  })
})
