/**
 * Public datasets (ALGORITHMS.md section 5). A dataset is public only by the privacy officer's act, with a reason,
 * recorded as a ledger entry of kind 'public' (hash-chained) and an audit event. Only a public dataset may supply values
 * that reach a release: column thresholds, group lists, the individuals of a search. Everything else is private,
 * including which keys occur in a private dataset.
 *
 * The checks here read the public dataset's own rows (never a private one's), so their messages may name rows and
 * values: whatever they say is public.
 */
import type Database from 'better-sqlite3'
import { UserError } from '../platform/errors'
import { type CatalogColumn, type CatalogDataset, getDataset, ident } from './catalog'
import { groupKey, toDisplay } from './column-types'

/**
 * A dataset that a query names as the source of released values (`role`, e.g. "threshold table"): it must exist, be
 * public and not be the counted dataset itself. One sentence otherwise (the sentence names only public facts).
 */
export function publicSource(db: Database.Database, datasetId: unknown, countedId: number, role: string): CatalogDataset {
  const other = getDataset(db, datasetId)
  if (other.info.id === countedId) {
    throw new UserError(
      `The ${role} cannot be the counted dataset "${other.info.name}" itself: its values would be released; use a public dataset`,
      'not-public'
    )
  }
  if (other.info.source === 'linked-file' || other.info.source === 'linked-postgres' || other.info.source === 'linked-clickhouse') {
    const what =
      other.info.source === 'linked-file'
        ? 'a linked file'
        : other.info.source === 'linked-postgres'
          ? 'a linked PostgreSQL table'
          : 'a linked ClickHouse table'
    throw new UserError(
      `The ${role} "${other.info.name}" is ${what}; public tables must be imported datasets for now (import a copy of it)`,
      'not-public'
    )
  }
  if (!other.info.public) {
    throw new UserError(
      `The ${role} "${other.info.name}" is not public: its values would reach the release. Ask the privacy officer to declare it public (quiet-alarm datasets public), or use another source`,
      'not-public'
    )
  }
  return other
}

/** The distinct key tuples of a public dataset's columns, in first-appearance order, with their stored values. */
export function publicKeys(db: Database.Database, ds: CatalogDataset, cols: CatalogColumn[]): Array<{ key: string; values: unknown[] }> {
  const sel = cols.map((c) => ident(c.sqlName)).join(', ')
  const rows = db
    .prepare(`SELECT ${sel} FROM ${ident(ds.tableName)} ORDER BY rowid`)
    .raw()
    .all() as unknown[][]
  const seen = new Set<string>()
  const out: Array<{ key: string; values: unknown[] }> = []
  const types = cols.map((c) => c.type)
  for (const r of rows) {
    const key = groupKey(types, r)
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ key, values: r })
  }
  return out
}

/** The distinct values of one public column as the catalog shows them (text), empty values left out. */
export function publicValues(db: Database.Database, ds: CatalogDataset, col: CatalogColumn): string[] {
  const rows = db
    .prepare(`SELECT ${ident(col.sqlName)} FROM ${ident(ds.tableName)} WHERE ${ident(col.sqlName)} IS NOT NULL ORDER BY rowid`)
    .raw()
    .all() as unknown[][]
  const out: string[] = []
  const seen = new Set<string>()
  for (const [v] of rows) {
    const s = String(toDisplay(col.type, v))
    if (!seen.has(s)) {
      seen.add(s)
      out.push(s)
    }
  }
  return out
}
