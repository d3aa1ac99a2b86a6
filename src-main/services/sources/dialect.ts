/**
 * One query model, one compiler per engine (issue 16). A release needs only aggregates of a dataset; this file builds
 * each of them as SQL from the saved definition, the catalog and a `Dialect` (what differs between engines: how a
 * column is read, the scalar minimum, integer floor division, NULL ordering). `dialect-sqlite.ts` compiles for an
 * imported dataset (the workspace's SQLite table), `dialect-duckdb.ts` for a linked file (DuckDB reading the Parquet or
 * CSV file in place). Adding an engine is one new `dialect-<engine>.ts` giving a `Source` (see source.ts).
 *
 * Every builder returns SQL with `?` placeholders and the parameters in order; user values are always parameters,
 * identifiers come from the catalog only. Every subquery in FROM has an alias (PostgreSQL before 16 requires one).
 *
 * The aggregates:
 * - `whereOf`: filter, period [from, to), and the person column not empty for capped per-person counts;
 * - `groupCountSql`: per group (k1..kG[, b]) the row count, or the sum over persons of min(rows, cap);
 * - `personTuplesSql`: (person, k1..kG[, b], rows), sorted, for the maxGroups truncation (done in JS with the release's
 *   generator: the random subset is the mechanism's, so it must not come from the engine);
 * - `referenceSql`: per group the max and the sum over time buckets of the per-bucket count;
 * - `columnValuesSql`: the AIQ columns (and person) of every row with no empty value, in file order;
 * - `maxScoreSql`: the search's largest score per individual.
 */
import type { FilterCondition, ThresholdQueryDefinition } from '../../contract/datasets'
import { UserError } from '../errors'
import type { StoredValue } from '../datasets/column-types'
import type { CatalogColumn, CatalogDataset } from '../datasets/catalog'
import { findColumn, storedValueFor } from '../datasets/query-definitions'

export interface Dialect {
  readonly engine: 'sqlite' | 'duckdb' | 'postgres'
  /** The relation the dataset's rows are read from (a table, or a table function over a file). */
  relation(ds: CatalogDataset): string
  /** A column's value in its stored form (as an import stores it: numbers, text, timestamps in ms since the epoch). */
  column(ds: CatalogDataset, col: CatalogColumn): string
  /** The smaller of two values (scalar). */
  least(a: string, b: string): string
  /** floor(x / b) for a whole number x of any sign and a whole b > 0. */
  floorDiv(x: string, b: number): string
  /** `ORDER BY` term for ascending order with empty values first (SQLite's order). */
  asc(expr: string): string
  /** Rows in file order: an ORDER BY clause or ''. */
  fileOrder(ds: CatalogDataset): string
}

export interface Sql {
  sql: string
  params: StoredValue[]
}

export interface Period {
  column: CatalogColumn
  from: number
  to: number
}

const SQL_OPS: Record<string, string> = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' }

function condition(d: Dialect, ds: CatalogDataset, c: FilterCondition, params: StoredValue[]): string {
  const col = findColumn(ds, c.column, 'filter column')
  const id = d.column(ds, col)
  switch (c.op) {
    case 'is null':
      return `${id} IS NULL`
    case 'is not null':
      return `${id} IS NOT NULL`
    case 'in':
    case 'not in': {
      const list = c.value as Array<string | number>
      for (const v of list) params.push(storedValueFor(col, v, 'A filter value'))
      return `${id} ${c.op === 'in' ? 'IN' : 'NOT IN'} (${list.map(() => '?').join(', ')})`
    }
    default: {
      const op = SQL_OPS[c.op]
      if (!op) throw new UserError('Unknown filter operator', 'bad-query')
      params.push(storedValueFor(col, c.value, 'A filter value'))
      return `${id} ${op} ?`
    }
  }
}

export interface Where {
  /** `WHERE ...` or '' */
  sql: string
  params: StoredValue[]
}

/** The rows a threshold query counts in one period: its filter, [from, to) on the period column, a person if counted per person. */
export function whereOf(d: Dialect, ds: CatalogDataset, def: ThresholdQueryDefinition, period: Period | null): Where {
  const parts: string[] = []
  const params: StoredValue[] = []
  for (const c of def.filter ?? []) parts.push(condition(d, ds, c, params))
  if (period) {
    const t = d.column(ds, period.column)
    parts.push(`${t} >= ? AND ${t} < ?`)
    params.push(period.from, period.to)
  }
  if (def.count.kind === 'persons') parts.push(`${d.column(ds, findColumn(ds, def.count.personColumn, 'person column'))} IS NOT NULL`)
  const expr = parts.length ? parts.map((x) => `(${x})`).join(' AND ') : null
  return { sql: expr ? `WHERE ${expr}` : '', params }
}

function keyColumns(ds: CatalogDataset, def: ThresholdQueryDefinition): CatalogColumn[] {
  return def.groupBy.map((g) => findColumn(ds, g, 'group-by column'))
}

function bucketExpr(d: Dialect, ds: CatalogDataset, def: ThresholdQueryDefinition, bucketMs: number): string {
  const t = d.column(ds, findColumn(ds, (def.threshold as { column: string }).column, 'reference column'))
  return d.floorDiv(t, bucketMs)
}

/** The count per group (columns k1..kG, then n); with `bucketMs`, per group and time bucket (k1..kG, b, n). */
export function groupCountSql(d: Dialect, ds: CatalogDataset, def: ThresholdQueryDefinition, where: Where, bucketMs: number | null): Sql {
  const keys = keyColumns(ds, def)
  const keySel = keys.map((k, i) => `${d.column(ds, k)} AS k${i + 1}`)
  const keyNames = keys.map((_, i) => `k${i + 1}`)
  const bucketSel = bucketMs !== null ? `, ${bucketExpr(d, ds, def, bucketMs)} AS b` : ''
  const groupCols = [...keyNames, ...(bucketMs !== null ? ['b'] : [])].join(', ')
  const table = d.relation(ds)
  if (def.count.kind === 'rows') {
    return {
      sql: `SELECT ${groupCols}, count(*) AS n FROM (SELECT ${keySel.join(', ')}${bucketSel} FROM ${table} ${where.sql}) AS r GROUP BY ${groupCols} ORDER BY ${groupCols}`,
      params: where.params
    }
  }
  const p = d.column(ds, findColumn(ds, def.count.personColumn, 'person column'))
  const inner = `SELECT ${keySel.join(', ')}${bucketSel}, ${p} AS p FROM ${table} ${where.sql}`
  const perPerson = `SELECT ${groupCols}, p, count(*) AS c FROM (${inner}) AS r GROUP BY ${groupCols}, p`
  return {
    sql: `SELECT ${groupCols}, sum(${d.least('c', '?')}) AS n FROM (${perPerson}) AS pp GROUP BY ${groupCols} ORDER BY ${groupCols}`,
    params: [def.count.cap, ...where.params]
  }
}

/** Per group (k1..kG): the max and the sum over time buckets of the count per bucket (`perBucket` from `groupCountSql`). */
export function referenceSql(def: ThresholdQueryDefinition, perBucket: Sql): Sql {
  const ks = def.groupBy.map((_, i) => `k${i + 1}`).join(', ')
  return { sql: `SELECT ${ks}, max(n), sum(n) FROM (${perBucket.sql}) AS pb GROUP BY ${ks}`, params: perBucket.params }
}

/**
 * (person, k1..kG[, b], rows) for the rows of one period, sorted by person, then keys (then bucket), empty values first:
 * the order the truncation visits persons in, the same in every engine.
 */
export function personTuplesSql(d: Dialect, ds: CatalogDataset, def: ThresholdQueryDefinition, personColumn: string, where: Where, bucketMs: number | null): Sql {
  const p = d.column(ds, findColumn(ds, personColumn, 'person column'))
  const keys = keyColumns(ds, def).map((k) => d.column(ds, k))
  const bucket = bucketMs === null ? [] : [bucketExpr(d, ds, def, bucketMs)]
  const sel = [`${p} AS p`, ...keys.map((k, i) => `${k} AS k${i + 1}`), ...bucket.map((b) => `${b} AS b`)]
  const names = ['p', ...keys.map((_, i) => `k${i + 1}`), ...bucket.map(() => 'b')]
  return {
    sql: `SELECT ${names.join(', ')}, count(*) FROM (SELECT ${sel.join(', ')} FROM ${d.relation(ds)} ${where.sql}) AS r GROUP BY ${names.join(', ')} ORDER BY ${names.map((n) => d.asc(n)).join(', ')}`,
    params: where.params
  }
}

/** The given columns of every row where none is empty, in file order. */
export function columnValuesSql(d: Dialect, ds: CatalogDataset, cols: CatalogColumn[]): Sql {
  const exprs = cols.map((c) => d.column(ds, c))
  return {
    sql: `SELECT ${exprs.join(', ')} FROM ${d.relation(ds)} WHERE ${exprs.map((e) => `${e} IS NOT NULL`).join(' AND ')} ${d.fileOrder(ds)}`,
    params: []
  }
}

/** (id, largest score) per individual with a score. */
export function maxScoreSql(d: Dialect, ds: CatalogDataset, id: CatalogColumn, score: CatalogColumn): Sql {
  const i = d.column(ds, id)
  const s = d.column(ds, score)
  return { sql: `SELECT ${i}, max(${s}) FROM ${d.relation(ds)} WHERE ${s} IS NOT NULL AND ${i} IS NOT NULL GROUP BY ${i}`, params: [] }
}

/** The number of rows. */
export function rowCountSql(d: Dialect, ds: CatalogDataset): Sql {
  return { sql: `SELECT count(*) FROM ${d.relation(ds)}`, params: [] }
}
