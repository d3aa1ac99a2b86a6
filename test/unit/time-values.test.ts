/**
 * Stored times as the user reads them (contract/shown-values.ts) and the time buckets of a threshold query
 * (contract/time-buckets.ts): the text a zone-less file writes, canonical keys shown without their invented zone, and
 * hours, days and weeks (from Monday) named by their starts.
 */
import { describe, expect, it } from 'vitest'
import { shownKeyPart, timestampText } from '../../src-main/contract/shown-values'
import { bucketStart, bucketStartsBetween, notABucketStart, parseWallClock } from '../../src-main/contract/time-buckets'
import { keyPart, parseTimestamp, toDisplay } from '../../src-main/services/catalog/column-types'

const ms = (s: string) => parseTimestamp(s) as number

describe('times as written', () => {
  it('a stored time reads as the zone-less text it came from, and that text reads back to the same time', () => {
    for (const t of ['2014-07-01 00:00:00', '1969-12-31 23:59:59', '2015-01-31 10:00:00.250', '0001-01-01 00:00:00', '9999-12-31 23:59:59.999']) {
      expect(timestampText(ms(t))).toBe(t)
      expect(toDisplay('timestamp', ms(t))).toBe(t)
      expect(parseTimestamp(timestampText(ms(t)))).toBe(ms(t))
    }
    // A file that gives an offset is stored in UTC and shown on the UTC clock.
    expect(timestampText(ms('2014-07-01T02:00:00+02:00'))).toBe('2014-07-01 00:00:00')
  })

  it('canonical keys (hashed in ledger cells) keep their form; only their display drops the zone', () => {
    const k = keyPart('timestamp', ms('2014-07-01 00:00:00'))
    expect(k).toBe('2014-07-01T00:00:00.000Z')
    expect(shownKeyPart(k)).toBe('2014-07-01 00:00:00')
    expect(shownKeyPart('2014-07-01T00:00:00.250Z')).toBe('2014-07-01 00:00:00.250')
    for (const other of ['B-104', '2014-07-01', '2014-07-01T00:00:00Z', 42, null] as const) expect(shownKeyPart(other)).toBe(other)
  })
})

describe('time buckets', () => {
  it('hours and days start on the hour and at midnight; weeks on Monday (1970-01-05 was one), before 1970 too', () => {
    expect(timestampText(bucketStart(ms('2014-07-01 13:59:59.999'), 'hour'))).toBe('2014-07-01 13:00:00')
    expect(timestampText(bucketStart(ms('2014-07-01 13:59:59'), 'day'))).toBe('2014-07-01 00:00:00')
    // 2014-07-01 was a Tuesday; 2014-06-30 a Monday.
    expect(timestampText(bucketStart(ms('2014-07-01 13:00:00'), 'week'))).toBe('2014-06-30 00:00:00')
    expect(timestampText(bucketStart(ms('2014-06-30 00:00:00'), 'week'))).toBe('2014-06-30 00:00:00')
    expect(timestampText(bucketStart(ms('2014-06-29 23:59:59'), 'week'))).toBe('2014-06-23 00:00:00')
    expect(timestampText(bucketStart(ms('1969-12-31 23:30:00'), 'hour'))).toBe('1969-12-31 23:00:00')
    expect(timestampText(bucketStart(ms('1970-01-01 00:00:00'), 'week'))).toBe('1969-12-29 00:00:00')
  })

  it('lists the buckets meeting [from, to), and says when a value is not a bucket start', () => {
    expect(bucketStartsBetween(ms('2014-07-01 22:30:00'), ms('2014-07-02 01:00:00'), 'hour')).toEqual([
      '2014-07-01 22:00:00',
      '2014-07-01 23:00:00',
      '2014-07-02 00:00:00'
    ])
    expect(bucketStartsBetween(ms('2014-07-01'), ms('2014-08-01'), 'day')).toHaveLength(31)
    expect(bucketStartsBetween(ms('2000-01-01'), ms('2020-01-01'), 'hour', 1000)).toBeNull()
    expect(notABucketStart(ms('2014-07-01 01:00:00'), 'hour')).toBeNull()
    expect(notABucketStart(null, 'day')).toBeNull()
    expect(notABucketStart(ms('2014-07-01 01:30:00'), 'day')).toBe('is not the start of a day: name the day by its start, "2014-07-01 00:00:00"')
  })

  it('reads a wall-clock range as typed, refusing what is not a date', () => {
    expect(parseWallClock('2014-07-01')).toBe(ms('2014-07-01'))
    expect(parseWallClock(' 2014-07-01 13:05 ')).toBe(ms('2014-07-01 13:05:00'))
    expect(parseWallClock('2014-07-01T13:05:09')).toBe(ms('2014-07-01 13:05:09'))
    for (const bad of ['2014-02-30', '2014-07-01 24:00', 'July 1st', '', '2014-07-01Z']) expect(parseWallClock(bad)).toBeNull()
  })
})
