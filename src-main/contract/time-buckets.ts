/**
 * Time buckets of a threshold query's group-by timestamp column (`groupByTime`): an hour, a day or a week (Monday to
 * Monday) of the UTC wall clock, which for a file without zones is the file's own clock (timestamps without an offset
 * are read as UTC). A bucket is named by its start. Pure: the engines' SQL (sources/dialect.ts), the services' checks
 * and the renderer's bucket list use the same widths and origin, so every engine puts a row in the same bucket.
 */
import { timestampText } from './shown-values'

export const TIME_BUCKET_UNITS = ['hour', 'day', 'week'] as const
export type TimeBucketUnit = (typeof TIME_BUCKET_UNITS)[number]

/** Width in ms, and the start of one bucket (ms since the epoch): 1970-01-05 00:00 was a Monday. */
export const TIME_BUCKETS: Record<TimeBucketUnit, { width: number; origin: number }> = {
  hour: { width: 3_600_000, origin: 0 },
  day: { width: 86_400_000, origin: 0 },
  week: { width: 604_800_000, origin: 4 * 86_400_000 }
}

/** At most this many buckets are listed from a range (a threshold query asks at most 100,000 groups). */
export const MAX_LISTED_BUCKETS = 100_000

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2}))?)?)?$/

/** "2014-07-01", "2014-07-01 13:00" or "2014-07-01 13:00:00" (no zone: UTC, as stored) in ms, or null. */
export function parseWallClock(text: string): number | null {
  const m = WALL_CLOCK.exec(text.trim())
  if (!m) return null
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)))
  const ms = Date.UTC(y, mo - 1, d, h, mi, s)
  const back = new Date(ms)
  // No 31 February or hour 24: the calendar must give the same fields back.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null
  return ms
}

/** The start of the bucket holding `ms`. */
export function bucketStart(ms: number, unit: TimeBucketUnit): number {
  const { width, origin } = TIME_BUCKETS[unit]
  return Math.floor((ms - origin) / width) * width + origin
}

/** The name a bucketed column has in ledger cells ("hour of at"): not the column's own name, whose cells hold exact times. */
export function bucketCellColumn(column: string, unit: TimeBucketUnit): string {
  return `${unit} of ${column}`
}

/**
 * The starts of the buckets that meet [from, to) (ms), as `timestampText` writes them, or null when there would be more
 * than `max`.
 */
export function bucketStartsBetween(from: number, to: number, unit: TimeBucketUnit, max = MAX_LISTED_BUCKETS): string[] | null {
  const { width } = TIME_BUCKETS[unit]
  const out: string[] = []
  for (let t = bucketStart(from, unit); t < to; t += width) {
    if (out.length >= max) return null
    out.push(timestampText(t))
  }
  return out
}

/** Why a stored key value (ms, or null for an empty one) cannot name a bucket, or null when it can: it is not a bucket's start. */
export function notABucketStart(v: unknown, unit: TimeBucketUnit): string | null {
  if (typeof v !== 'number') return null
  const start = bucketStart(v, unit)
  return start === v ? null : `is not the start of a${unit === 'hour' ? 'n' : ''} ${unit}: name the ${unit} by its start, "${timestampText(start)}"`
}
