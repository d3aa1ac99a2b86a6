/**
 * The alarm timeline's grid (alarms/timelineDefinition.ts): periods oldest first whatever order history gave them, one row per
 * predicate that fired in a period shown, and a cell marked exactly where that predicate fired.
 */
import { describe, expect, it } from 'vitest'
import type { AlarmPeriodView } from '../../../src-main/contract'
import { timelineOf } from '../../../src-renderer/src/screens/alarms/timelineDefinition'

const period = (n: number, fired: string[]): AlarmPeriodView => ({
  period: n,
  from: new Date(Date.UTC(2026, 0, 1, n)).toISOString(),
  to: new Date(Date.UTC(2026, 0, 1, n + 1)).toISOString(),
  fired,
  firedKeys: fired.map((f) => [f]),
  charge: 0,
  chargeExact: '0',
  instance: 1,
  releaseId: null,
  status: 'answered',
  evaluatedAt: '2026-01-02T00:00:00.000Z',
  accuracy: 'A predicate over its threshold is missed with probability at most 0.05.',
  lateRowsNote: 'Rows arriving for this period after it was evaluated are not counted.'
})

describe('the alarm timeline', () => {
  it('lays the periods out oldest first and marks each fired cell, and only those', () => {
    const t = timelineOf([period(3, ['room = B']), period(2, []), period(1, ['room = A', 'room = B'])])
    expect(t.periods.map((p) => p.period)).toEqual([1, 2, 3])
    expect(t.predicates).toEqual(['room = A', 'room = B'])
    expect(t.fired).toEqual([
      [true, false, false],
      [true, false, true]
    ])
  })

  it('has no predicate row when nothing fired', () => {
    const t = timelineOf([period(1, []), period(2, [])])
    expect(t.predicates).toEqual([])
    expect(t.fired).toEqual([])
  })
})
