/**
 * Appending the rows of a CSV/TSV file to an imported dataset (a dataset that grows: an alarm reads each new period's
 * rows from it). All or nothing:
 * 1. The file's header must name exactly the dataset's columns (any order); every value must fit its column's stored
 *    type (the types are the dataset's, never inferred again). The first row that does not fit stops the append.
 * 2. Rows go to a staging database beside the workspace (store/staging.ts) in batched transactions.
 * 3. One transaction copies them into `ds_<id>` in file order, updates the catalog's counts and checks the columns
 *    declared one value per person over all rows, old and new; any failure rolls it back, so the dataset holds either
 *    all of the file's rows or none of them.
 * Only imported datasets take rows this way: a linked dataset grows where it lives. A dataset the privacy officer
 * declared public does not: the declaration covers the rows it was made on, and new rows would become public without one.
 */
import type Database from 'better-sqlite3'
import { basename } from 'node:path'
import type { AppendResult, ColumnType, Delimiter } from '../../contract/datasets'
import { CancelledError, UserError, isDiskFull } from '../platform/errors'
import type { StoredValue } from '../catalog/column-types'
import { type CatalogDataset, getDataset, ident } from '../catalog/catalog'
import { DELIMITERS, checkReadableFile, detectDelimiter, readCsv } from './csv-reader'
import { type Staging, closeStaging, dropOrphanStagingTables, openStaging } from '../store/staging'
import { columnWithSeveralValues } from '../trust/unit-declaration'
import { checkHeader, makeRowChecker } from './import-dataset'

const BATCH_ROWS = 5000

export interface AppendPathRequest {
  datasetId: number
  /** The file to append (only the CLI and the file-handle registry supply a path). */
  path: string
  /** The file's name as the user knows it (default: the path's base name). */
  sourceName?: string
  delimiter?: Delimiter
}

export interface AppendPlan {
  datasetId: number
  datasetName: string
  path: string
  sourceName: string
  fileBytes: number
  delimiter: Delimiter
}

export interface AppendHooks {
  signal?: AbortSignal
  /** Test hook: called after each staged batch. */
  afterBatch?: (rowsStaged: number) => void
}

/** Checks an append request before any work starts: the dataset is an imported, private one and the file readable. */
export function planAppend(db: Database.Database, req: AppendPathRequest): AppendPlan {
  const ds = getDataset(db, req.datasetId)
  const d = ds.info
  if (d.source !== undefined && d.source !== 'imported')
    throw new UserError(
      `Dataset "${d.name}" is linked (${d.source.replace('linked-', '')}), so it grows where it lives; only imported datasets take appended rows`,
      'bad-input'
    )
  if (d.public)
    throw new UserError(
      `Dataset "${d.name}" is declared public and its declaration covers the rows it was made on; import the new rows as a dataset of their own`,
      'bad-input'
    )
  if (req.delimiter !== undefined && !(DELIMITERS as readonly string[]).includes(req.delimiter))
    throw new UserError('The delimiter must be a comma, tab, semicolon or bar', 'bad-input')
  const fileBytes = checkReadableFile(req.path)
  return {
    datasetId: d.id,
    datasetName: d.name,
    path: req.path,
    sourceName: basename(req.sourceName ?? req.path),
    fileBytes,
    delimiter: req.delimiter ?? detectDelimiter(req.path)
  }
}

/** The header must name the dataset's columns, each once, in any order. Returns, per file field, its column index. */
function matchHeader(ds: CatalogDataset, header: string[]): number[] {
  const names = ds.columns.map((c) => c.name)
  const missing = names.filter((n) => !header.includes(n))
  const extra = header.filter((n) => !names.includes(n))
  if (missing.length > 0 || extra.length > 0) {
    const list = (xs: string[]) =>
      xs
        .slice(0, 3)
        .map((x) => `"${x.slice(0, 80)}"`)
        .join(', ') + (xs.length > 3 ? ` and ${xs.length - 3} more` : '')
    const parts = [
      ...(missing.length ? [`has no column ${list(missing)}`] : []),
      ...(extra.length ? [`has ${extra.length === 1 ? 'a column' : 'columns'} ${list(extra)} the dataset does not have`] : [])
    ]
    throw new UserError(
      `The file's header ${parts.join(' and ')}; an append needs the same columns as dataset "${ds.info.name}" (${ds.columns.length}: ${list(names)}); nothing was appended`,
      'bad-file'
    )
  }
  return header.map((n) => names.indexOf(n))
}

/** Adds the file's rows to the dataset in one transaction, or throws one sentence and leaves the dataset as it was. */
export async function runAppend(db: Database.Database, plan: AppendPlan, hooks: AppendHooks = {}): Promise<AppendResult> {
  dropOrphanStagingTables(db)
  const started = Date.now()
  const ds = getDataset(db, plan.datasetId)
  const types: ColumnType[] = ds.columns.map((c) => c.type)
  const width = types.length
  let order: number[] | null = null
  let check: ReturnType<typeof makeRowChecker> | null = null
  let staging: Staging | null = null
  let insertOne: Database.Statement | null = null
  let batch: StoredValue[][] = []
  let staged = 0

  const flush = () => {
    if (batch.length === 0 || insertOne === null) return
    const one = insertOne
    const rows = batch
    db.transaction(() => {
      for (const r of rows) one.run(r)
    })()
    staged += rows.length
    batch = []
    hooks.afterBatch?.(staged)
  }

  try {
    const summary = await readCsv(plan.path, {
      delimiter: plan.delimiter,
      signal: hooks.signal,
      onRecord: (fields, line) => {
        if (order === null) {
          const header = checkHeader(fields, line)
          order = matchHeader(ds, header)
          const fileTypes = order.map((i) => types[i])
          check = makeRowChecker(
            header,
            fileTypes,
            header.map(() => 'override' as const),
            plan.delimiter
          )
          staging = openStaging(db)
          db.exec(`CREATE TABLE ${staging.qualified} (${types.map((_, i) => `"c${i + 1}"`).join(', ')})`)
          insertOne = db.prepare(`INSERT INTO ${staging.qualified} VALUES (${types.map(() => '?').join(', ')})`)
          return
        }
        const r = check!(fields)
        if (!Array.isArray(r)) {
          const what = r.reason.startsWith(': ') ? `Line ${line}${r.reason.replace(' is set to ', ' takes ')}` : `Line ${line} ${r.reason}`
          throw new UserError(`${what}; fix the file (the dataset's column types stay as imported); nothing was appended`, 'bad-row')
        }
        const row: StoredValue[] = new Array(width)
        for (let f = 0; f < r.length; f++) row[order[f]] = r[f]
        batch.push(row)
        if (batch.length >= BATCH_ROWS) flush()
      }
    })
    if (order === null) throw new UserError('The file has no header row (it contains only empty lines); nothing was appended', 'bad-file')
    flush()
    if (staged === 0) throw new UserError('The file has a header row but no data rows; nothing to append', 'bad-file')
    if (hooks.signal?.aborted) throw new CancelledError()
    const st = staging as Staging | null
    if (st === null) throw new Error('append staging missing')
    const cols = ds.columns.map((c) => ident(c.sqlName)).join(', ')
    const table = ident(ds.tableName)
    const total = db
      .transaction(() => {
        const now = getDataset(db, plan.datasetId)
        if (now.tableName !== ds.tableName || now.columns.length !== width)
          throw new UserError(`Dataset "${ds.info.name}" changed while appending; nothing was appended, try again`, 'conflict')
        db.exec(`INSERT INTO main.${table} (${cols}) SELECT ${types.map((_, i) => `"c${i + 1}"`).join(', ')} FROM ${st.qualified} ORDER BY rowid`)
        db.prepare('UPDATE datasets SET row_count = row_count + ?, source_bytes = source_bytes + ? WHERE id = ?').run(
          staged,
          summary.bytes,
          plan.datasetId
        )
        const unit = now.info.unit
        if (unit.kind === 'person') {
          const person = now.columns.find((c) => c.name === unit.column)
          const declared = now.columns
            .filter((c) => c.perPerson === true && c.name !== unit.column)
            .map((c) => ({ name: c.name, sql_name: c.sqlName }))
          if (person && declared.length > 0) {
            const several = columnWithSeveralValues(db, now.tableName, person.sqlName, declared)
            if (several !== null)
              throw new UserError(
                `The column "${several.slice(0, 80)}" is declared to hold one value per person, but with the file's rows a person has several values in it; nothing was appended`,
                'bad-input'
              )
          }
        }
        return now.info.rowCount + staged
      })
      .immediate()
    return {
      datasetId: plan.datasetId,
      name: ds.info.name,
      appended: staged,
      rows: total,
      bytes: summary.bytes,
      seconds: (Date.now() - started) / 1000
    }
  } catch (e) {
    if (isDiskFull(e))
      throw new UserError(`Not enough space to append ${plan.sourceName} to dataset "${ds.info.name}"; nothing was appended`, 'disk-full')
    throw e
  } finally {
    const st = staging as Staging | null
    if (st !== null) closeStaging(db, st)
  }
}

/** The append's outcome in a sentence. */
export function appendText(r: AppendResult): string {
  return `Appended ${r.appended.toLocaleString('en-US')} rows to dataset ${r.datasetId} "${r.name}" (now ${r.rows.toLocaleString('en-US')} rows) in ${r.seconds.toFixed(1)} s`
}
