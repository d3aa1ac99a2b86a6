/**
 * Loaders for the anomaly questions: the column values a saved anomaly identification or anomaly search query needs,
 * read from the dataset in file order, for the release service and sweeps (internal: raw data, never sent to the UI).
 *
 * Rows with an empty value in any chosen column are left out (reported as `skippedRows`).
 * Numeric columns (integer, real, timestamp in ms) come as Float64Array; text columns as string[] (categorical).
 *
 * `anomalyIdentificationQuery`, `anomalySearchQuery` and `searchIndividuals` resolve a saved query against its dataset's
 * columns and public tables without reading the searched data (what a release checks before it is charged); the loaders
 * build on them.
 */
import type Database from 'better-sqlite3'
import type { AnomalyIdentificationDefinition, AnomalySearchDefinition, QueryDefinition, QueryKind, SavedQuery } from '../../contract/datasets'
import { QUERY_KIND_SPECS } from '../../contract/release-kinds'
import { UserError } from '../platform/errors'
import { type CatalogColumn, type CatalogDataset, getDataset } from '../catalog/catalog'
import { columnValuesSql, maxScoreSql, rowCountSql } from '../sources/dialect'
import { sourceFor } from '../sources/source'
import { toDisplay } from '../catalog/column-types'
import { findColumn, storedValueFor } from '../catalog/columns'
import { publicSource, publicValues } from '../catalog/public-datasets'
import { datasetUnit } from '../trust/privacy-unit'
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

function savedQueryOfKind<K extends QueryKind>(
  db: Database.Database,
  queryId: number,
  kind: K
): ResolvedQuery<Extract<QueryDefinition, { kind: K }>> {
  const query = getQuery(db, queryId)
  if (query.definition.kind !== kind) throw new UserError(`Saved query ${query.id} is not ${QUERY_KIND_SPECS[kind].article}`, 'bad-query')
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
    if (!Array.isArray(r) || r.length !== columns.length)
      throw new UserError(`Record ${i + 1} of query "${q.query.name}" needs ${columns.length} values, one per column`, 'bad-query')
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
  /** Person-level datasets: each loaded row's person (rows without one are left out); null for row-level datasets. */
  persons: unknown[] | null
}

export function loadAnomalyIdentificationData(store: { db: Database.Database }, queryId: number): AnomalyIdentificationData {
  const db = store.db
  const { definition: def, dataset: ds, columns: cols, records } = anomalyIdentificationQuery(db, queryId)
  const unit = datasetUnit(db, ds.info.id)
  const person = unit.kind === 'person' ? findColumn(ds, unit.column, 'person column') : null
  const all = person ? [...cols, person] : cols
  const src = sourceFor(db, ds)
  // A linked file may have changed since it was linked: its rows now.
  const total = src.linked ? Number(src.all(rowCountSql(src.dialect, ds))[0][0]) : ds.info.rowCount
  const rows = src.all(columnValuesSql(src.dialect, ds, all))
  const columns: AiqColumnData[] = cols.map((c, j) => {
    const categorical = c.type === 'text'
    return {
      name: c.name,
      kind: categorical ? 'categorical' : 'numeric',
      binWidth: categorical ? NaN : (def.binWidths[j] as number),
      values: categorical ? rows.map((r) => String(r[j])) : Float64Array.from(rows, (r) => Number(r[j]))
    }
  })
  const persons = person ? rows.map((r) => r[cols.length]) : null
  return { definition: def, datasetId: ds.info.id, columns, rowCount: rows.length, skippedRows: total - rows.length, records, persons }
}

export interface AnomalySearchQuery extends ResolvedQuery<AnomalySearchDefinition> {
  score: CatalogColumn
  idColumn: CatalogColumn | null
}

/** A saved anomaly search query with its score and id columns; reads no data. */
export function anomalySearchQuery(db: Database.Database, queryId: number): AnomalySearchQuery {
  const q = savedQueryOfKind(db, queryId, 'anomaly-search')
  const score = findColumn(q.dataset, q.definition.scoreColumn, 'score column')
  if (score.type !== 'integer' && score.type !== 'real')
    throw new UserError(`The score column "${score.name.slice(0, 80)}" must hold numbers`, 'bad-query')
  const idColumn = q.definition.idColumn ? findColumn(q.dataset, q.definition.idColumn, 'id column') : null
  return { ...q, score, idColumn }
}

/**
 * The individuals of a search, in the definition's (or the public table's) order, as canonical ids: the id column's
 * display form (numbers as numbers print, timestamps in ISO 8601). Public: read from the definition or a public dataset,
 * never from the searched data. Ids listed twice in a public table count once.
 */
export function searchIndividuals(db: Database.Database, q: AnomalySearchQuery): string[] {
  const def = q.definition
  if (!q.idColumn)
    throw new UserError(`Query "${q.query.name}" names no id column; a search release matches its public list of individuals on one`, 'not-public')
  const idCol = q.idColumn
  let raw: string[]
  if (def.individuals) raw = def.individuals
  else if (def.individualsFrom) {
    const src = publicSource(db, def.individualsFrom.datasetId, q.dataset.info.id, 'list of individuals')
    raw = publicValues(db, src, findColumn(src, def.individualsFrom.column, 'column of the list of individuals'))
  } else {
    throw new UserError(
      `Query "${q.query.name}" does not name the individuals it searches; they must be public: save a query that lists them ("individuals") or takes them from a public dataset ("individualsFrom")`,
      'not-public'
    )
  }
  const seen = new Set<string>()
  const out: string[] = []
  for (const id of raw) {
    const c = canonicalId(idCol, id)
    if (!seen.has(c)) {
      seen.add(c)
      out.push(c)
    }
  }
  if (out.length < 2) throw new UserError(`Query "${q.query.name}" searches ${out.length} individual(s); a search needs at least two`, 'bad-query')
  return out
}

function canonicalId(col: CatalogColumn, id: string): string {
  const stored = storedValueFor(col, col.type === 'integer' || col.type === 'real' ? id.trim() : id, `The individual "${id.slice(0, 40)}"`)
  return String(toDisplay(col.type, stored))
}

export interface AnomalySearchData {
  definition: AnomalySearchDefinition
  datasetId: number
  /** One score per listed individual, in `ids` order: the largest of its rows, clipped to [L, inf); L if it has no row. */
  scores: Float64Array
  /** The public ids of the individuals. */
  ids: string[]
  /** L, the score floor. */
  floor: number
}

/** The scores of the public individuals, read from the searched data (internal: after the charge, or in a simulation). */
export function loadAnomalySearchData(store: { db: Database.Database }, queryId: number): AnomalySearchData {
  const db = store.db
  const q = anomalySearchQuery(db, queryId)
  const ids = searchIndividuals(db, q)
  const idCol = q.idColumn!
  const floor = q.definition.scoreFloor ?? 0
  const src = sourceFor(db, q.dataset)
  const rows = src.all(maxScoreSql(src.dialect, q.dataset, idCol, q.score))
  const best = new Map<string, number>()
  for (const [k, v] of rows) {
    const key = String(toDisplay(idCol.type, k))
    const x = Number(v)
    const prev = best.get(key)
    if (prev === undefined || x > prev) best.set(key, x)
  }
  // Clipping makes every normal individual's score lie in [L, tLow]: the oracle's sensitivity is tLow - L.
  const scores = Float64Array.from(ids, (i) => Math.max(floor, best.get(i) ?? floor))
  return { definition: q.definition, datasetId: q.dataset.info.id, scores, ids, floor }
}
