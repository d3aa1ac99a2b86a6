/**
 * Where a dataset's rows are read: the `Source` of a dataset gives its SQL dialect and runs the aggregates the dialect
 * layer (dialect.ts) builds. Imported datasets read the workspace's SQLite table; linked files are read in place by
 * DuckDB (synchronously, see duckdb-sync.ts). Only aggregates come back (and, for anomaly identification, the chosen
 * columns' values), as better-sqlite3 gives them.
 */
import type Database from 'better-sqlite3'
import type { CatalogDataset } from '../datasets/catalog'
import type { StoredValue } from '../datasets/column-types'
import type { Dialect, Sql } from './dialect'
import { sqliteDialect } from './dialect-sqlite'
import { duckdbDialect } from './dialect-duckdb'
import { duckAll } from './duckdb-sync'
import { type LinkedFileRecord, linkedFileOf, linkedFileFailure } from './linked-file'

export interface Source {
  readonly dialect: Dialect
  /** The rows of a query (arrays, in select order). */
  all(q: Sql): unknown[][]
  /** The linked file (null for an imported dataset). */
  readonly linked: LinkedFileRecord | null
}

export function sqliteSource(db: Database.Database): Source {
  return { dialect: sqliteDialect, linked: null, all: (q) => db.prepare(q.sql).raw().all(...q.params) as unknown[][] }
}

export function duckdbSource(file: LinkedFileRecord): Source {
  return {
    dialect: duckdbDialect(file),
    linked: file,
    all: (q) => {
      try {
        return duckAll(q.sql, q.params as StoredValue[]).rows
      } catch (e) {
        // DuckDB's message may quote the file's contents: a sentence naming the dataset instead.
        throw linkedFileFailure(file, e)
      }
    }
  }
}

/** The source of a dataset's rows: its linked file, or the workspace's table. */
export function sourceFor(db: Database.Database, ds: CatalogDataset): Source {
  const file = linkedFileOf(db, ds.info.id)
  return file ? duckdbSource(file) : sqliteSource(db)
}
