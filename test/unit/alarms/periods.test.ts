import { describe, expect, it } from 'vitest'
import { PERIOD_MS, closedThrough, periodIndexAt, periodRange } from '../../../src-worker/engine/alarms/periods'

const start = Date.UTC(2026, 0, 1, 0, 0, 0)
const H = 3_600_000

describe('alarm periods (periods.ts)', () => {
  it('fixed lengths in UTC ms', () => {
    expect(PERIOD_MS).toEqual({ hour: H, day: 24 * H, week: 168 * H })
  })
  it('period p is [start + p len, start + (p + 1) len): both ends, and the index of every instant', () => {
    for (const period of ['hour', 'day', 'week'] as const) {
      for (const p of [0, 1, 7, 1000]) {
        const [from, to] = periodRange(start, period, p)
        expect(to - from).toBe(PERIOD_MS[period])
        expect(periodIndexAt(start, period, from)).toBe(p)
        expect(periodIndexAt(start, period, to - 1)).toBe(p)
        expect(periodIndexAt(start, period, to)).toBe(p + 1)
      }
    }
    expect(periodIndexAt(start, 'hour', start - 1)).toBe(-1)
  })
  it('closed once end + grace has passed (now >= end + grace); -1 before; a clock set back gives a smaller index', () => {
    const grace = 5 * 60_000
    expect(closedThrough(start, 'hour', grace, start)).toBe(-1)
    expect(closedThrough(start, 'hour', grace, start + H + grace - 1)).toBe(-1)
    expect(closedThrough(start, 'hour', grace, start + H + grace)).toBe(0)
    expect(closedThrough(start, 'hour', grace, start + 72 * H + grace)).toBe(71)
    expect(closedThrough(start, 'hour', 0, start + 72 * H)).toBe(71)
    expect(closedThrough(start, 'hour', grace, start + 71 * H)).toBe(69)
    expect(closedThrough(start, 'day', 0, start - 10 * 24 * H)).toBe(-1)
  })
  it('refuses non-integral ms, negative grace and indexes, unknown periods', () => {
    expect(() => periodIndexAt(start + 0.5, 'hour', start)).toThrow(RangeError)
    expect(() => closedThrough(start, 'hour', -1, start)).toThrow(RangeError)
    expect(() => periodRange(start, 'hour', -1)).toThrow(RangeError)
    expect(() => periodRange(start, 'month' as 'hour', 0)).toThrow(RangeError)
  })
})
