/**
 * Importing a CSV/TSV file into the workspace, streaming.
 *
 * 1. The header row gives the column names (data: stored in `dataset_columns`, mapped to generated SQL names c1..cN).
 * 2. Types are inferred from the first INFER_ROWS data rows, then per-column overrides apply.
 * 3. Rows go into a staging table in batched transactions; a row that does not fit (wrong number of fields, only
 *    delimiters, a value not of its column's type) is a bad row: abort (default) or skip and report.
 * 4. One last transaction renames the staging table to `ds_<id>` and writes the catalog rows.
 * Failure or cancel drops the staging table; a crash leaves an orphan staging table that the next open drops, so a
 * dataset is either complete in the catalog or absent.
 */
import type Database from 'better-sqlite3'
import { statfsSync } from 'node:fs'
import { basename, dirname, extname } from 'node:path'
import type { BadRow, ColumnType, Delimiter, ImportRequest, ImportResult } from '../../contract/datasets'
import { CancelledError, UserError, isDiskFull } from '../platform/errors'
import { BAD_VALUE, type StoredValue, describeType, inexactHint, inferType, isColumnType, sqlTypeOf, toStored } from '../catalog/column-types'
import { checkDatasetName, getDataset, ident, nameTaken } from '../catalog/catalog'
import { DELIMITERS, checkReadableFile, delimiterName, detectDelimiter, readCsv } from './csv-reader'
import { type Staging, closeStaging, dropOrphanStagingTables, openStaging } from '../store/staging'
import { checkPerPersonColumnsOption, checkPersonColumnInHeader, checkPersonColumnOption, recordPrivacyUnit } from '../catalog/unit-record'
import { freshDatasetId, freshDatasetUid } from '../catalog/fresh-dataset-id'

export const INFER_ROWS = 1000
export const MAX_COLUMNS = 1000
export const MAX_COLUMN_NAME = 200
const BATCH_ROWS = 5000
const DEFAULT_REPORT = 20
const MAX_REPORT = 1000

/**
 * The service's own form of an import request: a path, which only the CLI and the file-handle registry supply (the
 * contract's `datasets/import` takes a `fileId`). `sourceName`: the file's name as the user knows it (default: the
 * path's base name).
 */
export type ImportPathRequest = Omit<ImportRequest, 'fileId'> & { path: string; sourceName?: string }

export interface ImportPlan {
  path: string
  /** The file's own name, recorded as the dataset's source. */
  sourceName: string
  fileBytes: number
  name: string
  delimiter: Delimiter
  types: Record<string, ColumnType>
  onBadRow: 'skip' | 'abort'
  reportBadRows: number
  /** The privacy unit: the person column, or null/absent for row-level (privacy-unit.ts). */
  personColumn?: string | null
  /** Person-level imports: the columns declared to hold one value per person (checked over all rows). */
  perPersonColumns?: string[]
}

export interface ImportProgress {
  rows: number
  bytes: number
  totalBytes: number
  badRows: number
  seconds: number
  rowsPerSecond: number
  bytesPerSecond: number
}

export interface ImportHooks {
  signal?: AbortSignal
  onProgress?: (p: ImportProgress) => void
  /** Test hook: called after each committed batch (crash tests kill the process around here). */
  afterBatch?: (rowsCommitted: number) => void
}

/** Checks an import request before any work starts (synchronous, so the caller gets the error directly). */
export function planImport(db: Database.Database, req: ImportPathRequest): ImportPlan {
  if (!req || typeof req !== 'object') throw new UserError('An import request needs a file', 'bad-input')
  const fileBytes = checkReadableFile(req.path)
  const sourceName = basename(req.sourceName ?? req.path)
  const fallback = basename(sourceName, extname(sourceName)) || 'dataset'
  const name = checkDatasetName(req.name === undefined || req.name === '' ? fallback : req.name)
  if (nameTaken(db, name)) throw new UserError(`A dataset named "${name}" already exists; choose another name`, 'conflict')
  if (req.delimiter !== undefined && !(DELIMITERS as readonly string[]).includes(req.delimiter)) {
    throw new UserError('The delimiter must be a comma, tab, semicolon or bar', 'bad-input')
  }
  const types: Record<string, ColumnType> = {}
  if (req.types !== undefined) {
    if (typeof req.types !== 'object' || req.types === null || Array.isArray(req.types))
      throw new UserError('Column types must be a map from column name to type', 'bad-input')
    for (const [col, t] of Object.entries(req.types)) {
      if (!isColumnType(t)) throw new UserError(`The type of column "${col.slice(0, 80)}" must be integer, real, text or timestamp`, 'bad-input')
      types[col] = t
    }
  }
  const onBadRow = req.onBadRow ?? 'abort'
  if (onBadRow !== 'skip' && onBadRow !== 'abort') throw new UserError('onBadRow must be "skip" or "abort"', 'bad-input')
  const report = req.reportBadRows ?? DEFAULT_REPORT
  if (!Number.isSafeInteger(report) || report < 0 || report > MAX_REPORT)
    throw new UserError(`reportBadRows must be a whole number from 0 to ${MAX_REPORT}`, 'bad-input')
  return {
    path: req.path,
    sourceName,
    fileBytes,
    name,
    delimiter: req.delimiter ?? detectDelimiter(req.path),
    types,
    onBadRow,
    reportBadRows: report,
    personColumn: checkPersonColumnOption(req.personColumn),
    perPersonColumns: checkPerPersonColumnsOption(req.perPersonColumns, checkPersonColumnOption(req.personColumn))
  }
}

/** Column names from the header row, checked. */
export function checkHeader(fields: string[], line: number): string[] {
  if (fields.every((f) => f.trim() === ''))
    throw new UserError(`The header row (line ${line}) has no column names; the first line must name the columns`, 'bad-file')
  if (fields.length > MAX_COLUMNS)
    throw new UserError(`The header row has ${fields.length} columns; at most ${MAX_COLUMNS} are supported`, 'bad-file')
  const names = fields.map((f) => f.trim())
  const seen = new Map<string, number>()
  names.forEach((n, i) => {
    if (n === '') throw new UserError(`Column ${i + 1} of the header row has no name; give every column a name`, 'bad-file')
    if (n.length > MAX_COLUMN_NAME)
      throw new UserError(
        `Column ${i + 1} of the header row has a name longer than ${MAX_COLUMN_NAME} characters; is the first line really a header?`,
        'bad-file'
      )
    const prev = seen.get(n)
    if (prev !== undefined)
      throw new UserError(`Columns ${prev + 1} and ${i + 1} of the header row are both named "${n}"; give each column its own name`, 'bad-file')
    seen.set(n, i)
  })
  return names
}

function quoteValue(v: string): string {
  const s = v.length > 40 ? `${v.slice(0, 40)}...` : v
  return JSON.stringify(s)
}

/** Hint for a row with too few fields that looks like it uses another delimiter. */
function delimiterHint(fields: string[], delimiter: Delimiter): string {
  const joined = fields.join('')
  for (const d of DELIMITERS) {
    if (d !== delimiter && joined.includes(d)) return ` (it seems to use ${delimiterName(d)} instead of ${delimiterName(delimiter)})`
  }
  return ''
}

interface BadReason {
  /** Completes "Line N ..." (starts with ": " when it names a column). */
  reason: string
  /** The column whose value did not fit, or -1. */
  column: number
}

interface RowChecker {
  /** Converted values, or why the row is bad. */
  (fields: string[]): StoredValue[] | BadReason
}

export function makeRowChecker(names: string[], types: ColumnType[], sources: Array<'inferred' | 'override'>, delimiter: Delimiter): RowChecker {
  const n = names.length
  return (fields) => {
    if (fields.length !== n) {
      if (fields.length < n && fields.every((f) => f === '')) return { reason: 'has only delimiters, no values', column: -1 }
      const hint = fields.length < n ? delimiterHint(fields, delimiter) : ''
      return { reason: `has ${fields.length} field${fields.length === 1 ? '' : 's'}, the header has ${n}${hint}`, column: -1 }
    }
    if (n > 1 && fields.every((f) => f === '')) return { reason: 'has only delimiters, no values', column: -1 }
    const out: StoredValue[] = new Array(n)
    for (let i = 0; i < n; i++) {
      const v = toStored(types[i], fields[i])
      if (v === BAD_VALUE) {
        const reason =
          sources[i] === 'override'
            ? `: column "${names[i]}" is set to ${describeType(types[i])} but has ${quoteValue(fields[i])}${inexactHint(types[i], fields[i])}`
            : `: column "${names[i]}" looked like ${describeType(types[i])} in the first rows but has ${quoteValue(fields[i])}${inexactHint(types[i], fields[i])}`
        return { reason, column: i }
      }
      out[i] = v
    }
    return out
  }
}

function reasonText(reason: string): string {
  return reason.startsWith(': ') ? reason.slice(2) : reason
}

function abortMessage(line: number, reason: string, source: 'inferred' | 'override' | null): string {
  const what = reason.startsWith(': ') ? `Line ${line}${reason}` : `Line ${line} ${reason}`
  const fix =
    source === 'inferred'
      ? "set the column's type (e.g. to text), fix the file, or skip bad rows"
      : source === 'override'
        ? "fix the file, change the column's type, or skip bad rows"
        : 'fix the file or skip bad rows'
  return `${what}; ${fix}`
}

function mib(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`
  return bytes >= 1024 ** 2 ? `${(bytes / 1024 ** 2).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`
}

/**
 * A bad environment, not bad input: which disk (the workspace's folder), how much the import needed (about the file's
 * size; the file was read this far) and how much is free, and that nothing was stored.
 */
export function diskFullError(db: Database.Database, plan: ImportPlan, bytesRead: number): UserError {
  const file = db.name
  const where = file === ':memory:' || file === '' ? 'memory' : dirname(file)
  const pageSize = Number(db.pragma('page_size', { simple: true }))
  const maxPages = Number(db.pragma('max_page_count', { simple: true }))
  const limit = maxPages * pageSize
  let free: number | null = null
  try {
    if (where !== 'memory') {
      const st = statfsSync(where)
      free = Number(st.bavail) * Number(st.bsize)
    }
  } catch {
    free = null
  }
  const needed = `about ${mib(plan.fileBytes)} (the size of ${plan.sourceName}${bytesRead > 0 ? `; ${mib(bytesRead)} of it had been read` : ''})`
  // A workspace with a page limit below the free space reached that limit (its pages may be freed again by the time this
  // runs: the import is staged apart and rolled back); otherwise the disk itself is full.
  const limited = maxPages < 4294967294 && (free === null || limit < free)
  const what = limited
    ? `the workspace ${file} reached its size limit of ${mib(limit)} (SQLite max_page_count)`
    : `the disk holding the workspace (${where}) is full${free === null ? '' : ` (${mib(free)} free)`}`
  const fix = limited
    ? 'Use another workspace (--db), or open this one without the limit.'
    : 'Free some space on that disk, or use a workspace on another disk (--db).'
  return new UserError(
    `Not enough space to import ${plan.sourceName}: ${what}; the import needs ${needed}. Nothing was imported. ${fix}`,
    'disk-full'
  )
}

export async function runImport(db: Database.Database, plan: ImportPlan, hooks: ImportHooks = {}): Promise<ImportResult> {
  dropOrphanStagingTables(db)
  const started = Date.now()
  let names: string[] | null = null
  let types: ColumnType[] = []
  let sources: Array<'inferred' | 'override'> = []
  let check: RowChecker | null = null
  const pending: Array<{ fields: string[]; line: number }> = []
  let staging: Staging | null = null
  let columnsSql = ''
  let insertOne: Database.Statement | null = null
  let insertMany: Database.Statement | null = null
  let rowsPerInsert = 1
  /** Values of the rows waiting for the next batch, flattened row after row. */
  let batch: StoredValue[] = []
  let batchRows = 0
  let rows = 0
  let badCount = 0
  const bad: BadRow[] = []
  let bytes = 0

  const flush = () => {
    if (batchRows === 0 || !insertOne || !insertMany) return
    const one = insertOne
    const many = insertMany
    const values = batch
    const n = batchRows
    const width = values.length / n
    db.transaction(() => {
      // Several rows per statement: far fewer native calls than one per row.
      let r = 0
      for (; r + rowsPerInsert <= n; r += rowsPerInsert) many.run(values.slice(r * width, (r + rowsPerInsert) * width))
      for (; r < n; r++) one.run(values.slice(r * width, (r + 1) * width))
    })()
    rows += n
    batch = []
    batchRows = 0
    hooks.afterBatch?.(rows)
  }

  const handle = (fields: string[], line: number) => {
    const r = check!(fields)
    if (!Array.isArray(r)) {
      badCount++
      if (plan.onBadRow === 'abort') throw new UserError(abortMessage(line, r.reason, r.column >= 0 ? sources[r.column] : null), 'bad-row')
      if (bad.length < plan.reportBadRows) bad.push({ line, reason: reasonText(r.reason) })
      return
    }
    for (let i = 0; i < r.length; i++) batch.push(r[i])
    batchRows++
    if (batchRows >= BATCH_ROWS) flush()
  }

  const begin = () => {
    // Types: inferred from the buffered rows of the right length, then overrides.
    const n = names!.length
    const sample = pending.filter((p) => p.fields.length === n)
    types = names!.map((name, i) => plan.types[name] ?? inferType(sample.map((p) => p.fields[i])))
    sources = names!.map((name) => (plan.types[name] ? 'override' : 'inferred'))
    check = makeRowChecker(names!, types, sources, plan.delimiter)
    staging = openStaging(db)
    columnsSql = types.map((t, i) => `"c${i + 1}" ${sqlTypeOf(t)}`).join(', ')
    db.exec(`CREATE TABLE ${staging.qualified} (${columnsSql}) STRICT`)
    const tuple = `(${names!.map(() => '?').join(', ')})`
    rowsPerInsert = Math.max(1, Math.min(100, Math.floor(30_000 / n)))
    insertOne = db.prepare(`INSERT INTO ${staging.qualified} VALUES ${tuple}`)
    insertMany = db.prepare(`INSERT INTO ${staging.qualified} VALUES ${Array.from({ length: rowsPerInsert }, () => tuple).join(', ')}`)
    for (const p of pending) handle(p.fields, p.line)
    pending.length = 0
  }

  const progress = () => {
    if (!hooks.onProgress) return
    const seconds = Math.max(1e-3, (Date.now() - started) / 1000)
    const done = rows + batchRows
    hooks.onProgress({
      rows: done,
      bytes,
      totalBytes: plan.fileBytes,
      badRows: badCount,
      seconds,
      rowsPerSecond: done / seconds,
      bytesPerSecond: bytes / seconds
    })
  }

  try {
    const summary = await readCsv(plan.path, {
      delimiter: plan.delimiter,
      signal: hooks.signal,
      onChunk: (p) => {
        bytes = p.bytes
        progress()
      },
      onRecord: (fields, line) => {
        if (names === null) {
          names = checkHeader(fields, line)
          const unknown = Object.keys(plan.types).find((k) => !names!.includes(k))
          if (unknown !== undefined)
            throw new UserError(`A type is set for column "${unknown.slice(0, 80)}", but the header row has no such column`, 'bad-input')
          checkPersonColumnInHeader(plan.personColumn ?? null, names)
          return
        }
        if (check === null) {
          pending.push({ fields, line })
          if (pending.length >= INFER_ROWS) begin()
          return
        }
        handle(fields, line)
      }
    })
    bytes = summary.bytes
    if (names === null) throw new UserError('The file has no header row (it contains only empty lines)', 'bad-file')
    if (check === null) begin()
    flush()
    progress()
    if (rows === 0) {
      if (badCount === 0) throw new UserError('The file has a header row but no data rows; nothing to import', 'bad-file')
      throw new UserError(`All ${badCount} data rows are bad (the first: line ${bad[0]?.line ?? '?'}); nothing was imported`, 'bad-file')
    }
    if (hooks.signal?.aborted) throw new CancelledError()
    // The one transaction that makes the dataset exist.
    const finalNames = names as string[]
    const id = db.transaction(() => {
      if (nameTaken(db, plan.name)) {
        throw new UserError(`A dataset named "${plan.name}" was created while importing; nothing was imported, choose another name`, 'conflict')
      }
      const info = db
        .prepare(
          'INSERT INTO datasets (id, uid, name, table_name, source_file, source_bytes, delimiter, row_count, skipped_rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'
        )
        .run(freshDatasetId(db), freshDatasetUid(), plan.name, staging!.name, plan.sourceName, summary.bytes, plan.delimiter, rows, badCount)
      const dsId = Number(info.lastInsertRowid)
      const table = `ds_${dsId}`
      if (staging!.file === null) db.exec(`ALTER TABLE ${staging!.qualified} RENAME TO ${ident(table)}`)
      else {
        // In file order: rowids stay dense 1..n as the catalog pages them.
        db.exec(`CREATE TABLE main.${ident(table)} (${columnsSql}) STRICT`)
        db.exec(`INSERT INTO main.${ident(table)} SELECT * FROM ${staging!.qualified} ORDER BY rowid`)
      }
      db.prepare('UPDATE datasets SET table_name = ? WHERE id = ?').run(table, dsId)
      const addCol = db.prepare('INSERT INTO dataset_columns (dataset_id, position, name, sql_name, type, type_source) VALUES (?, ?, ?, ?, ?, ?)')
      finalNames.forEach((name, i) => addCol.run(dsId, i + 1, name, `c${i + 1}`, types[i], sources[i]))
      recordPrivacyUnit(db, dsId, plan.personColumn ?? null, plan.perPersonColumns ?? [])
      return dsId
    })()
    return {
      dataset: getDataset(db, id).info,
      badRowCount: badCount,
      badRows: bad,
      bytes: summary.bytes,
      seconds: (Date.now() - started) / 1000
    }
  } catch (e) {
    if (isDiskFull(e)) {
      // The space the staging took comes back first (so the sentence says what is free), and the WAL frames of the
      // failed last transaction with it.
      if (staging !== null) closeStaging(db, staging)
      staging = null
      try {
        db.pragma('wal_checkpoint(TRUNCATE)')
      } catch {
        /* best effort: the next checkpoint does it */
      }
      throw diskFullError(db, plan, bytes)
    }
    throw e
  } finally {
    // Staging is deleted whatever happened (copied into the workspace when the import finished).
    if (staging !== null) closeStaging(db, staging)
  }
}
