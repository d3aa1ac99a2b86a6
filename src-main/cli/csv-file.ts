/**
 * Reading a small CSV file given on the command line (workloads, series; `bundled:<path>` names one the app ships in
 * resources/). Whole-file, strict RFC 4180 via csv-parse.
 * Large dataset imports go through the streaming importer of the datasets service instead.
 */
import { readFileSync, statSync } from 'node:fs'
import { parse } from 'csv-parse/sync'
import { resolveDataPath } from '../services/local'
import { UsageError } from './command'

export interface CsvTable {
  path: string
  header: string[]
  rows: string[][]
}

export function readCsvFile(path: string, cwd = process.cwd(), what = 'file'): CsvTable {
  const abs = resolveDataPath(path, cwd)
  let text: string
  try {
    if (!statSync(abs).isFile()) throw new UsageError(`${what} ${path} is not a file`)
    text = readFileSync(abs, 'utf8')
  } catch (e) {
    if (e instanceof UsageError) throw e
    throw new UsageError(`cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`)
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  if (text.trim() === '') throw new UsageError(`${what} ${path} is empty`)
  let records: string[][]
  try {
    records = parse(text, { skip_empty_lines: true, relax_column_count: false }) as string[][]
  } catch (e) {
    const err = e as { lines?: number; message: string }
    throw new UsageError(`${what} ${path} is not valid CSV${err.lines ? ` (line ${err.lines})` : ''}: ${err.message.split('\n')[0]}`)
  }
  const [header, ...rows] = records
  const names = header.map((h) => h.trim())
  if (names.some((h) => h === '')) throw new UsageError(`${what} ${path} has an empty column name in its header`)
  const seen = new Set<string>()
  for (const h of names) {
    if (seen.has(h)) throw new UsageError(`${what} ${path} repeats the column name "${h}"`)
    seen.add(h)
  }
  if (rows.length === 0) throw new UsageError(`${what} ${path} has a header but no rows`)
  return { path, header: names, rows }
}

/** Index of a required column, or a UsageError naming the columns that exist. */
export function columnIndex(table: CsvTable, column: string, what = 'file'): number {
  const i = table.header.indexOf(column)
  if (i < 0) throw new UsageError(`${what} ${table.path} has no column "${column}" (columns: ${table.header.join(', ')})`)
  return i
}

/** The numeric values of a column; a non-numeric cell is a UsageError naming its line. */
export function numericColumn(table: CsvTable, column: string, what = 'file'): Float64Array {
  const i = columnIndex(table, column, what)
  const out = new Float64Array(table.rows.length)
  for (let r = 0; r < table.rows.length; r++) {
    const raw = table.rows[r][i]
    const x = raw.trim() === '' ? NaN : Number(raw)
    if (!Number.isFinite(x)) throw new UsageError(`${what} ${table.path} line ${r + 2}: "${column}" is not a number ("${raw.slice(0, 40)}")`)
    out[r] = x
  }
  return out
}
