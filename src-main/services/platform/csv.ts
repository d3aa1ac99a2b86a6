/**
 * The one CSV writer of the services (report tables and the experiments screen's export).
 *
 * RFC 4180: comma-separated, CRLF line ends, fields containing a comma, quote, CR or LF quoted with quotes doubled,
 * UTF-8 without BOM, one header row, empty field = none. Formula neutralisation: a text field that a spreadsheet could
 * run as a formula (starting with = + - @ TAB or CR), or that starts with an apostrophe, gets one apostrophe in front;
 * a reader removes one leading apostrophe from a text field to get the value back (`unneutralise`). Numbers, and text
 * that is a plain decimal ("-0.25"), are never prefixed. docs/guide/reports.md, "CSV tables".
 */

export type CsvValue = string | number | boolean | null | undefined

/** Text a spreadsheet would run as a formula, or that starts with the apostrophe that marks a neutralised field. */
const FORMULA_START = /^[=+\-@\t\r']/
/** A plain decimal such as "-0.25" is a number to a spreadsheet, not a formula: left as it is. */
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/

/** One field: numbers as numbers (non-finite as empty), text neutralised against formula injection, quoted when needed. */
export function csvField(v: CsvValue): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : ''
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  const s = FORMULA_START.test(v) && !PLAIN_DECIMAL.test(v) ? `'${v}` : v
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** The inverse of the text neutralisation, for readers (and the tests). */
export function unneutralise(field: string): string {
  return field.startsWith("'") ? field.slice(1) : field
}

/** A whole table: the header row, then one line per row, each ended by CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  const lines = [header.map(csvField).join(',')]
  for (const r of rows) lines.push(r.map(csvField).join(','))
  return lines.join('\r\n') + '\r\n'
}
