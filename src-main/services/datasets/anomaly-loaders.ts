/**
 * Loaders for the anomaly questions: the column values a saved anomaly identification or anomaly search query needs,
 * read from the dataset in file order, for the release service and sweeps (internal: raw data, never sent to the UI).
 *
 * Rows with an empty value in any chosen column are left out (reported as `skippedRows`).
 * Numeric columns (integer, real, timestamp in ms) come as Float64Array; text columns as string[] (categorical).
 */
import type Database from 'better-sqlite3'
import type { AnomalyIdentificationDefinition, AnomalySearchDefinition } from '../../contract/datasets'
import { UserError } from '../errors'
import { getDataset, ident } from './catalog'
import { findColumn, storedValueFor } from './query-definitions'
import { getQuery } from './query-store'

export interface AiqColumnData {
  name: string
  kind: 'numeric' | 'categorical'
  /** Bin width for numeric columns (NaN for categorical). */
  binWidth: number
  values: Float64Array | string[]
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
  const q = getQuery(db, queryId)
  if (q.definition.kind !== 'anomaly-identification') throw new UserError(`Saved query ${q.id} is not an anomaly identification query`, 'bad-query')
  const def = q.definition
  const ds = getDataset(db, q.datasetId)
  const cols = def.columns.map((c) => findColumn(ds, c, 'column'))
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
  const records = (def.records ?? []).map((r) =>
    r.map((v, j) => (cols[j].type === 'text' ? String(v) : (storedValueFor(cols[j], v, 'A record value') as number)))
  )
  return { definition: def, datasetId: ds.info.id, columns, rowCount: rows.length, skippedRows: total - rows.length, records }
}

export interface AnomalySearchData {
  definition: AnomalySearchDefinition
  datasetId: number
  /** One score per individual (file order). */
  scores: Float64Array
  /** The individuals' ids (the id column as text, or the 1-based row number). */
  ids: string[]
  skippedRows: number
}

export function loadAnomalySearchData(store: { db: Database.Database }, queryId: number): AnomalySearchData {
  const db = store.db
  const q = getQuery(db, queryId)
  if (q.definition.kind !== 'anomaly-search') throw new UserError(`Saved query ${q.id} is not an anomaly search query`, 'bad-query')
  const def = q.definition
  const ds = getDataset(db, q.datasetId)
  const score = findColumn(ds, def.scoreColumn, 'score column')
  const idCol = def.idColumn ? findColumn(ds, def.idColumn, 'id column') : null
  const sel = idCol ? `${ident(score.sqlName)}, ${ident(idCol.sqlName)}, rowid` : `${ident(score.sqlName)}, rowid`
  const rows = db.prepare(`SELECT ${sel} FROM ${ident(ds.tableName)} WHERE ${ident(score.sqlName)} IS NOT NULL ORDER BY rowid`).raw().all() as unknown[][]
  return {
    definition: def,
    datasetId: ds.info.id,
    scores: Float64Array.from(rows, (r) => Number(r[0])),
    ids: rows.map((r) => (idCol ? (r[1] === null ? `row ${String(r[2])}` : String(r[1])) : String(r[1]))),
    skippedRows: ds.info.rowCount - rows.length
  }
}
