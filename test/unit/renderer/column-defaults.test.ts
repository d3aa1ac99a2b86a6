import { describe, expect, it } from 'vitest'
import {
  likelyPersonColumn,
  preferredIdColumn,
  preferredPersonColumn,
  preferredThresholdTable
} from '../../../src-renderer/src/screens/queries/columnDefaultsDefinition'

const occupancy = [
  { name: 'timestamp', type: 'timestamp' as const },
  { name: 'person_id', type: 'text' as const },
  { name: 'role', type: 'text' as const },
  { name: 'room', type: 'text' as const },
  { name: 'minutes', type: 'integer' as const }
]

describe('defaults chosen by column names and types', () => {
  it('the person column is the one named like a person, never a time', () => {
    expect(preferredPersonColumn(occupancy)).toBe('person_id')
    expect(
      preferredPersonColumn([
        { name: 'timestamp', type: 'timestamp' },
        { name: 'badge', type: 'integer' }
      ])
    ).toBe('badge')
    expect(
      preferredPersonColumn([
        { name: 'when', type: 'timestamp' },
        { name: 'room', type: 'text' },
        { name: 'visit_no', type: 'integer' }
      ])
    ).toBe('visit_no')
    expect(
      preferredPersonColumn([
        { name: 'when', type: 'timestamp' },
        { name: 'value', type: 'real' }
      ])
    ).toBeNull()
    expect(likelyPersonColumn(occupancy)).toBe('person_id')
    expect(
      likelyPersonColumn([
        { name: 'timestamp', type: 'timestamp' },
        { name: 'value', type: 'integer' }
      ])
    ).toBeNull()
  })

  it('the threshold table holds the group-by columns and a limit, not simply the first public dataset', () => {
    const calendar = {
      id: 1,
      columns: [
        { name: 'timestamp', type: 'timestamp' as const },
        { name: 'time_of_day', type: 'text' as const }
      ]
    }
    const rooms = {
      id: 2,
      columns: [
        { name: 'room', type: 'text' as const },
        { name: 'floor', type: 'integer' as const }
      ]
    }
    const capacities = {
      id: 3,
      columns: [
        { name: 'building', type: 'text' as const },
        { name: 'room', type: 'text' as const },
        { name: 'capacity', type: 'integer' as const }
      ]
    }
    expect(preferredThresholdTable([calendar, rooms, capacities], ['room'])?.id).toBe(3)
    expect(preferredThresholdTable([calendar, rooms], ['room'])?.id).toBe(2)
    expect(preferredThresholdTable([calendar, rooms], ['building'])?.id).toBe(1)
    expect(preferredThresholdTable([], ['room'])).toBeNull()
  })

  it('the anomaly search id column: the person column, else one named like an id or an entity, else none (the form asks; never the row number)', () => {
    expect(preferredIdColumn(occupancy, 'person_id')).toBe('person_id')
    expect(
      preferredIdColumn(
        [
          { name: 'timestamp', type: 'timestamp' },
          { name: 'value', type: 'real' },
          { name: 'host', type: 'text' }
        ],
        null
      )
    ).toBe('host')
    expect(
      preferredIdColumn(
        [
          { name: 'timestamp', type: 'timestamp' },
          { name: 'machine_id', type: 'integer' },
          { name: 'value', type: 'real' }
        ],
        null
      )
    ).toBe('machine_id')
    expect(
      preferredIdColumn(
        [
          { name: 'timestamp', type: 'timestamp' },
          { name: 'value', type: 'real' }
        ],
        null
      )
    ).toBeNull()
    expect(
      preferredIdColumn(
        [
          { name: 'when', type: 'timestamp' },
          { name: 'value', type: 'real' },
          { name: 'note', type: 'text' }
        ],
        null
      )
    ).toBeNull()
  })
})
