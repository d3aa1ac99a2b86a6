import { describe, expect, it } from 'vitest'
import { formatTime, zoneText } from '../../src-main/contract/format-time'
import { reportTime } from '../../src-main/services/reports/report-html'

describe('the one time format (app, reports, sentences)', () => {
  it('writes day, month name, year, the time to the second and the zone', () => {
    expect(formatTime('2026-11-26T03:06:15.931Z')).toBe('26 Nov 2026, 03:06:15 UTC')
    expect(formatTime('2026-01-05T23:59:59Z')).toBe('5 Jan 2026, 23:59:59 UTC')
    expect(formatTime(Date.UTC(2026, 8, 1, 0, 0, 0))).toBe('1 Sep 2026, 00:00:00 UTC')
  })

  it('shows another zone as its offset from UTC, crossing the date line when it must', () => {
    expect(formatTime('2026-11-26T03:06:15Z', 60)).toBe('26 Nov 2026, 04:06:15 UTC+1')
    expect(formatTime('2026-11-26T03:06:15Z', -300)).toBe('25 Nov 2026, 22:06:15 UTC\u22125')
    expect(formatTime('2026-11-26T20:00:00Z', 330)).toBe('27 Nov 2026, 01:30:00 UTC+5:30')
    expect(zoneText(0)).toBe('UTC')
    expect(zoneText(-570)).toBe('UTC\u22129:30')
  })

  it('leaves a text that is not a time as it is (a date value, a word)', () => {
    expect(formatTime('2014-07-01 00:00:00')).toBe('2014-07-01 00:00:00')
    expect(formatTime('not a time')).toBe('not a time')
    expect(formatTime('2026-13-45T99:00:00Z')).toBe('2026-13-45T99:00:00Z')
  })

  it('the report prints its times in that format, in UTC', () => {
    expect(reportTime('2026-11-26T02:50:49.123Z')).toBe('26 Nov 2026, 02:50:49 UTC')
    expect(reportTime('2026-11-26')).toBe('2026-11-26')
  })
})
