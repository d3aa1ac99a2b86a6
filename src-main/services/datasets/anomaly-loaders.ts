/**
 * Loaders for the anomaly questions: the column values a saved anomaly identification or anomaly search query needs,
 * read from the dataset in file order, for the release service and sweeps (internal: raw data, never sent to the UI).
 *
 * Rows with an empty value in any chosen column are left out (reported as `skippedRows`).
 * Numeric columns (integer, real, timestamp in ms) come as Float64Array; text columns as string[] (categorical).
 *
 * `anomalyIdentificationQuery` and `anomalySearchQuery` resolve a saved query against its dataset's columns without
 * reading any data (what a release checks before it is charged); the loaders build on them.
 */
import type Database from 'better-sqlite3'
import type { AnomalyIdentificationDefinition, AnomalySearchDefinition, QueryDefinition, SavedQuery } from '../../contract/datasets'
import { UserError } from '../errors'
import { type CatalogColumn, type CatalogDataset, getDataset, ident } from './catalog'
import { toDisplay } from './column-types'
import { findColumn, storedValueFor } from './query-definitions'
import { getQuery } from './query-store'

export interface AiqColumnData {
  name: string
  kind: 'numeric' | 'categorical'
  /** Bin width for numeric columns (NaN for categorical). */
  binWidth: number
  values: Float64Array | string[]
}

interface ResolvedQuery<D extends QueryDefinition> {
  query: SavedQuery
  definition: D
  dataset: CatalogDataset
}

const KIND_TEXT = { 'anomaly-identification': 'an anomaly identification', 'anomaly-search': 'an anomaly search' } as const

function savedQueryOfKind<K extends keyof typeof KIND_TEXT>(db: Database.Database, queryId: number, kind: K): ResolvedQuery<Extract<QueryDefinition, { kind: K }>> {
  const query = getQuery(db, queryId)
  if (query.definition.kind !== kind) throw new UserError(`Saved query ${query.id} is not ${KIND_TEXT[kind]} query`, 'bad-query')
  return { query, definition: query.definition as Extract<QueryDefinition, { kind: K }>, dataset: getDataset(db, query.datasetId) }
}

export interface AnomalyIdentificationQuery extends ResolvedQuery<AnomalyIdentificationDefinition> {
  columns: CatalogColumn[]
  /** The records to ask about, converted like the columns (numbers for numeric columns, timestamps in ms). */
  records: Array<Array<number | string>>
}

/** A saved anomaly identification query, its columns and its records converted to the columns' stored form; reads no data. */
export function anomalyIdentificationQuery(db: Database.Database, queryId: number): AnomalyIdentificationQuery {
  const q = savedQueryOfKind(db, queryId, 'anomaly-identification')
  const columns = q.definition.columns.map((c) => findColumn(q.dataset, c, 'column'))
  const records = (q.definition.records ?? []).map((r, i) => {
    if (!Array.isArray(r) || r.length !== columns.length) throw new UserError(`Record ${i + 1} of query "${q.query.name}" needs ${columns.length} values, one per column`, 'bad-query')
    return r.map((v, j) => {
      const what = `Record ${i + 1}'s value for "${columns[j].name}"`
      const stored = storedValueFor(columns[j], v, what)
      if (stored === null) throw new UserError(`${what} is empty; save a query whose records give every value`, 'bad-query')
      return stored
    })
  })
  return { ...q, columns, records }
}

export interface AnomalyIdentificationData {
  definition: AnomalyIdentificationDefinition
  datasetId: number
  columns: AiqColumnData[]
  rowCount: number
  skippedRows: number
  /** The records to ask about, converted like the columns (numbers for numeric columns). */
  records: Array<Array<number | string>>
}

export function loadAnomalyIdentificationData(store: { db: Database.Database }, queryId: number): AnomalyIdentificationData {
  const db = store.db
  const { definition: def, dataset: ds, columns: cols, records } = anomalyIdentificationQuery(db, queryId)
  const sel = cols.map((c) => ident(c.sqlName)).join(', ')
  const notNull = cols.map((c) => `${ident(c.sqlName)} IS NOT NULL`).join(' AND ')
  const total = ds.info.rowCount
  const rows = db.prepare(`SELECT ${sel} FROM ${ident(ds.tableName)} WHERE ${notNull} ORDER BY rowid`).raw().all() as unknown[][]
  const columns: AiqColumnData[] = cols.map((c, j) => {
    const categorical = c.type === 'text'
    return {
      name: c.name,
      kind: categorical ? 'categorical' : 'numeric',
      binWidth: categorical ? NaN : (def.binWidths[j] as number),
      values: categorical ? rows.map((r) => String(r[j])) : Float64Array.from(rows, (r) => Number(r[j]))
    }
  })
  return { definition: def, datasetId: ds.info.id, columns, rowCount: rows.length, skippedRows: total - rows.length, records }
}

export interface AnomalySearchQuery extends ResolvedQuery<AnomalySearchDefinition> {
  score: CatalogColumn
  idColumn: CatalogColumn | null
}

/** A saved anomaly search query with its score and id columns; reads no data. */
export function anomalySearchQuery(db: Database.Database, queryId: number): AnomalySearchQuery {
  const q = savedQueryOfKind(db, queryId, 'anomaly-search')
  const score = findColumn(q.dataset, q.definition.scoreColumn, 'score column')
  if (score.type !== 'integer' && score.type !== 'real') throw new UserError(`The score column "${score.name.slice(0, 80)}" must hold numbers`, 'bad-query')
  const idColumn = q.definition.idColumn ? findColumn(q.dataset, q.definition.idColumn, 'id column') : null
  return { ...q, score, idColumn }
}

export interface AnomalySearchData {
  definition: AnomalySearchDefinition
  datasetId: number
  /** One score per individual (file order). */
  scores: Float64Array
  /**
   * The individuals' ids: the id column as the catalog shows it (timestamps in ISO 8601), "row N" where it is empty,
   * or without an id column the 1-based row number in the file.
   */
  ids: string[]
  skippedRows: number
}

export function loadAnomalySearchData(store: { db: Database.Database }, queryId: number): AnomalySearchData {
  const db = store.db
  const { definition: def, dataset: ds, score, idColumn: idCol } = anomalySearchQuery(db, queryId)
  const sel = idCol ? `${ident(score.sqlName)}, ${ident(idCol.sqlName)}, rowid` : `${ident(score.sqlName)}, rowid`
  const rows = db.prepare(`SELECT ${sel} FROM ${ident(ds.tableName)} WHERE ${ident(score.sqlName)} IS NOT NULL ORDER BY rowid`).raw().all() as unknown[][]
  const idOf = (r: unknown[]): string => {
    if (!idCol) return String(r[1])
    const shown = toDisplay(idCol.type, r[1])
    return shown === null ? `row ${String(r[2])}` : String(shown)
  }
  return {
    definition: def,
    datasetId: ds.info.id,
    scores: Float64Array.from(rows, (r) => Number(r[0])),
    ids: rows.map(idOf),
    skippedRows: ds.info.rowCount - rows.length
  }
}
