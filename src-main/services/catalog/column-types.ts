/**
 * Column types: how a text field from a CSV file becomes a stored value, how types are inferred from a preview, and
 * how stored values are shown again.
 *
 * Stored forms: integer -> SQLite INTEGER (safe JS integers only), real -> REAL, text -> TEXT,
 * timestamp -> INTEGER milliseconds since 1970-01-01 UTC. An empty field is NULL in every type.
 * Every value is kept exactly: an integer beyond +-(2^53 - 1) is not a JS number, and a decimal whose digits a
 * double cannot hold is not a real, so a column with such values is inferred as text (ids 12345678901234567 and
 * 12345678901234568 stay two different ids); typed as integer or real by the user, such a value is a bad row.
 * Timestamps: ISO 8601 (`2015-01-31`, `2015-01-31T10:00`, `...:05.123Z`, `...+01:00`) or `YYYY-MM-DD HH:MM:SS`;
 * a timestamp without an offset is read as UTC (so day and hour buckets follow the wall clock of the file).
 */
import type { CellValue, ColumnType } from '../../contract/datasets'
import { timestampText } from '../../contract/shown-values'

export const COLUMN_TYPES: readonly ColumnType[] = ['integer', 'real', 'text', 'timestamp']

export function isColumnType(x: unknown): x is ColumnType {
  return typeof x === 'string' && (COLUMN_TYPES as readonly string[]).includes(x)
}

/** A stored value: what goes into SQLite. */
export type StoredValue = number | string | null

/** The value could not be read as the column's type. */
export const BAD_VALUE = Symbol('bad value')

const INTEGER_RE = /^[+-]?\d+$/
const REAL_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/

export function parseInteger(raw: string): number | typeof BAD_VALUE {
  const s = raw.trim()
  if (!INTEGER_RE.test(s)) return BAD_VALUE
  const x = Number(s)
  return Number.isSafeInteger(x) ? x : BAD_VALUE
}

/** Significant digits and exponent of a decimal numeral (value = digits x 10^exp), without leading or trailing zeros. */
function decimalParts(s: string): { digits: string; exp: number } {
  const body = s.replace(/^[+-]/, '')
  const e = body.search(/[eE]/)
  const mantissa = e < 0 ? body : body.slice(0, e)
  let exp = e < 0 ? 0 : Number(body.slice(e + 1))
  const dot = mantissa.indexOf('.')
  let digits = mantissa.replace('.', '')
  if (dot >= 0) exp -= mantissa.length - dot - 1
  digits = digits.replace(/^0+/, '')
  const trailing = digits.length - digits.replace(/0+$/, '').length
  digits = digits.slice(0, digits.length - trailing)
  return { digits, exp: digits === '' ? 0 : exp + trailing }
}

/** Whether the double `x` is exactly the decimal `s` shows (its shortest form has the same digits). */
function roundTrips(s: string, x: number): boolean {
  const a = decimalParts(s)
  if (x === 0) return a.digits === ''
  // Up to 15 significant digits every decimal in the normal double range survives the trip.
  if (a.digits.length <= 15 && Math.abs(x) >= 2.3e-308) return true
  const b = decimalParts(x.toExponential())
  return a.digits === b.digits && a.exp === b.exp
}

export function parseReal(raw: string): number | typeof BAD_VALUE {
  const s = raw.trim()
  if (!REAL_RE.test(s)) return BAD_VALUE
  const x = Number(s)
  // Never rounded: 12345678901234567 or 0.12345678901234567891 are not reals (a double would change them).
  return Number.isFinite(x) && roundTrips(s, x) ? x : BAD_VALUE
}

/** Why a value that looks like a number is not one of `type`, when that is about exactness (for bad-row messages). */
export function inexactHint(type: ColumnType, raw: string): string {
  const s = raw.trim()
  if ((type === 'integer' || type === 'real') && INTEGER_RE.test(s) && !Number.isSafeInteger(Number(s))) {
    return ' (a whole number beyond +-9007199254740991 cannot be stored exactly as a number: make the column text)'
  }
  if (type === 'real' && REAL_RE.test(s) && Number.isFinite(Number(s))) {
    return ' (more digits than a number can hold exactly: make the column text)'
  }
  return ''
}

function digits(s: string, at: number, n: number): number {
  let x = 0
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i) - 48
    if (c < 0 || c > 9) return -1
    x = x * 10 + c
  }
  return x
}

function daysInMonth(year: number, month: number): number {
  return month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number | typeof BAD_VALUE {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return BAD_VALUE
  return daysFromCivil(year, month, day) * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms
}

/** Milliseconds since the epoch (UTC), or BAD_VALUE. Checks the calendar (no 31 February, hour 24...). */
export function parseTimestamp(raw: string): number | typeof BAD_VALUE {
  // Fast path: exactly "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS" (the common export format).
  if (raw.length === 19 && raw.charCodeAt(4) === 45 && raw.charCodeAt(7) === 45 && raw.charCodeAt(13) === 58 && raw.charCodeAt(16) === 58) {
    const sep = raw.charCodeAt(10)
    if (sep === 32 || sep === 84) {
      const y = digits(raw, 0, 4)
      const mo = digits(raw, 5, 2)
      const d = digits(raw, 8, 2)
      const h = digits(raw, 11, 2)
      const mi = digits(raw, 14, 2)
      const s = digits(raw, 17, 2)
      if (y >= 0 && mo >= 0 && d >= 0 && h >= 0 && mi >= 0 && s >= 0) return utcMs(y, mo, d, h, mi, s, 0)
    }
  }
  const m = TIMESTAMP_RE.exec(raw.trim())
  if (!m) return BAD_VALUE
  const [, y, mo, d, h, mi, s, frac, zone] = m
  const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000 + 1e-9)
  const t = utcMs(
    Number(y),
    Number(mo),
    Number(d),
    h === undefined ? 0 : Number(h),
    mi === undefined ? 0 : Number(mi),
    s === undefined ? 0 : Number(s),
    ms
  )
  if (t === BAD_VALUE) return BAD_VALUE
  let offsetMin = 0
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1
    const dg = zone.slice(1).replace(':', '')
    const oh = Number(dg.slice(0, 2))
    const om = dg.length > 2 ? Number(dg.slice(2, 4)) : 0
    if (oh > 23 || om > 59) return BAD_VALUE
    offsetMin = sign * (oh * 60 + om)
  }
  return t - offsetMin * 60_000
}

/** Converts one field to its stored form (empty -> null), or BAD_VALUE. */
export function toStored(type: ColumnType, raw: string): StoredValue | typeof BAD_VALUE {
  if (type === 'text') return raw === '' ? null : raw
  if (raw.trim() === '') return null
  if (type === 'integer') return parseInteger(raw)
  if (type === 'real') return parseReal(raw)
  return parseTimestamp(raw)
}

/** A stored value as the user sees it (timestamps as a file without zones writes them: "2014-07-01 00:00:00"). */
export function toDisplay(type: ColumnType, v: unknown): CellValue {
  if (v === null || v === undefined) return null
  if (type === 'timestamp' && typeof v === 'number') return timestampText(v)
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()
  if (typeof v === 'number' || typeof v === 'string') return v
  return String(v)
}

/** SQLite storage class of a column type (STRICT tables). */
export function sqlTypeOf(type: ColumnType): 'INTEGER' | 'REAL' | 'TEXT' {
  return type === 'real' ? 'REAL' : type === 'text' ? 'TEXT' : 'INTEGER'
}

export function describeType(type: ColumnType): string {
  return type === 'integer' ? 'a whole number' : type === 'real' ? 'a number' : type === 'timestamp' ? 'a timestamp' : 'text'
}

/**
 * The narrowest type every non-empty value fits: integer, then real, then timestamp, else text. Integers written with
 * a leading zero ("007", zip codes, ids) make the column text so that nothing is lost. All-empty columns are text.
 */
export function inferType(values: readonly string[]): ColumnType {
  let seen = 0
  let int = true
  let real = true
  let ts = true
  for (const raw of values) {
    const s = raw.trim()
    if (s === '') continue
    seen++
    if (int && (parseInteger(s) === BAD_VALUE || /^[+-]?0\d/.test(s))) int = false
    if (real && !int && (parseReal(s) === BAD_VALUE || /^[+-]?0\d/.test(s))) real = false
    if (ts && parseTimestamp(s) === BAD_VALUE) ts = false
    if (!int && !real && !ts) return 'text'
  }
  if (seen === 0) return 'text'
  if (int) return 'integer'
  if (real) return 'real'
  return ts ? 'timestamp' : 'text'
}

/** A stored value as a group-key component: numbers and text compare by their text (so 5, 5.0 and "5" match), timestamps by ISO text. */
export function keyPart(type: ColumnType, v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (type === 'timestamp' && typeof v === 'number') return new Date(v).toISOString()
  return String(v)
}

/** The key of a group: a JSON list of its key parts in group-by order. */
export function groupKey(types: readonly ColumnType[], values: readonly unknown[]): string {
  return JSON.stringify(values.map((v, i) => keyPart(types[i], v)))
}
