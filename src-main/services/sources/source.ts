/**
 * Where a dataset's rows are read: the `Source` of a dataset gives its SQL dialect and runs the aggregates the dialect
 * layer (dialect.ts) builds. Imported datasets read the workspace's SQLite table; linked files are read in place by
 * DuckDB (synchronously, see duckdb-sync.ts); linked PostgreSQL relations by PostgreSQL (pg-sync.ts, `?` placeholders
 * numbered `$1..` here); linked ClickHouse tables by ClickHouse (clickhouse-sync.ts, `?` bound as query parameters or
 * checked literals; a per-person level on shards where sound: linked-clickhouse.ts). Only aggregates come back (and, for anomaly identification, the chosen
 * columns' values), as better-sqlite3 gives them.
 */
import type Database from 'better-sqlite3'
import type { CatalogDataset } from '../catalog/catalog'
import type { StoredValue } from '../catalog/column-types'
import type { Dialect, Sql } from './dialect'
import { sqliteDialect } from './dialect-sqlite'
import { registerKeyedHash } from './keyed-hash'
import { duckdbDialect } from './dialect-duckdb'
import { duckAll, duckAppendNumbers, duckNumbers } from './duckdb-sync'
import { type LinkedFileRecord, assertCheckedVersion, checkLinkedFile, linkedFileOf, linkedFileFailure } from './linked-file'
import { postgresDialect } from './dialect-postgres'
import { numberedParams, pgAll } from './pg-sync'
import { type LinkedPostgresRecord, checkPostgresSource, connectionAtUse, linkedPostgresFailure, linkedPostgresOf } from './linked-postgres'
import { clickhouseDialect } from './dialect-clickhouse'
import {
  type LinkedClickHouseRecord,
  type ShardingMode,
  checkClickHouseSource,
  chQuery,
  clickhouseConnectionAtUse,
  linkedClickHouseFailure,
  linkedClickHouseOf,
  shardingModeNow
} from './linked-clickhouse'

export interface Source {
  readonly dialect: Dialect
  /** The rows of a query (arrays, in select order). */
  all(q: Sql): unknown[][]
  /** A query whose columns are numbers, one Float64Array per column (NULL as NaN): DuckDB only (duckdb-truncation.ts). */
  numbers?(q: Sql): Float64Array[]
  /** Appends numbers as the rows of a temporary table of one DOUBLE column that this program made: DuckDB only (duckdb-truncation.ts). */
  appendNumbers?(table: string, values: Float64Array): void
  /** The linked file, PostgreSQL relation or ClickHouse table (null for an imported dataset). */
  readonly linked: LinkedFileRecord | LinkedPostgresRecord | LinkedClickHouseRecord | null
}

export function sqliteSource(db: Database.Database): Source {
  // The keyed rank of the maxGroups bound (SQLite has no MD5): a deterministic function on this connection.
  registerKeyedHash(db)
  return {
    dialect: sqliteDialect,
    linked: null,
    all: (q) =>
      db
        .prepare(q.sql)
        .raw()
        .all(...q.params) as unknown[][]
  }
}

export function duckdbSource(file: LinkedFileRecord): Source {
  const read = <T>(run: () => T): T => {
    // A release reads the version it checked before its charge, and nothing written since (before and after each read).
    assertCheckedVersion(file)
    let out: T
    try {
      out = run()
    } catch (e) {
      // DuckDB's message may quote the file's contents: a sentence naming the dataset instead.
      throw linkedFileFailure(file, e)
    }
    assertCheckedVersion(file)
    return out
  }
  return {
    dialect: duckdbDialect(file),
    linked: file,
    all: (q) => read(() => duckAll(q.sql, q.params as StoredValue[]).rows),
    numbers: (q) => read(() => duckNumbers(q.sql, q.params as StoredValue[])),
    appendNumbers: (table, values) => read(() => duckAppendNumbers(table, values))
  }
}

export function postgresSource(rel: LinkedPostgresRecord): Source {
  return {
    dialect: postgresDialect(rel),
    linked: rel,
    all: (q) => {
      try {
        // The password is read from the environment at each use (never stored).
        return pgAll(connectionAtUse(rel.url, rel.passwordEnv), numberedParams(q.sql), q.params as StoredValue[]).rows
      } catch (e) {
        // The driver's message may quote rows: a sentence naming the dataset instead.
        throw linkedPostgresFailure(rel, e)
      }
    }
  }
}

export function clickhouseSource(table: LinkedClickHouseRecord): Source {
  // Read from system.tables at this source's first per-person level (each evaluation has its own source).
  let mode: ShardingMode | null = null
  return {
    dialect: clickhouseDialect(table),
    linked: table,
    all: (q) => {
      try {
        // The password is read from the environment at each use (never stored).
        const conn = clickhouseConnectionAtUse(table.url, table.passwordEnv)
        let extra: Record<string, string> = {}
        if (q.perPerson) {
          mode ??= shardingModeNow(conn, table)
          // Each shard finishes the per-person level: sound only when shards hold whole persons (linked-clickhouse.ts).
          if (mode === 'per-shard') extra = { distributed_group_by_no_merge: '1' }
        }
        return chQuery(conn, q.sql, q.params, extra).rows
      } catch (e) {
        // The server's message may quote rows: a sentence naming the dataset instead.
        throw linkedClickHouseFailure(table, e)
      }
    }
  }
}

/** The source of a dataset's rows: its linked file, PostgreSQL relation or ClickHouse table, or the workspace's table. */
export function sourceFor(db: Database.Database, ds: CatalogDataset): Source {
  const ch = linkedClickHouseOf(db, ds.info.id)
  if (ch) return clickhouseSource(ch)
  const rel = linkedPostgresOf(db, ds.info.id)
  if (rel) return postgresSource(rel)
  const file = linkedFileOf(db, ds.info.id)
  return file ? duckdbSource(file) : sqliteSource(db)
}

/**
 * Before a release is charged: a linked dataset's source must be there with the schema it was linked with (public
 * metadata; one sentence ending "Nothing was charged." otherwise). Returns its fingerprint now, recorded in the
 * release's ledger entry, or null for an imported dataset.
 */
export function checkLinkedSource(db: Database.Database, datasetId: number): object | null {
  const ch = linkedClickHouseOf(db, datasetId)
  if (ch) return checkClickHouseSource(ch)
  const rel = linkedPostgresOf(db, datasetId)
  if (rel) return checkPostgresSource(rel)
  return checkLinkedFile(db, datasetId)
}
