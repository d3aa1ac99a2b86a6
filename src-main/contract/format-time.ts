/**
 * The one way a time of an event (a release, a ledger entry, a checkpoint, a report's period) is shown, in the app, the
 * reports and the CLI's sentences: "26 Nov 2026, 03:06:15 UTC": day, month name, year, 24-hour time to the second, and
 * the zone always written. Reports and services print UTC (a document is read anywhere); the app prints the reader's own
 * zone as its offset from UTC ("26 Nov 2026, 04:06:15 UTC+1", "UTC−5:30"). Exact ISO text stays only where it is a key
 * (the end of a report's period that its data hash covers, a command's arguments), never in a sentence.
 * Pure and the same in every runtime: month names are written here, not taken from the platform's locale data.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

const two = (n: number): string => String(n).padStart(2, '0')

/** "UTC", "UTC+1", "UTC+5:30", "UTC−3" (a minus sign, not a hyphen) for an offset east of UTC in minutes. */
export function zoneText(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'UTC'
  const a = Math.abs(offsetMinutes)
  const h = Math.floor(a / 60)
  const m = a % 60
  return `UTC${offsetMinutes > 0 ? '+' : '\u2212'}${h}${m === 0 ? '' : `:${two(m)}`}`
}

/**
 * An ISO time (or epoch milliseconds) as "26 Nov 2026, 03:06:15 UTC", shown at `offsetMinutes` east of UTC (0: UTC).
 * A text that is not a time is returned as it is.
 */
export function formatTime(value: string | number, offsetMinutes = 0): string {
  const ms = typeof value === 'number' ? value : /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN
  if (!Number.isFinite(ms)) return String(value)
  const d = new Date(ms + offsetMinutes * 60_000)
  if (Number.isNaN(d.getTime())) return String(value)
  const date = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
  return `${date}, ${time} ${zoneText(offsetMinutes)}`
}

/** The reader's offset from UTC (minutes east) at that time, daylight saving included. */
export function localOffsetMinutes(value: string | number): number {
  const ms = typeof value === 'number' ? value : Date.parse(value)
  return Number.isFinite(ms) ? -new Date(ms).getTimezoneOffset() : 0
}

/** A time in the reader's own zone, as the app shows it. */
export function formatLocalTime(value: string | number): string {
  return formatTime(value, localOffsetMinutes(value))
}
