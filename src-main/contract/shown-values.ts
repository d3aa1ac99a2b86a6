/**
 * How stored values read on screen, in reports and in answers (pure; the renderer imports this file).
 *
 * A timestamp is stored as milliseconds since the epoch, a time without an offset read as UTC (catalog/column-types.ts),
 * so the UTC wall clock of a stored value is exactly the text of a file that gives no zone. It is shown as that text,
 * "YYYY-MM-DD HH:MM:SS" (".sss" added when it has milliseconds), with no zone written after it. Group keys and ledger
 * cells keep their canonical form, ISO 8601 with milliseconds and "Z" (`keyPart`): those strings are hashed into the
 * ledger and never change; only their display goes through `shownKeyPart`.
 */

/** The canonical text of a timestamp in group keys and ledger cells (`Date.prototype.toISOString` of a year 0-9999). */
const CANONICAL_TIMESTAMP = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)\.(\d{3})Z$/

const pad = (n: number, w: number) => String(n).padStart(w, '0')

/** A stored timestamp as a file without zones writes it: "2014-07-01 00:00:00" (or "2014-07-01 00:00:00.250"). */
export function timestampText(ms: number): string {
  const d = new Date(ms)
  const y = d.getUTCFullYear()
  // Years beyond 0-9999 have no "YYYY" form: ISO 8601's extended year says them exactly.
  if (!Number.isFinite(y) || y < 0 || y > 9999) return Number.isFinite(y) ? d.toISOString() : String(ms)
  const frac = d.getUTCMilliseconds()
  return (
    `${pad(y, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ` +
    `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}${frac ? `.${pad(frac, 3)}` : ''}`
  )
}

/**
 * A group-key part or a ledger cell's value as shown: a canonical timestamp ("2014-07-01T00:00:00.000Z") as
 * `timestampText` writes it ("2014-07-01 00:00:00"), anything else unchanged.
 */
export function shownKeyPart<T extends string | number | null>(v: T): T | string {
  if (typeof v !== 'string') return v
  const m = CANONICAL_TIMESTAMP.exec(v)
  if (!m) return v
  return m[3] === '000' ? `${m[1]} ${m[2]}` : `${m[1]} ${m[2]}.${m[3]}`
}
