/**
 * What a release reads from the datasets area: the saved query, and the data its mechanism needs.
 *
 * The saved query row is read from part A's `queries` table (its schema is in migration 002). The data comes from part A's
 * evaluation functions where they exist; anomaly identification and search inputs are single columns, read here through
 * `dataset_columns` (column names are looked up as data, the SQL identifier is the generated `sql_name`).
 * Nothing in this file formats a data value into a message.
 */
import type Database from 'better-sqlite3'
import type {
  AnomalyIdentificationDefinition,
  AnomalySearchDefinition,
  QueryDefinition,
  QueryKind,
  ThresholdQueryDefinition
} from '../../contract/datasets'
import { UserError } from '../errors'
import { toDisplay } from '../datasets/column-types'

type Db = Database.Database

export interface SavedQueryRow {
  id: number
  datasetId: number
  name: string
  kind: QueryKind
  definition: QueryDefinition
}

export function loadSavedQuery(db: Db, queryId: number): { query: SavedQueryRow; datasetName: string } {
  if (!Number.isInteger(queryId) || queryId < 1) throw new UserError('queryId must be a whole number >= 1')
  const row = db.prepare('SELECT id, dataset_id, name, kind, definition, deleted_at FROM queries WHERE id = ?').get(queryId) as
    | { id: number; dataset_id: number; name: string; kind: QueryKind; definition: string; deleted_at: string | null }
    | undefined
  if (!row || row.deleted_at !== null) throw new UserError(`There is no saved query with id ${queryId}; list them with "quiet-alarm datasets --queries"`, 'not-found')
  const ds = db.prepare('SELECT name FROM datasets WHERE id = ?').get(row.dataset_id) as { name: string } | undefined
  if (!ds) throw new UserError(`The dataset of query ${queryId} was deleted; its releases stay in the ledger but it cannot be run again`, 'not-found')
  return {
    query: { id: row.id, datasetId: row.dataset_id, name: row.name, kind: row.kind, definition: JSON.parse(row.definition) as QueryDefinition },
    datasetName: ds.name
  }
}

interface ColumnRef {
  sqlName: string
  type: 'integer' | 'real' | 'text' | 'timestamp'
}

function tableOf(db: Db, datasetId: number): string {
  const row = db.prepare('SELECT table_name FROM datasets WHERE id = ?').get(datasetId) as { table_name: string } | undefined
  if (!row || !/^ds_\d+$/.test(row.table_name)) throw new UserError(`Dataset ${datasetId} has no data table`, 'not-found')
  return row.table_name
}

function columnOf(db: Db, datasetId: number, name: string): ColumnRef {
  const row = db.prepare('SELECT sql_name, type FROM dataset_columns WHERE dataset_id = ? AND name = ?').get(datasetId, name) as
    | { sql_name: string; type: ColumnRef['type'] }
    | undefined
  if (!row || !/^c\d+$/.test(row.sql_name)) throw new UserError(`The dataset has no column named "${name.slice(0, 80)}"`)
  return { sqlName: row.sql_name, type: row.type }
}

// ---------------------------------------------------------------------------------------------------------------
// Anomaly identification

export interface AiqInputs {
  definition: AnomalyIdentificationDefinition
  /** One array per column: numbers for numeric columns, strings for text columns (categorical). */
  columns: Array<number[] | string[]>
  kinds: Array<'numeric' | 'categorical'>
}

export function aiqDefinition(q: SavedQueryRow): AnomalyIdentificationDefinition {
  if (q.definition.kind !== 'anomaly-identification') throw new UserError(`Query ${q.id} is not an anomaly identification query`)
  const d = q.definition
  if (!d.records || d.records.length === 0) throw new UserError(`Query "${q.name}" names no records to ask about; save one that lists them`)
  return d
}

/** Checks the records asked about against the columns' types, before anything is charged. */
export function checkAiqRecords(db: Db, q: SavedQueryRow): void {
  const d = aiqDefinition(q)
  const refs = d.columns.map((c) => columnOf(db, q.datasetId, c))
  d.records!.forEach((r, i) => {
    if (!Array.isArray(r) || r.length !== refs.length) throw new UserError(`Record ${i + 1} of query "${q.name}" needs ${refs.length} values, one per column`)
    refs.forEach((ref, k) => {
      if (ref.type !== 'text' && (typeof r[k] !== 'number' || !Number.isFinite(r[k]))) {
        throw new UserError(`Value ${k + 1} of record ${i + 1} of query "${q.name}" must be a number (column "${d.columns[k].slice(0, 80)}" is numeric)`)
      }
    })
  })
}

export function loadAiqInputs(db: Db, q: SavedQueryRow): AiqInputs {
  const d = aiqDefinition(q)
  const table = tableOf(db, q.datasetId)
  const refs = d.columns.map((c) => columnOf(db, q.datasetId, c))
  const kinds = refs.map((r) => (r.type === 'text' ? 'categorical' : 'numeric') as 'numeric' | 'categorical')
  const select = refs.map((r) => r.sqlName).join(', ')
  const where = refs.map((r) => `${r.sqlName} IS NOT NULL`).join(' AND ')
  const rows = db.prepare(`SELECT ${select} FROM ${table} WHERE ${where}`).raw().all() as unknown[][]
  const columns = refs.map((_, k) => (kinds[k] === 'numeric' ? rows.map((r) => Number(r[k])) : rows.map((r) => String(r[k]))))
  return { definition: d, columns: columns as Array<number[] | string[]>, kinds }
}

// ---------------------------------------------------------------------------------------------------------------
// Anomaly search

export interface SearchInputs {
  definition: AnomalySearchDefinition
  scores: Float64Array
  /** The individuals' names (idColumn values) or row numbers (1-based). */
  ids: Array<string | number>
}

export function searchDefinition(q: SavedQueryRow): AnomalySearchDefinition {
  if (q.definition.kind !== 'anomaly-search') throw new UserError(`Query ${q.id} is not an anomaly search query`)
  return q.definition
}

/** Checks the score and id columns before anything is charged. */
export function checkSearchColumns(db: Db, q: SavedQueryRow): void {
  const d = searchDefinition(q)
  const score = columnOf(db, q.datasetId, d.scoreColumn)
  if (score.type === 'text') throw new UserError(`The score column "${d.scoreColumn.slice(0, 80)}" must be numeric`)
  if (d.idColumn) columnOf(db, q.datasetId, d.idColumn)
  const n = (db.prepare(`SELECT count(*) AS n FROM ${tableOf(db, q.datasetId)}`).get() as { n: number }).n
  if (n < 2) throw new UserError('The search needs at least two individuals (rows)')
}

export function loadSearchInputs(db: Db, q: SavedQueryRow): SearchInputs {
  const d = searchDefinition(q)
  const table = tableOf(db, q.datasetId)
  const score = columnOf(db, q.datasetId, d.scoreColumn)
  if (score.type === 'text') throw new UserError(`The score column "${d.scoreColumn.slice(0, 80)}" must be numeric`)
  const id = d.idColumn ? columnOf(db, q.datasetId, d.idColumn) : null
  const rows = db
    .prepare(`SELECT ${score.sqlName}, ${id ? id.sqlName : 'rowid'} FROM ${table} WHERE ${score.sqlName} IS NOT NULL ORDER BY rowid`)
    .raw()
    .all() as Array<[number, string | number]>
  const scores = Float64Array.from(rows, (r) => Number(r[0]))
  // Names as the catalog shows them (a timestamp id reads as ISO 8601, not as stored milliseconds).
  const ids = rows.map((r, i) => (id ? (toDisplay(id.type, r[1]) ?? '(empty)') : i + 1))
  return { definition: d, scores, ids }
}

// ---------------------------------------------------------------------------------------------------------------
// Threshold queries

export function thresholdDefinition(q: SavedQueryRow): ThresholdQueryDefinition {
  if (q.definition.kind !== 'threshold') throw new UserError(`Query ${q.id} is not a threshold query`)
  return q.definition
}
