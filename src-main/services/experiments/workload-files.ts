/**
 * Reading the files a spec names (workload CSVs, series, record files) with one-sentence errors, and content hashes.
 * Small files only: they are read whole (the datasets service streams large imports instead).
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { basename, extname } from 'node:path'
import { parse } from 'csv-parse/sync'
import { resolveDataPath } from '../platform/bundled-files'
import { UserError } from '../platform/errors'

export interface CsvTable {
  path: string
  header: string[]
  rows: string[][]
}

const MAX_BYTES = 256 * 1024 * 1024

export function readText(path: string, cwd: string, what: string): { abs: string; text: string } {
  const abs = resolveDataPath(path, cwd)
  let text: string
  try {
    const st = statSync(abs)
    if (!st.isFile()) throw new UserError(`The ${what} ${path} is not a file; give the path of a file.`)
    if (st.size > MAX_BYTES) throw new UserError(`The ${what} ${path} is larger than 256 MB; import it as a dataset instead.`)
    text = readFileSync(abs, 'utf8')
  } catch (e) {
    if (e instanceof UserError) throw e
    const code = (e as NodeJS.ErrnoException).code
    throw new UserError(`Cannot read the ${what} ${path} (${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')}); check the path.`)
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  return { abs, text }
}

export function readCsv(path: string, cwd: string, what: string): CsvTable {
  const { text } = readText(path, cwd, what)
  if (text.trim() === '') throw new UserError(`The ${what} ${path} is empty; give a CSV file with a header and rows.`)
  let records: string[][]
  try {
    records = parse(text, { skip_empty_lines: true, relax_column_count: false }) as string[][]
  } catch (e) {
    const err = e as { lines?: number; message: string }
    throw new UserError(`The ${what} ${path} is not valid CSV${err.lines ? ` at line ${err.lines}` : ''}; fix the file.`)
  }
  const [header, ...rows] = records
  if (rows.length === 0) throw new UserError(`The ${what} ${path} has a header but no rows; add rows.`)
  return { path, header: header.map((h) => h.trim()), rows }
}

export function column(table: CsvTable, name: string, what: string): number {
  const i = table.header.indexOf(name)
  if (i < 0) throw new UserError(`The ${what} ${table.path} has no column "${name}" (columns: ${table.header.join(', ')}).`)
  return i
}

export function numbers(table: CsvTable, name: string, what: string): Float64Array {
  const i = column(table, name, what)
  const out = new Float64Array(table.rows.length)
  for (let r = 0; r < table.rows.length; r++) {
    const raw = table.rows[r][i]
    const x = raw.trim() === '' ? NaN : Number(raw)
    if (!Number.isFinite(x))
      throw new UserError(`The ${what} ${table.path} has a value in column "${name}" on line ${r + 2} that is not a number; fix that row.`)
    out[r] = x
  }
  return out
}

/** Short content hash of typed arrays and strings (hex, 16 characters). */
export function contentHash(...parts: Array<ArrayBufferView | string>): string {
  const h = createHash('sha256')
  for (const p of parts) {
    if (typeof p === 'string') h.update(p)
    else h.update(new Uint8Array(p.buffer, p.byteOffset, p.byteLength))
    h.update('\u0000')
  }
  return h.digest('hex').slice(0, 16)
}

export function defaultLabel(path: string): string {
  return basename(path, extname(path))
}
