/**
 * The report's period [from, to) as the ledger writes times: ISO 8601 UTC with milliseconds ("2025-01-31T12:00:00.000Z"),
 * which sort as text. Input may be a date ("2025-01-31"), a date and time without a zone (UTC), or any ISO time with a zone.
 */
import { UserError } from '../platform/errors'

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
const NAIVE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/
const ZONED = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i

export function parseInstant(raw: string, name: 'from' | 'to'): string {
  const text = raw.trim()
  let iso: string
  if (DATE_ONLY.test(text)) iso = `${text}T00:00:00.000Z`
  else if (NAIVE.test(text)) iso = `${text.replace(' ', 'T')}Z`
  else if (ZONED.test(text)) iso = text.replace(' ', 'T')
  else throw new UserError(`"${name}" must be an ISO 8601 date or time such as 2025-01-31 or 2025-01-31T12:00:00Z (got "${text.slice(0, 40)}")`)
  const ms = Date.parse(iso)
  if (!Number.isFinite(ms)) throw new UserError(`"${name}" is not a valid date or time (got "${text.slice(0, 40)}")`)
  return new Date(ms).toISOString()
}

export interface Period {
  from: string | null
  to: string
}

/**
 * Validates and normalises the period. `to` defaults to `now` and is never later than `now`, so that a report of a
 * period that has ended can be reproduced exactly (nothing can be written into it any more).
 */
export function resolvePeriod(from: string | undefined, to: string | undefined, now: Date = new Date()): Period {
  const f = from === undefined || from === '' ? null : parseInstant(from, 'from')
  const requestedTo = to === undefined || to === '' ? null : parseInstant(to, 'to')
  if (f !== null && requestedTo !== null && f >= requestedTo) {
    throw new UserError(`The period is empty: "from" (${f}) must be before "to" (${requestedTo})`)
  }
  const nowIso = now.toISOString()
  const t = requestedTo === null || requestedTo > nowIso ? nowIso : requestedTo
  if (f !== null && f >= t) throw new UserError(`The period starts in the future (${f}); choose a "from" before now`)
  return { from: f, to: t }
}

export function inPeriod(at: string, p: Period): boolean {
  return (p.from === null || at >= p.from) && at < p.to
}
