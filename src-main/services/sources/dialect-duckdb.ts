/**
 * The DuckDB compiler (linked files: a Parquet or CSV file read in place by `read_parquet` / `read_csv`). Columns are
 * read by their names in the file and converted to the stored forms an import gives: timestamps and dates to ms since
 * the epoch (UTC), integers beyond 2^53 and other types to text (as the link recorded them); a value that cannot be
 * counted in its column's form (the file changed since it was linked) is NULL, never a failed read (`storedExpr`).
 */
import type { ColumnType } from '../../contract/datasets'
import type { CatalogColumn, CatalogDataset } from '../catalog/catalog'
import type { Dialect } from './dialect'
import { duckString } from './duckdb-sync'
import { RANK_MODULUS, REAL_PERSON_CLAMP, checkedKey } from './keyed-hash'

const DUCK_TYPES: Record<ColumnType, string> = { integer: 'BIGINT', timestamp: 'BIGINT', real: 'DOUBLE', text: 'VARCHAR' }

export interface LinkedFileSchemaColumn {
  /** The column's name in the file. */
  name: string
  /** DuckDB's type of the column, as read from the file's schema when it was linked. */
  duckType: string
  /** The type the catalog gives it. */
  type: ColumnType
}

export interface LinkedFile {
  format: 'parquet' | 'csv'
  path: string
  columns: LinkedFileSchemaColumn[]
}

/** A file column's name as a DuckDB identifier (names come from the file's schema; quotes are doubled). */
export function duckIdent(name: string): string {
  if (name.includes('\u0000')) throw new Error('a NUL byte in a column name')
  return `"${name.replace(/"/g, '""')}"`
}

const INTEGER_TYPES = /^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|HUGEINT|UHUGEINT)$/
const REAL_TYPES = /^(FLOAT|DOUBLE|REAL|DECIMAL(\(\d+,\s*\d+\))?)$/
const TIME_TYPES = /^(DATE|TIMESTAMP|TIMESTAMP_S|TIMESTAMP_MS|TIMESTAMP_NS|TIMESTAMP WITH TIME ZONE)$/

/** The catalog type of a DuckDB column type (before the range check of integers). */
export function catalogType(duckType: string): ColumnType {
  if (INTEGER_TYPES.test(duckType)) return 'integer'
  if (REAL_TYPES.test(duckType)) return 'real'
  if (TIME_TYPES.test(duckType)) return 'timestamp'
  return 'text'
}

const SAFE = Number.MAX_SAFE_INTEGER
/** JavaScript's date range in ms: a timestamp beyond it cannot be shown. */
const MAX_TIMESTAMP_MS = 8.64e15
const WIDE_INTEGER = /^(BIGINT|UBIGINT|HUGEINT|UHUGEINT)$/
/**
 * Unsigned wide integers are compared with the upper end only: a BETWEEN with the negative lower end makes DuckDB cast
 * the value to a signed type, which fails for a UHUGEINT of 2^127 or more.
 */
const UNSIGNED_WIDE = /^(UBIGINT|UHUGEINT)$/
const FLOATING = /^(FLOAT|DOUBLE|REAL)$/

/**
 * A file column read as the catalog type's stored form, never failing on a value (dialect.ts): an integer beyond
 * +-(2^53 - 1), a NaN, a date or timestamp outside JavaScript's dates or infinite is NULL. `text`: the column is read as
 * VARCHAR (a CSV) and converted here with TRY_CAST, so a value that no longer parses as its linked type is NULL too.
 */
export function storedExpr(c: LinkedFileSchemaColumn, text = false): string {
  const id = duckIdent(c.name)
  const typed = text && c.duckType !== 'VARCHAR' ? `TRY_CAST(${id} AS ${c.duckType})` : id
  switch (c.type) {
    case 'integer': {
      const x = INTEGER_TYPES.test(c.duckType) ? typed : `TRY_CAST(${typed} AS BIGINT)`
      if (!WIDE_INTEGER.test(c.duckType) && INTEGER_TYPES.test(c.duckType)) return x
      const exact = UNSIGNED_WIDE.test(c.duckType) ? `${x} <= ${SAFE}` : `${x} BETWEEN ${-SAFE} AND ${SAFE}`
      return `(CASE WHEN ${exact} THEN CAST(${x} AS BIGINT) END)`
    }
    case 'real':
      return FLOATING.test(c.duckType) ? `(CASE WHEN NOT isnan(${typed}) THEN CAST(${typed} AS DOUBLE) END)` : `TRY_CAST(${typed} AS DOUBLE)`
    case 'timestamp': {
      // DuckDB's dates reach far beyond its timestamps, and its timestamps beyond JavaScript's dates.
      const t = c.duckType === 'TIMESTAMP WITH TIME ZONE' ? typed : `TRY_CAST(${typed} AS TIMESTAMP)`
      return `(CASE WHEN isfinite(${t}) THEN (CASE WHEN epoch_ms(${t}) BETWEEN ${-MAX_TIMESTAMP_MS} AND ${MAX_TIMESTAMP_MS} THEN epoch_ms(${t}) END) END)`
    }
    default:
      return c.duckType === 'VARCHAR' ? id : `CAST(${id} AS VARCHAR)`
  }
}

/** True when DuckDB's table functions would read `path` as a glob pattern (`*`, `?`, `[`): such a path names other files too. */
export function hasGlobCharacters(path: string): boolean {
  return /[*?[]/.test(path)
}

/**
 * The table function reading the file. With `columns`: a CSV read with that schema (as recorded at link time); with
 * `asText` too (the release path), every CSV column as VARCHAR, read leniently within its line (`strict_mode = false`:
 * a quote closed early as in `"R1"x`, or values beyond the header's columns, stay in their own row; DuckDB's strict
 * reader skipped every line after such a value) and a line that still cannot be read skipped; `storedExpr(c, true)`
 * converts each value, so no value can fail a read. That every line is one record is checked before the charge
 * (linked-file-whole.ts): a quote left open joins or drops the lines after it, whatever the reader's options.
 */
export function fileRelation(f: Pick<LinkedFile, 'format' | 'path'> & { columns?: LinkedFileSchemaColumn[] }, asText = false): string {
  // DuckDB reads a path with glob characters as a pattern (other files than the one signed): never compiled.
  if (hasGlobCharacters(f.path)) throw new Error('A linked file path with glob characters reached the compiler')
  if (f.format === 'parquet') return `read_parquet(${duckString(f.path)})`
  const type = (c: LinkedFileSchemaColumn) => (asText ? 'VARCHAR' : c.duckType)
  const cols = f.columns ? `, columns = {${f.columns.map((c) => `${duckString(c.name)}: ${duckString(type(c))}`).join(', ')}}` : ''
  return `read_csv(${duckString(f.path)}, header = true, auto_detect = ${f.columns ? 'false' : 'true'}${cols}${asText ? ', ignore_errors = true, strict_mode = false' : ''})`
}

export function duckdbDialect(file: LinkedFile): Dialect {
  const byName = new Map(file.columns.map((c) => [c.name, c]))
  return {
    engine: 'duckdb',
    relation: () => fileRelation(file, file.format === 'csv'),
    column: (_ds: CatalogDataset, col: CatalogColumn) => {
      const c = byName.get(col.name)
      if (!c) throw new Error(`column ${col.position} is not in the linked file's schema`)
      return storedExpr(c, file.format === 'csv')
    },
    // DuckDB's min(x, n) is an aggregate (the n smallest): the scalar minimum is least().
    least: (a, b) => `least(${a}, ${b})`,
    floorDiv: (x, b) => {
      if (!Number.isSafeInteger(b) || b < 1) throw new Error('bucket width must be a whole number >= 1')
      return `((${x} - ((${x} % ${b}) + ${b}) % ${b}) // ${b})`
    },
    // DuckDB puts NULL last by default; SQLite first.
    asc: (e) => `${e} ASC NULLS FIRST`,
    // A plain scan keeps the file's order (DuckDB preserves insertion order by default).
    fileOrder: () => '',
    typed: (e, type) => `CAST(${e} AS ${DUCK_TYPES[type]})`,
    sameValue: (a, b) => `${a} IS NOT DISTINCT FROM ${b}`,
    values: (rows, names, alias) => `(VALUES ${rows.map((r) => `(${r.join(', ')})`).join(', ')}) AS ${alias}(${names.join(', ')})`,
    personDigest: (key, person, personType) => {
      const text =
        personType === 'real'
          ? `CAST(CAST(floor(least(greatest(${person}, CAST(${-REAL_PERSON_CLAMP} AS DOUBLE)), CAST(${REAL_PERSON_CLAMP} AS DOUBLE)) * 1000000) AS BIGINT) AS VARCHAR)`
          : `CAST(${person} AS VARCHAR)`
      return `md5('${checkedKey(key)}:' || ${text})`
    },
    digestWord: (digest, j) => `(CAST('0x' || substr(${digest}, ${8 * j + 1}, 8) AS BIGINT) % ${RANK_MODULUS})`,
    materialized: 'MATERIALIZED',
    // A grouped top-n over the person's value costs less than numbering the persons first.
    rankPartition: 'person'
  }
}
