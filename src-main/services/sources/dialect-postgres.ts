/**
 * The PostgreSQL compiler (linked PostgreSQL tables and views, read through `pg`). Columns are read by their names and
 * converted to the stored forms an import gives: integers as they are (a bigint beyond 2^53 is NULL),
 * floating and numeric as double precision, timestamps and dates as whole ms since the epoch (UTC; a timestamp without
 * time zone is taken as UTC, as an import does), anything else as text. Text is compared and ordered
 * with the "C" collation (byte order of UTF-8 = SQLite's BINARY), whatever the database's collation.
 */
import type { ColumnType } from '../../contract/datasets'
import type { CatalogColumn, CatalogDataset } from '../catalog/catalog'
import type { Dialect } from './dialect'
import { RANK_MODULUS, REAL_PERSON_CLAMP, checkedKey } from './keyed-hash'

const PG_TYPES: Record<ColumnType, string> = { integer: 'bigint', timestamp: 'bigint', real: 'double precision', text: 'text' }

export interface PgSchemaColumn {
  /** The column's name in the relation. */
  name: string
  /** information_schema.columns.data_type when linked (e.g. "bigint", "timestamp with time zone"). */
  pgType: string
  /** The type the catalog gives it. */
  type: ColumnType
}

export interface LinkedRelation {
  schema: string
  table: string
  /** pg_class.relkind when linked: 'r' table, 'p' partitioned table, 'v' view, 'm' materialized view, 'f' foreign table. */
  relkind: string
  columns: PgSchemaColumn[]
}

/** A PostgreSQL identifier (names come from the server's catalog; quotes are doubled). */
export function pgIdent(name: string): string {
  if (name.includes('\u0000')) throw new Error('a NUL byte in an identifier')
  return `"${name.replace(/"/g, '""')}"`
}

const INTEGER_TYPES = new Set(['smallint', 'integer', 'bigint'])
const REAL_TYPES = new Set(['real', 'double precision', 'numeric'])
const TIME_TYPES = new Set(['timestamp without time zone', 'timestamp with time zone', 'date'])
const TEXT_TYPES = new Set(['text', 'character varying', 'character'])

/** The catalog type of a PostgreSQL column type (before the range check of bigint columns). */
export function pgCatalogType(pgType: string): ColumnType {
  if (INTEGER_TYPES.has(pgType)) return 'integer'
  if (REAL_TYPES.has(pgType)) return 'real'
  if (TIME_TYPES.has(pgType)) return 'timestamp'
  return 'text'
}

const SAFE = Number.MAX_SAFE_INTEGER
/** JavaScript's date range in seconds (a timestamp beyond it cannot be shown). */
const MAX_TIMESTAMP_S = 8.64e12

/**
 * A relation column read as the catalog type's stored form, never failing on a value (dialect.ts): a bigint beyond
 * +-(2^53 - 1), a NaN or a numeric beyond a double's range, an infinite timestamp or date or one outside JavaScript's
 * dates is NULL. Every such test is a CASE whose THEN branch PostgreSQL evaluates only for the rows it holds for.
 */
export function pgStoredExpr(c: PgSchemaColumn): string {
  const id = pgIdent(c.name)
  switch (c.type) {
    case 'integer':
      // A bigint is integer whatever its values (linking reads no rows); one beyond 2^53 is not an exact JS number.
      if (c.pgType === 'bigint') return `(CASE WHEN ${id} BETWEEN ${-SAFE} AND ${SAFE} THEN ${id} END)`
      return INTEGER_TYPES.has(c.pgType) ? id : `CAST(${id} AS bigint)`
    case 'real':
      // numeric NaN sorts above every number, so the range test leaves it out too; a double NaN equals NaN here.
      if (c.pgType === 'numeric')
        return `(CASE WHEN ${id} BETWEEN -1.7976931348623157e308 AND 1.7976931348623157e308 THEN CAST(${id} AS double precision) END)`
      return `(CASE WHEN ${id} <> CAST('NaN' AS double precision) THEN CAST(${id} AS double precision) END)`
    case 'timestamp': {
      // A date may lie beyond every timestamp: it is compared before it is cast.
      const t = c.pgType === 'date' ? `CAST(${id} AS timestamp)` : id
      const inRange = c.pgType === 'date' ? `isfinite(${id}) AND ${id} <= DATE '275760-09-13'` : `isfinite(${id})`
      return `(CASE WHEN ${inRange} THEN (CASE WHEN extract(epoch FROM ${t}) BETWEEN ${-MAX_TIMESTAMP_S} AND ${MAX_TIMESTAMP_S} THEN CAST(floor(extract(epoch FROM ${t}) * 1000) AS bigint) END) END)`
    }
    default:
      return `(${TEXT_TYPES.has(c.pgType) ? id : `CAST(${id} AS text)`} COLLATE "C")`
  }
}

export function pgRelation(r: Pick<LinkedRelation, 'schema' | 'table'>): string {
  return `${pgIdent(r.schema)}.${pgIdent(r.table)}`
}

export function postgresDialect(rel: LinkedRelation): Dialect {
  const byName = new Map(rel.columns.map((c) => [c.name, c]))
  return {
    engine: 'postgres',
    relation: () => pgRelation(rel),
    column: (_ds: CatalogDataset, col: CatalogColumn) => {
      const c = byName.get(col.name)
      if (!c) throw new Error(`column ${col.position} is not in the linked relation's schema`)
      return pgStoredExpr(c)
    },
    least: (a, b) => `least(${a}, ${b})`,
    floorDiv: (x, b) => {
      if (!Number.isSafeInteger(b) || b < 1) throw new Error('bucket width must be a whole number >= 1')
      // bigint `/` truncates toward zero: subtract the non-negative remainder first.
      return `((${x} - ((${x} % ${b}) + ${b}) % ${b}) / ${b})`
    },
    // PostgreSQL puts NULL last in ascending order by default; SQLite first.
    asc: (e) => `${e} ASC NULLS FIRST`,
    // A table's rows in physical order (insertion order while nothing is updated or vacuumed away); a view has none.
    fileOrder: () => (rel.relkind === 'r' || rel.relkind === 'm' ? 'ORDER BY ctid' : ''),
    // Parameters in VALUES have no type to infer from: every value is cast.
    typed: (e, type) => `CAST(${e} AS ${PG_TYPES[type]})`,
    sameValue: (a, b) => `${a} IS NOT DISTINCT FROM ${b}`,
    values: (rows, names, alias) => `(VALUES ${rows.map((r) => `(${r.join(', ')})`).join(', ')}) AS ${alias}(${names.join(', ')})`,
    personDigest: (key, person, personType) => {
      const dbl = (x: number) => `CAST(${x} AS double precision)`
      const text =
        personType === 'real'
          ? `CAST(CAST(floor(least(greatest(${person}, ${dbl(-REAL_PERSON_CLAMP)}), ${dbl(REAL_PERSON_CLAMP)}) * 1000000) AS bigint) AS text)`
          : `CAST(${person} AS text)`
      return `md5('${checkedKey(key)}:' || ${text})`
    },
    // 'x' and 16 hex digits (eight zeros, then the word's) read as 64 bits: a non-negative bigint.
    digestWord: (digest, j) => `(CAST(CAST('x00000000' || substr(${digest}, ${8 * j + 1}, 8) AS bit(64)) AS bigint) % ${RANK_MODULUS})`,
    // PostgreSQL 12 and later (earlier versions materialize every common table expression and lack the keyword).
    materialized: 'MATERIALIZED',
    rankPartition: 'number'
  }
}
