/**
 * Periods of a continual alarm (ALGORITHMS.md section 7): period p holds the rows whose time lies in
 * [start + p len, start + (p + 1) len), with fixed lengths in UTC milliseconds (no calendar: a day is 86,400,000 ms, a
 * week 7 days). A period is closed once its end plus the grace has passed on the evaluating clock (now >= end + grace).
 * Pure: every function is a function of its arguments, which are public (the alarm's schedule and a clock).
 */

export const ALARM_PERIODS = ['hour', 'day', 'week'] as const
export type AlarmPeriod = (typeof ALARM_PERIODS)[number]

/** Length of each period in milliseconds. */
export const PERIOD_MS: Readonly<Record<AlarmPeriod, number>> = { hour: 3_600_000, day: 86_400_000, week: 604_800_000 }

function lengthOf(period: AlarmPeriod): number {
  const len = PERIOD_MS[period]
  if (len === undefined) throw new RangeError(`period must be one of ${ALARM_PERIODS.join(', ')}`)
  return len
}

function checkMs(name: string, v: number): void {
  if (!Number.isSafeInteger(v)) throw new RangeError(`${name} must be a whole number of milliseconds`)
}

/** Index of the period holding time tMs (negative before the start). */
export function periodIndexAt(startMs: number, period: AlarmPeriod, tMs: number): number {
  checkMs('start', startMs)
  checkMs('time', tMs)
  return Math.floor((tMs - startMs) / lengthOf(period))
}

/** The half-open range [from, to) in ms of period p (p a whole number >= 0). */
export function periodRange(startMs: number, period: AlarmPeriod, p: number): [from: number, to: number] {
  checkMs('start', startMs)
  if (!Number.isSafeInteger(p) || p < 0) throw new RangeError('period index must be a whole number >= 0')
  const len = lengthOf(period)
  const from = startMs + p * len
  const to = from + len
  if (!Number.isSafeInteger(to)) throw new RangeError('period range is out of the representable time range')
  return [from, to]
}

/**
 * The last closed period index at nowMs (period p is closed iff nowMs >= start + (p + 1) len + grace), or -1 if none is.
 * A clock set back returns a smaller index; callers evaluate each period once, so nothing is re-evaluated.
 */
export function closedThrough(startMs: number, period: AlarmPeriod, graceMs: number, nowMs: number): number {
  checkMs('start', startMs)
  checkMs('grace', graceMs)
  checkMs('now', nowMs)
  if (graceMs < 0) throw new RangeError('grace must be >= 0')
  const p = Math.floor((nowMs - graceMs - startMs) / lengthOf(period)) - 1
  return p < 0 ? -1 : p
}
