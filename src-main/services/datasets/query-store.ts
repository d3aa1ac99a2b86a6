/**
 * Saved query definitions (table `queries`). A saved query is immutable: to change one, save a new one. Deleting
 * hides it (`deleted_at`) so that releases which ran it keep a readable history.
 */
import type Database from 'better-sqlite3'
import type { QueryDefinition, QueryKind, SavedQuery } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import { getDataset } from '../catalog/catalog'
import { checkDefinition } from './query-definitions'

interface QueryRow {
  id: number
  dataset_id: number
  name: string
  kind: QueryKind
  definition: string
  created_at: string
  deleted_at: string | null
}

function toSaved(r: QueryRow): SavedQuery {
  return {
    id: r.id,
    datasetId: r.dataset_id,
    name: r.name,
    kind: r.kind,
    definition: JSON.parse(r.definition) as QueryDefinition,
    createdAt: r.created_at
  }
}

export function saveQuery(db: Database.Database, datasetId: unknown, rawName: unknown, definition: unknown): SavedQuery {
  const ds = getDataset(db, datasetId)
  if (typeof rawName !== 'string' || rawName.trim() === '' || rawName.trim().length > 200)
    throw new UserError('A query needs a name of 1 to 200 characters', 'bad-input')
  const def = checkDefinition(db, ds, definition)
  const info = db
    .prepare('INSERT INTO queries (dataset_id, name, kind, definition) VALUES (?, ?, ?, ?)')
    .run(ds.info.id, rawName.trim(), def.kind, JSON.stringify(def))
  return getQuery(db, Number(info.lastInsertRowid))
}

export function checkQueryId(id: unknown): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw new UserError('queryId must be a query id (a whole number >= 1)', 'bad-input')
  return id
}

/** A saved query that is not deleted and whose dataset still exists. */
export function getQuery(db: Database.Database, id: unknown): SavedQuery {
  const r = db.prepare('SELECT * FROM queries WHERE id = ?').get(checkQueryId(id)) as QueryRow | undefined
  if (!r || r.deleted_at !== null) throw new UserError(`There is no saved query ${String(id)} (it may have been deleted)`, 'not-found')
  return toSaved(r)
}

/** Any saved query, deleted or not (for the history of releases). */
export function getQueryIncludingDeleted(db: Database.Database, id: number): (SavedQuery & { deletedAt: string | null }) | undefined {
  const r = db.prepare('SELECT * FROM queries WHERE id = ?').get(id) as QueryRow | undefined
  return r ? { ...toSaved(r), deletedAt: r.deleted_at } : undefined
}

export function listQueries(db: Database.Database, datasetId?: unknown): SavedQuery[] {
  const rows =
    datasetId === undefined
      ? (db.prepare('SELECT * FROM queries WHERE deleted_at IS NULL ORDER BY id').all() as QueryRow[])
      : (db
          .prepare('SELECT * FROM queries WHERE deleted_at IS NULL AND dataset_id = ? ORDER BY id')
          .all(getDataset(db, datasetId).info.id) as QueryRow[])
  return rows.map(toSaved)
}

export function deleteQuery(db: Database.Database, id: unknown): void {
  const q = getQuery(db, id)
  db.prepare("UPDATE queries SET deleted_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?").run(q.id)
}
