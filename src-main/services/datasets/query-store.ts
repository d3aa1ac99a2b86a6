/**
 * Saved query definitions (table `queries`). A saved row is immutable: editing a query saves its next version (a new
 * row on the same dataset, of the same kind), so every release keeps pointing at exactly the version it ran. Lists
 * show each query's latest version; deleting hides every version (`deleted_at`) so that releases which ran any of them
 * keep a readable history.
 */
import type Database from 'better-sqlite3'
import type { QueryDefinitionInput, QueryKind, SavedQuery } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import { getDataset } from '../catalog/catalog'
import { checkDefinition, currentDefinition } from './query-definitions'
import { callingAccount } from '../platform/caller'

interface QueryRow {
  id: number
  dataset_id: number
  name: string
  kind: QueryKind
  definition: string
  created_at: string
  deleted_at: string | null
  first_id: number | null
  version: number
  account_id: number | null
}

/**
 * The account whose queries the current caller may see: an analyst account sees the queries it saved and those saved on
 * the host with no account (the organisation's); the officer, the custodian and the workbench's local user see all (null).
 */
function ownerFilter(): number | null {
  const who = callingAccount()
  return who && who.role === 'analyst' ? who.id : null
}

function toSaved(r: QueryRow): SavedQuery {
  return {
    id: r.id,
    datasetId: r.dataset_id,
    name: r.name,
    kind: r.kind,
    definition: currentDefinition(JSON.parse(r.definition) as QueryDefinitionInput),
    createdAt: r.created_at,
    version: r.version,
    firstVersionId: r.first_id ?? r.id
  }
}

/** The latest version of the query whose first version is `firstId` (deleted or not). */
function latestVersion(db: Database.Database, firstId: number): QueryRow {
  return db.prepare('SELECT * FROM queries WHERE id = ? OR first_id = ? ORDER BY version DESC LIMIT 1').get(firstId, firstId) as QueryRow
}

/** Rows that no later version replaces. */
const LATEST_ONLY = 'NOT EXISTS (SELECT 1 FROM queries n WHERE n.first_id = coalesce(q.first_id, q.id) AND n.version > q.version)'

/**
 * Saves a definition as a new query, or (`replaces`: the id of the query's latest version) as that query's next
 * version: same dataset, same kind. Editing a version that is no longer the latest is refused (someone saved a later
 * one since): nothing is written.
 */
export function saveQuery(db: Database.Database, datasetId: unknown, rawName: unknown, definition: unknown, replaces?: number): SavedQuery {
  const ds = getDataset(db, datasetId)
  if (typeof rawName !== 'string' || rawName.trim() === '' || rawName.trim().length > 200)
    throw new UserError('A query needs a name of 1 to 200 characters', 'bad-input')
  const def = checkDefinition(db, ds, definition)
  const owner = callingAccount()?.id ?? null
  const save = db.transaction((): number => {
    if (replaces === undefined) {
      return Number(
        db
          .prepare('INSERT INTO queries (dataset_id, name, kind, definition, account_id) VALUES (?, ?, ?, ?, ?)')
          .run(ds.info.id, rawName.trim(), def.kind, JSON.stringify(def), owner).lastInsertRowid
      )
    }
    const prev = getQuery(db, replaces)
    checkMayChange(db, prev, 'saves a new version of')
    if (prev.datasetId !== ds.info.id) {
      throw new UserError(
        `Saved query ${prev.id} is about another dataset: a new version asks about the same dataset (save a new question for this one).`,
        'bad-input'
      )
    }
    if (prev.kind !== def.kind) {
      throw new UserError(
        `Saved query ${prev.id} is a ${prev.kind} query: a new version asks the same kind of question (save a new question instead).`,
        'bad-input'
      )
    }
    const latest = latestVersion(db, prev.firstVersionId)
    if (latest.id !== prev.id) {
      throw new UserError(
        `“${prev.name.slice(0, 80)}” has a later version (version ${latest.version}, query ${latest.id}) than the one you edited (version ${prev.version}): edit the latest one. Nothing was saved.`,
        'conflict'
      )
    }
    return Number(
      db
        .prepare('INSERT INTO queries (dataset_id, name, kind, definition, first_id, version, account_id) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(ds.info.id, rawName.trim(), def.kind, JSON.stringify(def), prev.firstVersionId, latest.version + 1, owner).lastInsertRowid
    )
  })
  return getQuery(db, save.immediate())
}

/** Refuses a new version or a delete of a query the calling analyst did not save (nothing is written). */
function checkMayChange(db: Database.Database, q: SavedQuery, act: string): void {
  const owner = ownerFilter()
  if (owner === null) return
  const first = db.prepare('SELECT account_id FROM queries WHERE id = ?').get(q.firstVersionId) as { account_id: number | null }
  if (first.account_id !== owner)
    throw new UserError(`Saved query ${q.id} was not saved by your account: only its author ${act} it; nothing was written.`, 'forbidden')
}

export function checkQueryId(id: unknown): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw new UserError('queryId must be a query id (a whole number >= 1)', 'bad-input')
  return id
}

/**
 * A saved query that is not deleted, whose dataset still exists, and that the caller may read: an analyst account's own
 * (another analyst's query answers as if it did not exist, so reading, versioning, deleting or releasing it is refused).
 */
export function getQuery(db: Database.Database, id: unknown): SavedQuery {
  const r = db.prepare('SELECT * FROM queries WHERE id = ?').get(checkQueryId(id)) as QueryRow | undefined
  const owner = ownerFilter()
  if (!r || r.deleted_at !== null || (owner !== null && r.account_id !== null && r.account_id !== owner))
    throw new UserError(`There is no saved query ${String(id)} (it may have been deleted)`, 'not-found')
  return toSaved(r)
}

/** Any saved query, deleted or not (for the history of releases). */
export function getQueryIncludingDeleted(db: Database.Database, id: number): (SavedQuery & { deletedAt: string | null }) | undefined {
  const r = db.prepare('SELECT * FROM queries WHERE id = ?').get(id) as QueryRow | undefined
  return r ? { ...toSaved(r), deletedAt: r.deleted_at } : undefined
}

/** The latest version of each saved query the caller may read, in the order the queries were first saved. */
export function listQueries(db: Database.Database, datasetId?: unknown): SavedQuery[] {
  const owner = ownerFilter()
  const where = [`deleted_at IS NULL`, LATEST_ONLY]
  const params: number[] = []
  if (datasetId !== undefined) {
    where.push('dataset_id = ?')
    params.push(getDataset(db, datasetId).info.id)
  }
  if (owner !== null) {
    where.push('(account_id IS NULL OR account_id = ?)')
    params.push(owner)
  }
  const rows = db.prepare(`SELECT * FROM queries q WHERE ${where.join(' AND ')} ORDER BY coalesce(first_id, id)`).all(...params) as QueryRow[]
  return rows.map(toSaved)
}

/** Every version of a query the caller may read, oldest first: an analyst account reads its own and the host's, never another analyst's. */
export function queryVersions(db: Database.Database, id: unknown): SavedQuery[] {
  const q = getQuery(db, id)
  const rows = db.prepare('SELECT * FROM queries WHERE id = ? OR first_id = ? ORDER BY version').all(q.firstVersionId, q.firstVersionId) as QueryRow[]
  const owner = ownerFilter()
  return rows.filter((r) => owner === null || r.account_id === null || r.account_id === owner).map(toSaved)
}

/** Hides the query: every one of its versions. */
export function deleteQuery(db: Database.Database, id: unknown): void {
  const q = getQuery(db, id)
  checkMayChange(db, q, 'deletes')
  db.prepare("UPDATE queries SET deleted_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE (id = ? OR first_id = ?) AND deleted_at IS NULL").run(
    q.firstVersionId,
    q.firstVersionId
  )
}
