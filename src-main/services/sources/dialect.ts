/**
 * One query model, one compiler per engine. A release needs only aggregates of a dataset; this file builds
 * each of them as SQL from the saved definition, the catalog and a `Dialect` (what differs between engines: how a
 * column is read, the scalar minimum, integer floor division, NULL ordering). `dialect-sqlite.ts` compiles for an
 * imported dataset (the workspace's SQLite table), `dialect-duckdb.ts` for a linked file (DuckDB reading the Parquet or
 * CSV file in place). Adding an engine is one new `dialect-<engine>.ts` giving a `Source` (see source.ts).
 *
 * Every builder returns SQL with `?` placeholders and the parameters in order; user values are always parameters,
 * identifiers come from the catalog only. Every subquery in FROM has an alias (PostgreSQL before 16 requires one).
 * The level that reads the relation aggregates (GROUP BY there, never in an outer level over its plain rows): a
 * Distributed ClickHouse table runs that level on its shards and only its result travels.
 *
 * No failure may depend on the data (ALGORITHMS.md section 5: after the charge it would release an exact bit): every
 * `Dialect.column` reads each value as its catalog type's stored form or as NULL, never with a cast or check that can
 * fail on a row. A value that cannot be counted in that form is NULL, decided from the declared type alone: an
 * integer beyond +-(2^53 - 1) (not an exact JS number), a timestamp outside JavaScript's dates (+-8.64e15 ms) or
 * infinite, a real that is NaN or beyond a double's range. An engine that is down fails the release after its charge
 * with the neutral sentence.
 *
 * The aggregates:
 * - `whereOf`: filter, period [from, to), and the person column not empty for capped per-person counts;
 * - `groupCountSql`: per group (k1..kG[, b]) the row count, or the sum over persons of min(rows, cap); a group-by time
 *   column of `groupByTime` is keyed by the start of its hour, day or week (`keyExpr`, also in the maxGroups forms);
 * - `truncatedCountSql` / `truncatedReferenceSql`: the same with the `maxGroups` bound applied in the engine: each
 *   person keeps the predicates of smallest keyed rank (a window function over the person's predicates; the rank is
 *   a cubic in the predicate index whose coefficients come from one keyed digest per person, `Dialect.personDigest`,
 *   identical in every engine, keyed per evaluation: keyed-hash.ts has the rule and the soundness argument);
 * - `referenceSql`: per group the max and the sum over time buckets of the per-bucket count;
 * - `columnValuesSql`: the AIQ columns (and person) of every row with no empty value, in file order;
 * - `maxScoreSql`: the search's largest score per individual.
 */
import type { ColumnType, FilterCondition, ThresholdQueryDefinition } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import type { StoredValue } from '../catalog/column-types'
import type { CatalogColumn, CatalogDataset } from '../catalog/catalog'
import { findColumn, storedValueFor } from '../catalog/columns'
import { RANK_INDEX_SPAN, RANK_MODULUS, RANK_WORDS } from './keyed-hash'
import { TIME_BUCKETS } from '../../contract/time-buckets'

export interface Dialect {
  readonly engine: 'sqlite' | 'duckdb' | 'postgres' | 'clickhouse'
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
  /** An expression (a parameter, a literal, NULL) as a value of the catalog type's stored form, where the engine cannot infer it. */
  typed(expr: string, type: ColumnType): string
  /** a = b, also true when both are empty (NULL). */
  sameValue(a: string, b: string): string
  /** A relation of literal rows (at least one) with the given column names, aliased `alias`. */
  values(rows: string[][], names: string[], alias: string): string
  /**
   * The keyed digest of a person for the `maxGroups` bound: MD5(key ":" text(person)) as 32 lowercase hex digits
   * (keyed-hash.ts); `key` is 32 hex digits, inlined.
   */
  personDigest(key: string, person: string, personType: ColumnType): string
  /** c_j of a digest: its hex digits 8j+1 .. 8j+8 as an unsigned 32-bit integer, mod 2^31 - 1 (keyed-hash.ts). */
  digestWord(digest: string, j: number): string
  /** The keyword that makes a common table expression computed once ('MATERIALIZED'). */
  readonly materialized: string
  /**
   * What the keyed rank's window (`ranked`) is partitioned by: the person's value itself ('person': DuckDB runs the
   * window as a grouped top-n over it), or a whole number given to each distinct person ('number': SQLite and
   * PostgreSQL sort by the partition key, and an integer sorts faster than text).
   */
  readonly rankPartition: 'person' | 'number'
  /**
   * The `maxGroups` aggregates built another way, for an engine without window functions (ClickHouse); absent: the
   * portable form below. Same results as `truncatedCountSql` / `truncatedReferenceSql`, same arguments.
   */
  readonly truncation?: {
    count(d: Dialect, ds: CatalogDataset, def: ThresholdQueryDefinition, t: Truncation, main: Where, reference: Where | null): Sql | null
    reference(
      d: Dialect,
      ds: CatalogDataset,
      def: ThresholdQueryDefinition,
      t: Truncation,
      main: Where,
      reference: Where,
      bucketMs: number
    ): Sql | null
  }
}

export interface Sql {
  sql: string
  params: StoredValue[]
  /**
   * The level that reads the relation groups by the person column (and the result is exact as long as each group
   * holds all of a person's rows): on a Distributed ClickHouse table sharded by the person it may run per shard.
   */
  perPerson?: boolean
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
      const placeholders = list.map(() => '?').join(', ')
      // An empty value is in no list and not outside one (SQL: NULL NOT IN (...) is unknown; ClickHouse says true).
      return c.op === 'in' ? `${id} IN (${placeholders})` : `(${id} IS NOT NULL AND ${id} NOT IN (${placeholders}))`
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

/** A `Where`'s condition as an expression (true when it has none), with its parameters. */
export function whereCondition(w: Where): { sql: string; params: StoredValue[] } {
  return { sql: w.sql === '' ? '1 = 1' : w.sql.replace(/^WHERE /, ''), params: w.params }
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

/**
 * A group-by column's key as a row holds it: the column's stored value, or, for the column of `groupByTime`, the start
 * of its bucket, (floor((t - origin) / width)) * width + origin in whole ms (contract/time-buckets.ts; integer arithmetic
 * only, so every engine puts a row in the same bucket; an empty time stays empty).
 */
export function keyExpr(d: Dialect, ds: CatalogDataset, def: ThresholdQueryDefinition, col: CatalogColumn): string {
  const t = d.column(ds, col)
  const byTime = def.groupByTime
  if (!byTime || byTime.column !== col.name) return t
  const { width, origin } = TIME_BUCKETS[byTime.per]
  return origin === 0 ? `(${d.floorDiv(t, width)} * ${width})` : `(${d.floorDiv(`(${t} - ${origin})`, width)} * ${width} + ${origin})`
}

function bucketExpr(d: Dialect, ds: CatalogDataset, def: ThresholdQueryDefinition, bucketMs: number): string {
  const t = d.column(ds, findColumn(ds, (def.threshold as { column: string }).column, 'reference column'))
  return d.floorDiv(t, bucketMs)
}

/** The count per group (columns k1..kG, then n); with `bucketMs`, per group and time bucket (k1..kG, b, n). */
export function groupCountSql(d: Dialect, ds: CatalogDataset, def: ThresholdQueryDefinition, where: Where, bucketMs: number | null): Sql {
  const keys = keyColumns(ds, def)
  const exprs = keys.map((k) => keyExpr(d, ds, def, k))
  if (bucketMs !== null) exprs.push(bucketExpr(d, ds, def, bucketMs))
  const names = [...keys.map((_, i) => `k${i + 1}`), ...(bucketMs !== null ? ['b'] : [])]
  const sel = exprs.map((e, i) => `${e} AS ${names[i]}`).join(', ')
  const groupCols = names.join(', ')
  const table = d.relation(ds)
  if (def.count.kind === 'rows') {
    return {
      sql: `SELECT ${sel}, count(*) AS n FROM ${table} ${where.sql} GROUP BY ${exprs.join(', ')} ORDER BY ${groupCols}`,
      params: where.params
    }
  }
  const p = d.column(ds, findColumn(ds, def.count.personColumn, 'person column'))
  const perPerson = `SELECT ${sel}, count(*) AS c FROM ${table} ${where.sql} GROUP BY ${[...exprs, p].join(', ')}`
  return {
    sql: `SELECT ${groupCols}, sum(${d.least('c', '?')}) AS n FROM (${perPerson}) AS pp GROUP BY ${groupCols} ORDER BY ${groupCols}`,
    params: [def.count.cap, ...where.params],
    perPerson: true
  }
}

/** Per group (k1..kG): the max and the sum over time buckets of the count per bucket (`perBucket` from `groupCountSql`). */
export function referenceSql(def: ThresholdQueryDefinition, perBucket: Sql): Sql {
  const ks = def.groupBy.map((_, i) => `k${i + 1}`).join(', ')
  return {
    sql: `SELECT ${ks}, max(n), sum(n) FROM (${perBucket.sql}) AS pb GROUP BY ${ks}`,
    params: perBucket.params,
    perPerson: perBucket.perPerson
  }
}

/**
 * What the `maxGroups` bound (ALGORITHMS.md section 6) needs: the person column, the public predicates' key values,
 * the truncation key (keyed-hash.ts), the bound and the cap.
 */
export interface Truncation {
  person: CatalogColumn
  /** Per predicate, in predicate order: its key values in stored form, or null when no row can have them. */
  predicates: Array<StoredValue[] | null>
  /** 32 hex digits, drawn for this evaluation (a release's secure generator). */
  key: string
  maxGroups: number
  cap: number
}

function wholeNumber(x: number, what: string): string {
  if (!Number.isSafeInteger(x) || x < 1) throw new Error(`${what} must be a whole number >= 1`)
  return String(x)
}

/**
 * The rows of one period and the public predicates, to be joined: `rows` the period's rows (alias `r`: k1..kG, p[, b]),
 * `values` the predicates' literal rows (alias `v`: the key columns `keys` g1..gG, then i; whole numbers inlined, text
 * and reals as parameters),
 * `on(v)` a row's keys equal to those of the predicate relation aliased `v` (NULL keys match NULL where a predicate has
 * one), `params` those of `rows` then those of `values`, `extra` the names of further literal columns of `values` after
 * i (`PredicateColumns`). Rows in no predicate take no place in a person's bound. Null when no predicate can match any
 * row (that depends on the predicates only).
 */
export interface PredicateJoin {
  rows: string
  values: string
  keys: string[]
  on(v: string): string
  params: StoredValue[]
  extra: string[]
}

/** Further columns of the predicates' literal rows: their names, and the literals of predicate i (never parameters). */
export interface PredicateColumns {
  names: string[]
  cells(i: number): string[]
}

export function predicateJoin(
  d: Dialect,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  t: Truncation,
  where: Where,
  bucketMs: number | null,
  extra: PredicateColumns = { names: [], cells: () => [] }
): PredicateJoin | null {
  const keys = keyColumns(ds, def)
  const sel = [...keys.map((k, j) => `${keyExpr(d, ds, def, k)} AS k${j + 1}`), `${d.column(ds, t.person)} AS p`]
  if (bucketMs !== null) sel.push(`${bucketExpr(d, ds, def, bucketMs)} AS b`)
  const valueParams: StoredValue[] = []
  const nullable = keys.map(() => false)
  const rows: string[][] = []
  t.predicates.forEach((vals, i) => {
    if (!vals) return
    const cells = vals.map((v, j) => {
      const type = keys[j].type
      if (v === null) {
        nullable[j] = true
        return d.typed('NULL', type)
      }
      if ((type === 'integer' || type === 'timestamp') && typeof v === 'number' && Number.isSafeInteger(v)) return d.typed(String(v), type)
      valueParams.push(v)
      return d.typed('?', type)
    })
    rows.push([...cells, String(i), ...extra.cells(i)])
  })
  if (rows.length === 0) return null
  const names = [...keys.map((_, j) => `g${j + 1}`), 'i', ...extra.names]
  return {
    rows: `(SELECT ${sel.join(', ')} FROM ${d.relation(ds)} ${where.sql}) AS r`,
    values: d.values(rows, names, 'v'),
    keys: names.slice(0, keys.length),
    extra: extra.names,
    on: (v) =>
      keys.map((_, j) => (nullable[j] ? d.sameValue(`r.k${j + 1}`, `${v}.g${j + 1}`) : `r.k${j + 1} = ${v}.g${j + 1}`)).join(' AND ') || '1 = 1',
    params: [...where.params, ...valueParams]
  }
}

/**
 * (i, p[, b]) of `join`: every row of its period in a predicate, one per row, with the predicate's `extra` columns; with
 * `counted`, (i, p[, b], c) counted.
 */
function joinedRows(join: PredicateJoin, bucketed: boolean, counted: boolean): Sql {
  const b = bucketed ? ', r.b' : ''
  const extra = counted ? '' : join.extra.map((x) => `, v.${x} AS ${x}`).join('')
  const select = `SELECT v.i AS i, r.p AS p${bucketed ? ', r.b AS b' : ''}${extra}`
  const from = `FROM ${join.rows} JOIN ${join.values} ON ${join.on('v')}`
  return { sql: counted ? `${select}, count(*) AS c ${from} GROUP BY v.i, r.p${b}` : `${select} ${from}`, params: join.params }
}

/** (i, p, extra...): every row of `join`'s period in a predicate, one per row (`join` without time buckets). */
export function predicateRows(join: PredicateJoin): Sql {
  return joinedRows(join, false, false)
}

/** (i, p[, b], c): the rows of one period per predicate, person (and time bucket), counted. Null when no predicate can match. */
function predicateTuples(
  d: Dialect,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  t: Truncation,
  where: Where,
  bucketMs: number | null
): Sql | null {
  const join = predicateJoin(d, ds, def, t, where, bucketMs)
  return join && joinedRows(join, bucketMs !== null, true)
}

/**
 * `row_number() OVER` a person's predicates in keyed-rank order (then by index): the first `maxGroups` are kept. The
 * rows of `from` (columns i, p and the rest of `cols`; p never empty: `whereOf` leaves out rows without a person) are
 * computed once (a materialized common table expression); each distinct person's digest once (and, for
 * `rankPartition` 'number', a whole number `pid` of its own), joined back to the person's rows; the rank is
 * keyed-hash.ts's cubic in i mod P, and the order key h 2^31 + i (below 2^62) sorts by (rank, i) as one integer. The
 * window's partitions are the persons either way (pid is one-to-one with the person's value, and the join's equality
 * is the partition's).
 */
function ranked(d: Dialect, t: Truncation, from: string, cols: string[]): string {
  const P = RANK_MODULUS
  const words = Array.from({ length: RANK_WORDS }, (_, j) => `${d.digestWord('pd.hx', j)} AS c${j}`)
  const numbered = d.rankPartition === 'number'
  const persons =
    `SELECT pd.p AS p, ${numbered ? 'row_number() OVER () AS pid, ' : ''}${words.join(', ')} FROM (SELECT dp.p AS p, ` +
    `${d.personDigest(t.key, 'dp.p', t.person.type)} AS hx FROM (SELECT DISTINCT p FROM pt) AS dp) AS pd`
  let rank = `ph.c${RANK_WORDS - 1}`
  for (let j = RANK_WORDS - 2; j >= 0; j--) rank = `(${rank} * t0.i + ph.c${j}) % ${P}`
  return (
    `WITH pt AS ${d.materialized} (${from}), ph AS (${persons}) ` +
    `SELECT ${cols.join(', ')}, row_number() OVER (PARTITION BY pid ORDER BY hk) AS rk ` +
    `FROM (SELECT ${cols.map((c) => `t0.${c} AS ${c}`).join(', ')}, ${numbered ? 'ph.pid' : 't0.p'} AS pid, ${rank} * ${RANK_INDEX_SPAN} + t0.i AS hk ` +
    `FROM pt AS t0 JOIN ph ON t0.p = ph.p) AS th`
  )
}

/**
 * Per predicate index i (columns i, n): the sum over persons of min(rows, cap) over each person's kept predicates,
 * the `maxGroups` bound applied in the engine. Without a reference period a person's predicates are those of `main`;
 * with one (`reference` given), those of both periods, and the same kept set applies to both (see
 * `truncatedReferenceSql`). Which predicates a person keeps depends on that person's rows and the key only
 * (keyed-hash.ts says why that is sound). Null when no predicate can match.
 */
export function truncatedCountSql(
  d: Dialect,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  t: Truncation,
  main: Where,
  reference: Where | null
): Sql | null {
  if (d.truncation) return d.truncation.count(d, ds, def, t, main, reference)
  const cap = wholeNumber(t.cap, 'the cap')
  const m = wholeNumber(t.maxGroups, 'maxGroups')
  const tuples = predicateTuples(d, ds, def, t, main, null)
  if (!tuples) return null
  if (!reference) {
    return {
      sql: `SELECT i, sum(${d.least('c', cap)}) AS n FROM (${ranked(d, t, tuples.sql, ['i', 'p', 'c'])}) AS w WHERE rk <= ${m} GROUP BY i`,
      params: tuples.params
    }
  }
  const kept = keptSql(d, ds, def, t, main, reference)!
  return {
    sql: `SELECT t.i AS i, sum(${d.least('t.c', cap)}) AS n FROM (${tuples.sql}) AS t JOIN (${kept.sql}) AS k ON t.i = k.i AND t.p = k.p GROUP BY t.i`,
    params: [...tuples.params, ...kept.params]
  }
}

/** (i, p) kept: each person's first `maxGroups` predicates in keyed-rank order, over the rows of both periods. */
function keptSql(d: Dialect, ds: CatalogDataset, def: ThresholdQueryDefinition, t: Truncation, main: Where, reference: Where): Sql | null {
  const a = predicateTuples(d, ds, def, t, main, null)
  const b = predicateTuples(d, ds, def, t, reference, null)
  if (!a || !b) return null
  const both = `SELECT DISTINCT i, p FROM (SELECT i, p FROM (${a.sql}) AS ta UNION ALL SELECT i, p FROM (${b.sql}) AS tb) AS u`
  return {
    sql: `SELECT i, p FROM (${ranked(d, t, both, ['i', 'p'])}) AS w WHERE rk <= ${wholeNumber(t.maxGroups, 'maxGroups')}`,
    params: [...a.params, ...b.params]
  }
}

/**
 * Per predicate index i (columns i, max, sum): over the time buckets of the reference period, the max and the sum of
 * the bucket's count (sum over persons of min(rows in the bucket, cap)), each person counted in their kept predicates
 * only (the kept set of `truncatedCountSql`, over both periods). Null when no predicate can match.
 */
export function truncatedReferenceSql(
  d: Dialect,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  t: Truncation,
  main: Where,
  reference: Where,
  bucketMs: number
): Sql | null {
  if (d.truncation) return d.truncation.reference(d, ds, def, t, main, reference, bucketMs)
  const cap = wholeNumber(t.cap, 'the cap')
  const tuples = predicateTuples(d, ds, def, t, reference, bucketMs)
  const kept = keptSql(d, ds, def, t, main, reference)
  if (!tuples || !kept) return null
  const perBucket = `SELECT t.i AS i, t.b AS b, sum(${d.least('t.c', cap)}) AS n FROM (${tuples.sql}) AS t JOIN (${kept.sql}) AS k ON t.i = k.i AND t.p = k.p GROUP BY t.i, t.b`
  return { sql: `SELECT i, max(n), sum(n) FROM (${perBucket}) AS pb GROUP BY i`, params: [...tuples.params, ...kept.params] }
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
