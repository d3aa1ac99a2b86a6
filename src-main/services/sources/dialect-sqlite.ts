/**
 * The SQLite compiler (imported datasets: the workspace's `ds_<id>` table with generated column names `c1..cN`). An
 * import stores only countable values (safe integers, finite reals, timestamps of years 0-9999); a STRICT INTEGER
 * column holds any 64-bit integer, so an integer or timestamp written around the import that is beyond +-(2^53 - 1),
 * or beyond JavaScript's dates, reads as NULL (dialect.ts: no failure may depend on a value).
 */
import { type CatalogColumn, type CatalogDataset, ident } from '../catalog/catalog'
import type { Dialect } from './dialect'
import { SQLITE_DIGEST_FUNCTION, SQLITE_WORD_FUNCTION, checkedKey } from './keyed-hash'

const SAFE = Number.MAX_SAFE_INTEGER
const MAX_TIMESTAMP_MS = 8.64e15

function storedColumn(col: CatalogColumn): string {
  const id = ident(col.sqlName)
  if (col.type === 'integer') return `(CASE WHEN ${id} BETWEEN ${-SAFE} AND ${SAFE} THEN ${id} END)`
  if (col.type === 'timestamp') return `(CASE WHEN ${id} BETWEEN ${-MAX_TIMESTAMP_MS} AND ${MAX_TIMESTAMP_MS} THEN ${id} END)`
  return id
}

export const sqliteDialect: Dialect = {
  engine: 'sqlite',
  relation: (ds: CatalogDataset) => ident(ds.tableName),
  column: (_ds: CatalogDataset, col: CatalogColumn) => storedColumn(col),
  // SQLite's two-argument min() is the scalar minimum.
  least: (a, b) => `min(${a}, ${b})`,
  floorDiv: (x, b) => {
    if (!Number.isSafeInteger(b) || b < 1) throw new Error('bucket width must be a whole number >= 1')
    return `((${x} - ((${x} % ${b}) + ${b}) % ${b}) / ${b})`
  },
  // SQLite puts NULL first in ascending order.
  asc: (e) => e,
  // Imports insert rows in file order and never delete: rowid is the file order.
  fileOrder: () => 'ORDER BY rowid',
  // Bound values keep their type (numbers as numbers, text as text): no cast needed.
  typed: (e) => e,
  sameValue: (a, b) => `${a} IS ${b}`,
  // SQLite's VALUES columns are column1..columnN: renamed in a subquery.
  values: (rows, names, alias) =>
    `(SELECT ${names.map((n, j) => `column${j + 1} AS ${n}`).join(', ')} FROM (VALUES ${rows.map((r) => `(${r.join(', ')})`).join(', ')})) AS ${alias}`,
  // SQLite has no MD5: the functions registered on the connection (keyed-hash.ts registerKeyedHash, by sqliteSource).
  personDigest: (key, person, personType) => `${SQLITE_DIGEST_FUNCTION}('${checkedKey(key)}', ${person}, ${personType === 'real' ? 1 : 0})`,
  // A function's number comes back as a REAL: cast, so that the rank's arithmetic is in 64-bit integers, not doubles.
  digestWord: (digest, j) => `CAST(${SQLITE_WORD_FUNCTION}(${digest}, ${j}) AS INTEGER)`,
  materialized: 'MATERIALIZED',
  rankPartition: 'number'
}
