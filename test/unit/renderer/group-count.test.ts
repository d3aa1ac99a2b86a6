/**
 * The count of groups shown before a threshold query is saved: from public inputs only — the listed groups, a
 * public threshold table's rows, a public group list's distinct key tuples — and never from the counted (private) data.
 */
import { describe, expect, it } from 'vitest'
import type { DatasetInfo, ThresholdQueryDefinition } from '../../../src-main/contract'
import { distinctTuples, groupCountOf, groupCountSentence } from '../../../src-renderer/src/screens/queries/groupCountDefinition'
import { datasetInfo } from './dataset-fixtures'

/** A catalog entry whose columns are all text, with its row count and source. */
function ds(id: number, name: string, cols: string[], isPublic: boolean, rowCount: number, source?: DatasetInfo['source']): DatasetInfo {
  return datasetInfo(
    id,
    name,
    cols.map((n) => [n, 'text']),
    isPublic,
    { rowCount, ...(source ? { source } : {}) }
  )
}

const occupancy = ds(1, 'occupancy', ['building', 'room', 'person_id'], false, 60_000)
const capacities = ds(2, 'capacities', ['building', 'room', 'capacity'], true, 32)
const roomList = ds(3, 'room-list', ['bldg', 'room_name'], true, 40)
const all = [occupancy, capacities, roomList]
const base = { kind: 'threshold' as const, groupBy: ['building', 'room'], count: { kind: 'rows' as const } }

describe('count of groups before saving', () => {
  it('listed groups: their number', () => {
    const def: ThresholdQueryDefinition = {
      ...base,
      threshold: { kind: 'constant', value: 5 },
      groups: [
        ['A', '1'],
        ['A', '2'],
        ['B', '1']
      ]
    }
    const c = groupCountOf(def, all)
    expect(c).toMatchObject({ kind: 'known', groups: 3 })
    expect(groupCountSentence(c)).toBe('This question asks about 3 groups (predicates), listed in the definition. Each is one yes/no answer.')
  })

  it('a public threshold table: one group per row (its public row count), never the counted dataset’s', () => {
    const def: ThresholdQueryDefinition = { ...base, threshold: { kind: 'column', datasetId: 2, column: 'capacity' } }
    const c = groupCountOf(def, all)
    expect(c).toMatchObject({ kind: 'known', groups: 32 })
    expect(groupCountSentence(c)).toContain('32 groups')
    expect(groupCountSentence(c)).not.toContain('60,000')
  })

  it('a public group list: its distinct key tuples, read from that list through the mapped columns', () => {
    const def: ThresholdQueryDefinition = {
      ...base,
      threshold: { kind: 'constant', value: 5 },
      groupsFrom: { datasetId: 3, on: { building: 'bldg', room: 'room_name' } }
    }
    const c = groupCountOf(def, all)
    expect(c.kind).toBe('distinct')
    if (c.kind !== 'distinct') return
    expect(c.dataset.id).toBe(3)
    expect(c.columns).toEqual(['bldg', 'room_name'])
    expect(groupCountSentence(c, null)).toMatch(/^Counting the groups/)
    const rows = [
      ['A', '1'],
      ['A', '1'],
      ['A', '2'],
      ['B', null],
      ['B', null]
    ]
    const seen = distinctTuples(rows, [0, 1])
    expect(seen.size).toBe(3)
    expect(groupCountSentence(c, { groups: seen.size, complete: true })).toBe(
      'This question asks about 3 groups (predicates): the distinct building × room values of the public dataset “room-list”. Each is one yes/no answer.'
    )
    // Only part of a long list read: its row count is the (public) bound.
    expect(groupCountSentence(c, { groups: 3, complete: false })).toMatch(/^This question asks about at most 40 groups/)
  })

  it('groups that would come from the counted data (or a private table): no number, and the sentence says why', () => {
    const fromData = { ...base, threshold: { kind: 'constant', value: 5 } } as ThresholdQueryDefinition
    const c = groupCountOf(fromData, all)
    expect(c.kind).toBe('not-shown')
    expect(groupCountSentence(c)).not.toMatch(/\d/)
    expect(groupCountSentence(c)).toMatch(/not shown, because that number would tell what the data holds without a charge/)
    const privateTable = groupCountOf({ ...base, threshold: { kind: 'column', datasetId: 1, column: 'person_id' } }, all)
    expect(privateTable.kind).toBe('not-shown')
    const privateList = groupCountOf({ ...base, threshold: { kind: 'constant', value: 1 }, groupsFrom: { datasetId: 1 } }, all)
    expect(privateList.kind).toBe('not-shown')
  })
})
