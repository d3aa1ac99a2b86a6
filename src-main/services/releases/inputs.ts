/**
 * What a release reads from the datasets area: the saved query (`query-store`'s getter) and the checks made before
 * anything is charged. The data itself comes from the datasets loaders (`loadAnomalyIdentificationData`,
 * `loadAnomalySearchData`, the threshold evaluation), read only when the release runs, after its charge.
 * Nothing in this file formats a data value into a message.
 */
import type Database from 'better-sqlite3'
import type {
  AnomalyIdentificationDefinition,
  AnomalySearchDefinition,
  QueryDefinition,
  QueryKind,
  SavedQuery,
  ThresholdQueryDefinition
} from '../../contract/datasets'
import { QUERY_KIND_SPECS } from '../../contract/release-kinds'
import { UserError } from '../platform/errors'
import { findDataset } from '../catalog/catalog'
import { getQuery } from '../datasets/query-store'

type Db = Database.Database

/** A saved query as the release path holds it. */
export type SavedQueryRow = SavedQuery

export function loadSavedQuery(db: Db, queryId: number): { query: SavedQueryRow; datasetName: string } {
  const query = getQuery(db, queryId)
  const dataset = findDataset(db, query.datasetId)
  if (!dataset)
    throw new UserError(`The dataset of query ${query.id} was deleted; its releases stay in the ledger but it cannot be run again`, 'not-found')
  return { query, datasetName: dataset.info.name }
}

/** The saved query's definition when it is of `kind`, else one sentence. */
function definitionOfKind<K extends QueryKind>(q: SavedQueryRow, kind: K): Extract<QueryDefinition, { kind: K }> {
  if (q.definition.kind !== kind) throw new UserError(`Query ${q.id} is not ${QUERY_KIND_SPECS[kind].article}`)
  return q.definition as Extract<QueryDefinition, { kind: K }>
}

// ---------------------------------------------------------------------------------------------------------------
// Anomaly identification

export function aiqDefinition(q: SavedQueryRow): AnomalyIdentificationDefinition {
  const d = definitionOfKind(q, 'anomaly-identification')
  if (!d.records || d.records.length === 0) throw new UserError(`Query "${q.name}" names no records to ask about; save one that lists them`)
  return d
}

// ---------------------------------------------------------------------------------------------------------------
// Anomaly search

export function searchDefinition(q: SavedQueryRow): AnomalySearchDefinition {
  return definitionOfKind(q, 'anomaly-search')
}

// ---------------------------------------------------------------------------------------------------------------
// Threshold queries

export function thresholdDefinition(q: SavedQueryRow): ThresholdQueryDefinition {
  return definitionOfKind(q, 'threshold')
}
