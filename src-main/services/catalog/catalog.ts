/**
 * The dataset catalog: which datasets exist, their columns (names from the file, generated SQL names, types), rows
 * by page, rename and delete. SQL identifiers used here come only from the catalog (`ds_<id>`, `c<n>`) and are checked
 * against their generated shape before use; user values are always bound parameters.
 */
import type Database from 'better-sqlite3'
import type { CellValue, ColumnType, DatasetColumn, CountedDatasetInfo, Delimiter, RowsResponse } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import { toDisplay } from './column-types'
import { datasetUnit } from '../trust/privacy-unit'
import { isPublicDataset } from '../trust/public-flag'

export interface CatalogColumn extends DatasetColumn {
  /** Generated SQL name: c1, c2, ... */
  sqlName: string
}

export interface CatalogDataset {
  info: CountedDatasetInfo
  tableName: string
  columns: CatalogColumn[]
}

const TABLE_RE = /^ds_\d+$/
const COLUMN_RE = /^c\d+$/

/** Quotes a generated identifier after checking that it is one (defence in depth: nothing else may reach SQL). */
export function ident(name: string): string {
  if (!TABLE_RE.test(name) && !COLUMN_RE.test(name) && !/^import_staging_\d+_[0-9a-f]+$/.test(name)) {
    throw new Error(`refusing a non-generated SQL identifier`)
  }
  return `"${name}"`
}

interface DatasetRow {
  id: number
  name: string
  table_name: string
  source_file: string
  source_bytes: number
  delimiter: string
  row_count: number
  skipped_rows: number
  created_at: string
  /** 1 when the privacy officer declared the dataset public (a ledger entry of kind 'public'). */
  is_public: number
}
interface ColumnRow {
  dataset_id: number
  position: number
  name: string
  sql_name: string
  type: ColumnType
  type_source: 'inferred' | 'override'
  /** Person-level datasets: 1 when the column holds one value per person (migration 006); NULL for row-level ones. */
  per_person: number | null
}

/** The catalog row with the public flag, which lives in the ledger (an officer's declaration is an entry of kind 'public'). */
const DATASET_SELECT = `SELECT d.*, EXISTS (SELECT 1 FROM ledger_entries e WHERE e.kind = 'public' AND e.dataset_id = d.id) AS is_public FROM datasets d`

function toCatalog(d: DatasetRow, cols: ColumnRow[]): CatalogDataset {
  const columns: CatalogColumn[] = cols.map((c) => ({
    position: c.position,
    name: c.name,
    type: c.type,
    typeSource: c.type_source,
    sqlName: c.sql_name,
    ...(c.per_person === null || c.per_person === undefined ? {} : { perPerson: c.per_person === 1 })
  }))
  return {
    tableName: d.table_name,
    columns,
    info: {
      id: d.id,
      name: d.name,
      rowCount: d.row_count,
      skippedRows: d.skipped_rows,
      columns: columns.map(({ sqlName: _s, ...c }) => c),
      sourceFile: d.source_file,
      sourceBytes: d.source_bytes,
      delimiter: d.delimiter as Delimiter,
      createdAt: d.created_at,
      public: d.is_public === 1,
      unit: { kind: 'row' }
    }
  }
}

/** The dataset's privacy unit (trust/privacy-unit.ts: the one signed with the budget; row-level unless declared at import). */
function withUnit(db: Database.Database, ds: CatalogDataset): CatalogDataset {
  // Public only by an officer's signed declaration (a 'public' row appended with the file does not count).
  if (ds.info.public) ds.info.public = isPublicDataset(db, ds.info.id)
  ds.info.unit = datasetUnit(db, ds.info.id)
  ds.info.source = sourceKind(db, ds.info.id)
  return ds
}

export function checkDatasetId(id: unknown): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw new UserError('datasetId must be a dataset id (a whole number >= 1)', 'bad-input')
  return id
}

export function findDataset(db: Database.Database, id: number): CatalogDataset | undefined {
  const d = db.prepare(`${DATASET_SELECT} WHERE d.id = ?`).get(id) as DatasetRow | undefined
  if (!d) return undefined
  const cols = db.prepare('SELECT * FROM dataset_columns WHERE dataset_id = ? ORDER BY position').all(id) as ColumnRow[]
  return withUnit(db, toCatalog(d, cols))
}

export function getDataset(db: Database.Database, id: unknown): CatalogDataset {
  const d = findDataset(db, checkDatasetId(id))
  if (!d) throw new UserError(`There is no dataset ${String(id)} (it may have been deleted)`, 'not-found')
  return d
}

/** A dataset's id and name; for a deleted one, the name the ledger last recorded for it. */
export interface DatasetRef {
  id: number
  name: string
  deleted: boolean
}

/**
 * A dataset by exact name (tried first) or by id, as the CLI and the reports take it; undefined if there is none.
 * With `includeDeleted`, a deleted dataset that the ledger still knows is found too (the ledger keeps its history under
 * its id and last name), so that its past spending can still be shown.
 */
export function lookupDataset(db: Database.Database, ref: string | number, opts: { includeDeleted?: boolean } = {}): DatasetRef | undefined {
  const name = typeof ref === 'string' ? ref.trim() : null
  const id = typeof ref === 'number' ? ref : /^\d+$/.test(name!) ? Number(name) : null
  const first = (sql: string, v: string | number | null) =>
    v === null ? undefined : (db.prepare(sql).get(v) as { id: number; name: string } | undefined)
  // Digits are an id first (names of digits only are refused; older workspaces may still hold one).
  const current =
    id !== null
      ? (first('SELECT id, name FROM datasets WHERE id = ?', id) ?? first('SELECT id, name FROM datasets WHERE name = ?', name))
      : first('SELECT id, name FROM datasets WHERE name = ?', name)
  if (current) return { ...current, deleted: false }
  if (!opts.includeDeleted) return undefined
  // The ledger's record of datasets deleted since (read-only; the ledger area owns these rows).
  const former = (column: string) => `SELECT dataset_id AS id, dataset_name AS name FROM ledger_entries WHERE ${column} = ? ORDER BY seq DESC LIMIT 1`
  const last = first(former('dataset_id'), id) ?? first(former('dataset_name'), name)
  return last ? { ...last, deleted: true } : undefined
}

/** A current dataset by exact name or by id (CLI convenience), or a user error naming what to do. */
export function resolveDataset(db: Database.Database, ref: string): CatalogDataset {
  const found = lookupDataset(db, ref)
  if (found) return getDataset(db, found.id)
  if (/^\d+$/.test(ref.trim())) return getDataset(db, Number(ref.trim()))
  throw new UserError(`There is no dataset named "${ref.slice(0, 80)}"; run "datasets list" to see them`, 'not-found')
}

export function listDatasets(db: Database.Database): CountedDatasetInfo[] {
  const ds = db.prepare(`${DATASET_SELECT} ORDER BY d.id`).all() as DatasetRow[]
  const cols = db.prepare('SELECT * FROM dataset_columns ORDER BY dataset_id, position').all() as ColumnRow[]
  const by = new Map<number, ColumnRow[]>()
  for (const c of cols) {
    const list = by.get(c.dataset_id) ?? []
    list.push(c)
    by.set(c.dataset_id, list)
  }
  return ds.map((d) => withUnit(db, toCatalog(d, by.get(d.id) ?? [])).info)
}

export const MAX_NAME_LENGTH = 200

export function checkDatasetName(raw: unknown): string {
  if (typeof raw !== 'string') throw new UserError('A dataset name is required', 'bad-input')
  const name = raw.trim()
  if (name === '') throw new UserError('A dataset name cannot be empty', 'bad-input')
  if (name.length > MAX_NAME_LENGTH) throw new UserError(`A dataset name can have at most ${MAX_NAME_LENGTH} characters`, 'bad-input')
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new UserError('A dataset name cannot contain control characters (tabs, line breaks...)', 'bad-input')
  // A name of digits only would be taken for another dataset's id by the CLI's --dataset (an officer act declaring
  // dataset "2" public must mean dataset 2).
  if (/^\d+$/.test(name)) throw new UserError('A dataset name cannot be only digits (it would read as a dataset id); add a letter', 'bad-input')
  return name
}

export function nameTaken(db: Database.Database, name: string, exceptId?: number): boolean {
  const row = db.prepare('SELECT id FROM datasets WHERE name = ?').get(name) as { id: number } | undefined
  return row !== undefined && row.id !== exceptId
}

export function renameDataset(db: Database.Database, id: unknown, rawName: unknown): CountedDatasetInfo {
  const ds = getDataset(db, id)
  const name = checkDatasetName(rawName)
  if (nameTaken(db, name, ds.info.id)) throw new UserError(`Another dataset is already named "${name}"; choose another name`, 'conflict')
  db.prepare('UPDATE datasets SET name = ? WHERE id = ?').run(name, ds.info.id)
  return getDataset(db, ds.info.id).info
}

/** Drops the data, the catalog rows and hides the saved queries, in one transaction. Ledger rows are not touched. */
export function deleteDataset(db: Database.Database, id: unknown): void {
  const ds = getDataset(db, id)
  db.transaction(() => {
    db.exec(`DROP TABLE IF EXISTS ${ident(ds.tableName)}`)
    db.prepare('DELETE FROM datasets WHERE id = ?').run(ds.info.id)
    db.prepare("UPDATE queries SET deleted_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE dataset_id = ? AND deleted_at IS NULL").run(ds.info.id)
  })()
}

export const MAX_PAGE = 1000

/** Rows in file order, of public datasets only (rowids are dense 1..n: imports insert in order and rows are never deleted). */
export function datasetRows(db: Database.Database, id: unknown, offset = 0, limit = 50): RowsResponse {
  const ds = getDataset(db, id)
  // The rows of a private dataset are what releases protect: they are never shown through the contract.
  if (!ds.info.public) {
    throw new UserError(
      `The rows of "${ds.info.name}" are private and are not shown; only datasets the privacy officer declared public can be browsed`,
      'private-data'
    )
  }
  return storedRows(db, ds, offset, limit)
}

/** Internal (tests, public datasets): the stored rows in file order, as the catalog shows values. Never a contract method on its own. */
export function storedRows(db: Database.Database, idOrDataset: unknown, offset = 0, limit = 50): RowsResponse {
  const ds = typeof idOrDataset === 'object' && idOrDataset !== null ? (idOrDataset as CatalogDataset) : getDataset(db, idOrDataset)
  if (ds.info.source === 'linked-file')
    throw new UserError(`"${ds.info.name}" is a linked file; its rows are not paged in this version (import a copy to browse it)`, 'bad-input')
  if (ds.info.source === 'linked-postgres')
    throw new UserError(`"${ds.info.name}" is a linked PostgreSQL table; its rows are not paged in this version`, 'bad-input')
  if (ds.info.source === 'linked-clickhouse')
    throw new UserError(`"${ds.info.name}" is a linked ClickHouse table; its rows are not paged in this version`, 'bad-input')
  if (!Number.isSafeInteger(offset) || offset < 0) throw new UserError('offset must be a whole number >= 0', 'bad-input')
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw new UserError(`limit must be a whole number from 1 to ${MAX_PAGE}`, 'bad-input')
  const select = ds.columns.map((c) => ident(c.sqlName)).join(', ')
  const raw = db
    .prepare(`SELECT ${select} FROM ${ident(ds.tableName)} WHERE rowid > ? ORDER BY rowid LIMIT ?`)
    .raw()
    .all(offset, limit) as unknown[][]
  const rows: CellValue[][] = raw.map((r) => r.map((v, i) => toDisplay(ds.columns[i].type, v)))
  return { columns: ds.info.columns, rows, offset, total: ds.info.rowCount }
}

/** The dataset's current name, or null when it was deleted (or never existed). */
export function datasetName(db: Database.Database, datasetId: number): string | null {
  const row = db.prepare('SELECT name FROM datasets WHERE id = ?').get(datasetId) as { name: string } | undefined
  return row ? row.name : null
}

/** How a dataset's rows are held, for the catalog. */
export function sourceKind(db: Database.Database, datasetId: number): 'imported' | 'linked-file' | 'linked-postgres' | 'linked-clickhouse' {
  const inTable = (t: string) => db.prepare(`SELECT 1 FROM ${t} WHERE dataset_id = ?`).get(datasetId) !== undefined
  if (inTable('dataset_postgres_sources')) return 'linked-postgres'
  if (inTable('dataset_clickhouse_sources')) return 'linked-clickhouse'
  return db.prepare('SELECT 1 FROM dataset_sources WHERE dataset_id = ?').get(datasetId) === undefined ? 'imported' : 'linked-file'
}
