/**
 * Workload files for threshold queries: CSV text with a header containing `predicate,count,threshold` (any order,
 * other columns ignored). Pure: text in, arrays out; I/O (missing or empty file) is the caller's business.
 * Errors are `WorkloadError` with one sentence naming the line and column.
 */
export class WorkloadError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WorkloadError'
  }
}

export interface Workload {
  predicates: string[]
  counts: Float64Array
  thresholds: Float64Array
}

/** Minimal RFC 4180 reader: quoted fields, doubled quotes, CRLF or LF; blank lines skipped. Returns [line, fields]. */
export function parseCsvRows(text: string): Array<{ line: number; fields: string[] }> {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const rows: Array<{ line: number; fields: string[] }> = []
  let fields: string[] = []
  let field = ''
  let line = 1
  let rowLine = 1
  let i = 0
  let quoted = false
  let fieldWasQuoted = false
  const endRow = () => {
    fields.push(field)
    if (!(fields.length === 1 && fields[0].trim() === '' && !fieldWasQuoted)) rows.push({ line: rowLine, fields })
    fields = []
    field = ''
    fieldWasQuoted = false
  }
  while (i < text.length) {
    const ch = text[i]
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i += 2
          continue
        }
        quoted = false
        i++
        continue
      }
      if (ch === '\n') line++
      field += ch
      i++
      continue
    }
    if (ch === '"' && field === '') {
      quoted = true
      fieldWasQuoted = true
      i++
    } else if (ch === ',') {
      fields.push(field)
      field = ''
      fieldWasQuoted = false
      i++
    } else if (ch === '\r' || ch === '\n') {
      endRow()
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1
      line++
      rowLine = line
    } else {
      field += ch
      i++
    }
  }
  if (quoted) throw new WorkloadError(`line ${rowLine}: a quoted field is not closed`)
  if (field !== '' || fields.length > 0 || fieldWasQuoted) endRow()
  return rows
}

const REQUIRED = ['predicate', 'count', 'threshold'] as const

function parseNumberCell(raw: string): number {
  const t = raw.trim()
  return t === '' ? NaN : Number(t)
}

export function parseWorkload(text: string): Workload {
  const rows = parseCsvRows(text)
  if (rows.length === 0) throw new WorkloadError('the workload is empty')
  const header = rows[0].fields.map((h) => h.trim())
  const col: Record<string, number> = {}
  for (const name of REQUIRED) {
    const j = header.indexOf(name)
    if (j < 0) throw new WorkloadError(`the workload has no column "${name}" (it needs predicate,count,threshold; found: ${header.join(', ')})`)
    col[name] = j
  }
  const body = rows.slice(1)
  if (body.length === 0) throw new WorkloadError('the workload has a header but no predicates')
  const predicates: string[] = []
  const counts = new Float64Array(body.length)
  const thresholds = new Float64Array(body.length)
  const seen = new Map<string, number>()
  body.forEach((row, r) => {
    if (row.fields.length !== header.length) throw new WorkloadError(`line ${row.line}: expected ${header.length} fields, found ${row.fields.length}`)
    const name = row.fields[col.predicate].trim()
    if (name === '') throw new WorkloadError(`line ${row.line}: the predicate name is empty`)
    const first = seen.get(name)
    if (first !== undefined) throw new WorkloadError(`line ${row.line}: predicate "${name.slice(0, 60)}" repeats line ${first}`)
    seen.set(name, row.line)
    const c = parseNumberCell(row.fields[col.count])
    if (!Number.isFinite(c)) throw new WorkloadError(`line ${row.line}: count is not a number ("${row.fields[col.count].slice(0, 40)}")`)
    if (c < 0) throw new WorkloadError(`line ${row.line}: count must not be negative`)
    const th = parseNumberCell(row.fields[col.threshold])
    if (!Number.isFinite(th)) throw new WorkloadError(`line ${row.line}: threshold is not a number ("${row.fields[col.threshold].slice(0, 40)}")`)
    predicates.push(name)
    counts[r] = c
    thresholds[r] = th
  })
  return { predicates, counts, thresholds }
}
