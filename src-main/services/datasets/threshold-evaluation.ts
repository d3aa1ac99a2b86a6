/**
 * Evaluation of a saved threshold query: the predicates (one per group), each with its TRUE count and its threshold,
 * and the sensitivity of the counts. For the release service and for sweeps only: true counts are internal and must
 * never reach the analyst through the contract, logs or error messages.
 *
 * The predicate set (data-independent wherever the thresholds define it):
 * - column threshold: exactly the rows of the threshold table (its keys); a group of the data without a row there has
 *   no threshold and is not a predicate; a key with no data in the period is a predicate with count 0.
 * - constant and reference thresholds: the explicit `groups` of the definition if given; otherwise every key tuple that
 *   occurs anywhere in the dataset (all rows, ignoring filter and period), i.e. the key values are treated as public.
 *   Groups with no row in the filter/period get count 0.
 * Counts: rows matching the filter and the period [from, to); with a person column, sum over persons of
 * min(rows of that person in the group, cap) (rows without a person are left out); sensitivity = cap (1 for rows).
 * Comparisons never match empty (NULL) values, except `is null`.
 * Reference threshold: factor x (max or mean) over the time buckets (UTC hours/days, aligned to the epoch) that
 * intersect the reference period, of the group's count in the bucket (same filter and count); empty buckets count 0.
 */
import type Database from 'better-sqlite3'
import type { ColumnType, FilterCondition, ThresholdQueryDefinition } from '../../contract/datasets'
import { UserError } from '../errors'
import { type StoredValue, groupKey, toDisplay } from './column-types'
import { type CatalogColumn, type CatalogDataset, getDataset, ident } from './catalog'
import { checkThresholdDefinition, findColumn, storedValueFor } from './query-definitions'
import { getQuery } from './query-store'

export interface ThresholdPredicate {
  /** Stable key of the group: JSON list of its key values (text form) in group-by order. */
  key: string
  /** e.g. `room=B12, day=2015-01-01T00:00:00.000Z` */
  label: string
  /** TRUE count: internal only. */
  count: number
  threshold: number
}

export interface ThresholdEvaluation {
  predicates: ThresholdPredicate[]
  /** How much one person (or row) can change one predicate's count. */
  sensitivity: number
  datasetId: number
  groupBy: string[]
}

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

interface Where {
  /** `WHERE ...` or '' */
  sql: string
  /** The condition alone, or null when every row counts. */
  expr: string | null
  params: StoredValue[]
}

const SQL_OPS: Record<string, string> = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' }

function compileCondition(ds: CatalogDataset, c: FilterCondition, params: StoredValue[]): string {
  const col = findColumn(ds, c.column, 'filter column')
  const id = ident(col.sqlName)
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

function compileWhere(ds: CatalogDataset, def: ThresholdQueryDefinition, period: { column: CatalogColumn; from: number; to: number } | null): Where {
  const parts: string[] = []
  const params: StoredValue[] = []
  for (const c of def.filter ?? []) parts.push(compileCondition(ds, c, params))
  if (period) {
    parts.push(`${ident(period.column.sqlName)} >= ? AND ${ident(period.column.sqlName)} < ?`)
    params.push(period.from, period.to)
  }
  if (def.count.kind === 'persons') parts.push(`${ident(findColumn(ds, def.count.personColumn, 'person column').sqlName)} IS NOT NULL`)
  const expr = parts.length ? parts.map((x) => `(${x})`).join(' AND ') : null
  return { sql: expr ? `WHERE ${expr}` : '', expr, params }
}

function periodOf(ds: CatalogDataset, column: string, from: string, to: string): { column: CatalogColumn; from: number; to: number } {
  const col = findColumn(ds, column, 'period column')
  return { column: col, from: storedValueFor(col, from, 'from') as number, to: storedValueFor(col, to, 'to') as number }
}

/**
 * SQL of the count per group (columns k1..kG, then n); with `bucketMs`, per group and time bucket (k1..kG, b, n).
 * With `allGroups`, one scan of the whole table returns every key tuple of the dataset, with the count of its rows
 * that meet the condition (0 for the others): the default predicate set and the counts at once.
 */
function countSql(ds: CatalogDataset, def: ThresholdQueryDefinition, where: Where, bucketMs: number | null, allGroups = false): { sql: string; params: StoredValue[] } {
  const keys = def.groupBy.map((g) => findColumn(ds, g, 'group-by column'))
  const keySel = keys.map((k, i) => `${ident(k.sqlName)} AS k${i + 1}`)
  const keyNames = keys.map((_, i) => `k${i + 1}`)
  let bucketSel = ''
  const groupExtra: string[] = []
  if (bucketMs !== null) {
    const t = ident(findColumn(ds, (def.threshold as { column: string }).column, 'reference column').sqlName)
    // floor(t / b) for integers of any sign
    bucketSel = `, ((${t} - ((${t} % ${bucketMs}) + ${bucketMs}) % ${bucketMs}) / ${bucketMs}) AS b`
    groupExtra.push('b')
  }
  const table = ident(ds.tableName)
  const groupCols = [...keyNames, ...groupExtra].join(', ')
  const filterSql = allGroups ? '' : where.sql
  // In all-groups mode the condition becomes a 0/1 mark counted per group.
  const mark = allGroups ? `, ${where.expr ? `CASE WHEN ${where.expr} THEN 1 END` : '1'} AS m` : ''
  const counted = allGroups ? 'count(m)' : 'count(*)'
  if (def.count.kind === 'rows') {
    return {
      sql: `SELECT ${groupCols}, ${counted} AS n FROM (SELECT ${keySel.join(', ')}${bucketSel}${mark} FROM ${table} ${filterSql}) GROUP BY ${groupCols} ORDER BY ${groupCols}`,
      params: where.params
    }
  }
  const p = ident(findColumn(ds, def.count.personColumn, 'person column').sqlName)
  const inner = `SELECT ${keySel.join(', ')}${bucketSel}, ${p} AS p${mark} FROM ${table} ${filterSql}`
  const perPerson = `SELECT ${groupCols}, p, ${counted} AS c FROM (${inner}) GROUP BY ${groupCols}, p`
  return {
    sql: `SELECT ${groupCols}, sum(min(c, ?)) AS n FROM (${perPerson}) GROUP BY ${groupCols} ORDER BY ${groupCols}`,
    params: [def.count.cap, ...where.params]
  }
}

/** Evaluates a definition (validated again here) on a dataset. */
export function evaluateThresholdDefinition(db: Database.Database, datasetId: number, raw: ThresholdQueryDefinition): ThresholdEvaluation {
  const ds = getDataset(db, datasetId)
  const def = checkThresholdDefinition(db, ds, raw as unknown as Record<string, unknown>)
  const keyCols = def.groupBy.map((g) => findColumn(ds, g, 'group-by column'))
  const types = keyCols.map((c) => c.type)
  const label = (stored: readonly unknown[], valueTypes: readonly ColumnType[] = types) =>
    keyCols.map((c, i) => `${c.name}=${stored[i] === null || stored[i] === undefined ? '(empty)' : String(toDisplay(valueTypes[i], stored[i]))}`).join(', ')

  // 1. The predicate set and thresholds (thresholds of reference kind are filled in step 3).
  const domain: Array<{ key: string; label: string; threshold: number }> = []
  const th = def.threshold
  if (th.kind === 'column') {
    const other = getDataset(db, th.datasetId)
    const onCols = def.groupBy.map((g) => findColumn(other, th.on?.[g] ?? g, 'threshold key column'))
    const thrCol = findColumn(other, th.column, 'threshold column')
    const rows = db
      .prepare(`SELECT ${[...onCols, thrCol].map((c) => ident(c.sqlName)).join(', ')} FROM ${ident(other.tableName)} ORDER BY rowid`)
      .raw()
      .all() as unknown[][]
    const seen = new Set<string>()
    rows.forEach((r, idx) => {
      const keyVals = r.slice(0, onCols.length)
      const key = groupKey(onCols.map((c) => c.type), keyVals)
      if (seen.has(key)) throw new UserError(`The threshold table "${other.info.name}" has two rows for the same group (row ${idx + 1}); keep one row per group`, 'bad-query')
      seen.add(key)
      const t = r[onCols.length]
      if (typeof t !== 'number') throw new UserError(`The threshold table "${other.info.name}" has no threshold on row ${idx + 1}; fill it in or remove the row`, 'bad-query')
      domain.push({ key, label: label(keyVals, onCols.map((c) => c.type)), threshold: t })
    })
  } else if (def.groups) {
    for (const g of def.groups) {
      const stored = g.map((v, i) => storedValueFor(keyCols[i], v, 'A group value'))
      domain.push({ key: groupKey(types, stored), label: label(stored), threshold: th.kind === 'constant' ? th.value : 0 })
    }
  }

  // 2. Counts in the filter and period (for the default predicate set, in the same scan as the set itself).
  const period = def.period ? periodOf(ds, def.period.column, def.period.from, def.period.to) : null
  const counts = new Map<string, number>()
  const G = keyCols.length
  const allGroups = th.kind !== 'column' && !def.groups
  const main = countSql(ds, def, compileWhere(ds, def, period), null, allGroups)
  for (const r of db.prepare(main.sql).raw().all(...main.params) as unknown[][]) {
    const keyVals = r.slice(0, G)
    const key = groupKey(types, keyVals)
    counts.set(key, Number(r[G] ?? 0))
    if (allGroups) domain.push({ key, label: label(keyVals), threshold: th.kind === 'constant' ? th.value : 0 })
  }

  // 3. Reference thresholds.
  if (th.kind === 'reference') {
    const ref = periodOf(ds, th.column!, th.from, th.to)
    const bucketMs = th.bucket === 'hour' ? HOUR_MS : DAY_MS
    const perBucket = countSql(ds, def, compileWhere(ds, def, ref), bucketMs)
    const agg = `SELECT ${Array.from({ length: G }, (_, i) => `k${i + 1}`).join(', ')}, max(n), sum(n) FROM (${perBucket.sql}) GROUP BY ${Array.from({ length: G }, (_, i) => `k${i + 1}`).join(', ')}`
    const buckets = Math.floor((ref.to - 1) / bucketMs) - Math.floor(ref.from / bucketMs) + 1
    const refValue = new Map<string, number>()
    for (const r of db.prepare(agg).raw().all(...perBucket.params) as unknown[][]) {
      const mx = Number(r[G])
      const sum = Number(r[G + 1])
      refValue.set(groupKey(types, r.slice(0, G)), th.aggregate === 'max' ? Math.max(0, mx) : sum / buckets)
    }
    for (const d of domain) d.threshold = th.factor * (refValue.get(d.key) ?? 0)
  }

  return {
    predicates: domain.map((d) => ({ key: d.key, label: d.label, count: counts.get(d.key) ?? 0, threshold: d.threshold })),
    sensitivity: def.count.kind === 'persons' ? def.count.cap : 1,
    datasetId: ds.info.id,
    groupBy: def.groupBy
  }
}

/** Evaluates a saved threshold query (see the file comment for the predicate set). */
export function evaluateThresholdQuery(store: { db: Database.Database }, queryId: number): ThresholdEvaluation {
  const q = getQuery(store.db, queryId)
  if (q.definition.kind !== 'threshold') throw new UserError(`Saved query ${q.id} is not a threshold query (it is ${q.definition.kind})`, 'bad-query')
  return evaluateThresholdDefinition(store.db, q.datasetId, q.definition)
}
